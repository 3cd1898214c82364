"""Running a shipping CLI agent (Claude Code, Codex CLI, OpenCode, Gemini CLI) as a variant:
finding its installed binary, the episode around inspect-swe's agent and bridge, and turning the
product's own record into the harness's ledger, scored by the same scorer as the harness's own
loop."""
