"""Example todo designs added through the extension point (see README, "Adding a design")."""
