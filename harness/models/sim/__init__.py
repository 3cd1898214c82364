"""The simulated agent: an inspect model provider (`sim/<profile>`) and its profiles."""
