"""The shipping coding agents the board runs as variants (`cli/...`): each is a vendor's CLI with
its own todo tool, driven through inspect-swe, and names the harness design that replays its
todo calls into the ledger (`cc-todowrite`, `cc-tasks`), so every detector applies unchanged.

Pure data: how each is installed, found, switched and named. Running one is `harness/agents`.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class CliProduct(BaseModel):
    """One shipping agent under one configuration of its todo tool."""

    model_config = ConfigDict(frozen=True)

    #: the variant's name on the board
    name: str
    title: str
    #: which CLI (one inspect-swe agent per CLI)
    cli: str
    #: the registered harness design that replays this product's todo calls
    design: str
    #: the npm package (pinned in scripts/agents/package.json) and where its platform binary is
    package: str
    #: the pinned version (scripts/agents/package.json); another one installed is refused
    version: str
    binary: str
    #: the product's own switches, set in the CLI's environment; recorded in run.json
    env: dict[str, str]
    #: the product's todo tools, as it offers them to the model
    todo_tools: tuple[str, ...]
    #: the model id the CLI is told it talks to: an id it knows, so it offers its full tool set
    #: (the bridge answers with the eval's model whatever the id)
    model_config_id: str = "claude-sonnet-4-5"


#: what every Claude Code row sets: no telemetry, no update check, no other traffic (the
#: machines have no network but the bridge), and the todo tools on (headless mode hides them
#: for a model id it does not know)
_QUIET = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_ENABLE_TODO_TOOLS": "1",
}
_CLAUDE = {
    "cli": "claude-code",
    "package": "@anthropic-ai/claude-code",
    "version": "2.1.332",
    "binary": "node_modules/@anthropic-ai/claude-code-linux-x64/claude",
}

PRODUCTS: dict[str, CliProduct] = {
    p.name: p
    for p in (
        CliProduct(
            name="cli/claude-code-todowrite",
            title="Claude Code, TodoWrite (full-list rewrite)",
            design="cc-todowrite",
            env={**_QUIET, "CLAUDE_CODE_ENABLE_TASKS": "false"},
            todo_tools=("TodoWrite",),
            **_CLAUDE,
        ),
        CliProduct(
            name="cli/claude-code-tasks",
            title="Claude Code, TaskCreate / TaskUpdate (id-based)",
            design="cc-tasks",
            env={**_QUIET, "CLAUDE_CODE_ENABLE_TASKS": "true"},
            todo_tools=("TaskCreate", "TaskUpdate", "TaskList", "TaskGet"),
            **_CLAUDE,
        ),
    )
}
#: `--variants agents`
AGENTS: tuple[str, ...] = tuple(PRODUCTS)
