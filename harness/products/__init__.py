"""The shipping coding agents, one module each (`claude_code.py`, `codex.py`, `opencode.py`,
`gemini_cli.py`):
every fact about a product declared once — its npm package, todo tools and their dialect, file
tools and shell, own folders, session record and its parser, compaction, extension point and
switches. `catalog.py` gathers them; every other wing reads products from there."""
