"""How each shipping CLI is run through inspect-swe, declared once per CLI: its inspect-swe
agent, what the episode prepares before it starts, and where its own record of the episode's
calls is (under the episode's fresh HOME).

- Claude Code: `claude_code()`; its session JSONL under `$HOME/.claude/projects/`.
- Codex CLI: `codex_cli()` with `CODEX_HOME` in the episode's HOME (its config, AGENTS.md and
  rollouts, never the workspace), the product's config keys as `-c` overrides (those inspect-swe
  sets from its own arguments passed as those arguments); its rollout JSONL under
  `CODEX_HOME/sessions/`. inspect-swe's model-catalog download is answered from its own bundled
  snapshot (`seed_codex_catalog`), so a run tries no connection but the bridge.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

from inspect_ai.agent import Agent
from inspect_swe import claude_code, codex_cli

from harness._inspect_private import seed_codex_catalog
from harness.sessions.calls import (
    CallRecord,
    claude_code_calls,
    claude_code_sessions,
    codex_calls,
    codex_sessions,
)
from harness.todo.clis import CliProduct

#: the arguments every inspect-swe CLI agent takes (version, model_config, cwd, env, filter,
#: system_prompt)
Common = dict[str, Any]


@dataclass(frozen=True)
class CliRunner:
    #: inspect-swe's agent for the product, given the common arguments and the episode's HOME
    agent: Callable[[CliProduct, Common, Path], Agent]
    #: the product's own record of its calls, read from the episode's HOME after the run
    record: Callable[[Path], list[CallRecord]]
    #: run in the CLI's host environment (the episode's HOME) just before it starts
    prepare: Callable[[CliProduct], None] = field(default=lambda product: None)


def codex_home(home: Path) -> Path:
    return home / ".codex"


#: the Codex config keys inspect-swe's `codex_cli()` writes itself from its own arguments
#: (after every override), so they are passed as those arguments
_CODEX_OWN_ARGS = ("web_search", "features.goals")


def _codex_agent(product: CliProduct, common: Common, home: Path) -> Agent:
    config = product.config
    search = cast(Literal["live", "cached", "disabled"], config["web_search"].strip('"'))
    return codex_cli(
        home_dir=str(codex_home(home)),
        web_search=search,
        goals=config["features.goals"] == "true",
        config_overrides={k: v for k, v in config.items() if k not in _CODEX_OWN_ARGS},
        **common,
    )


def _claude_code_record(home: Path) -> list[CallRecord]:
    return [call for path in claude_code_sessions(home) for call in claude_code_calls(path)]


def _codex_record(home: Path) -> list[CallRecord]:
    return [call for path in codex_sessions(codex_home(home)) for call in codex_calls(path)]


RUNNERS: dict[str, CliRunner] = {
    "claude-code": CliRunner(
        agent=lambda product, common, home: claude_code(**common), record=_claude_code_record
    ),
    "codex": CliRunner(
        agent=_codex_agent,
        record=_codex_record,
        prepare=lambda product: seed_codex_catalog(product.version),
    ),
}
