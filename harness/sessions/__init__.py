"""Products' own session records (Claude Code, Codex CLI, OpenCode, Gemini CLI, inspect logs): the
readers and the events they produce, below both the audit and a runner of the real CLIs."""
