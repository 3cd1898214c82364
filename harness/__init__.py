"""todo-bench: measure how LLM agents corrupt their own todo lists."""
