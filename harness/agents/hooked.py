"""A CLI row's hooks (`cli/claude-code-todowrite+whitelist`, `cli/codex+whitelist`,
`cli/opencode+whitelist` and the like): the seed's fixes (`harness/hooks/`) installed as the
product's hooks, and their journal read back and checked against the episode's ledger.

Claude Code: the project's `.claude/settings.json`, not the user's: inspect-swe rewrites
`$HOME/.claude/settings.json` when it starts the CLI. The CLI episode leaves `.claude/` out of
the workspace's files, so the settings are no part of the task's work.

Codex CLI: its CODEX_HOME's `hooks.json` (in the episode's HOME), since a project's hooks run
only in a trusted project; and Codex runs hooks only once they are trusted, so `codex` is
reached through a wrapper in the episode's HOME that adds the flag a headless user passes
(`codex exec --dangerously-bypass-hook-trust`).

Gemini CLI: the project's `.gemini/settings.json` (its user settings are inspect-swe's to
write); it runs a project's hooks in a trusted folder, and inspect-swe starts it with the folder
trusted (`GEMINI_CLI_TRUST_WORKSPACE=true`). The episode leaves `.gemini/` out of the
workspace's files too.

OpenCode: its plugin in the workspace's `.opencode/plugins/` (`harness/hooks/plugin.py`), that
folder given the lockfile of OpenCode's plugin SDK, which it would otherwise fetch from npm at
start; the CLI episode leaves `.opencode/` out of the workspace's files.
"""

from __future__ import annotations

import bisect
from pathlib import Path
from typing import Any

from inspect_ai.util import StoreModel
from pydantic import Field

from harness.episode.ledger import ClaimEvent, InjectionEvent, Ledger, TodoEvent
from harness.hooks.hosts import HOSTS
from harness.hooks.install import install
from harness.hooks.journal import HOOK_JOURNAL, HookRecord
from harness.hooks.state import HOOK_STATE
from harness.hooks.stop_gate import MAX_BLOCKS, SCENARIO
from harness.hooks.warm import WARM_DIR
from harness.products.product import CliProduct
from harness.products.shipped import codex, opencode
from harness.suite.scenario import Scenario
from harness.tokens import text_tokens

#: Claude Code's own cap on Stop-hook blocks in a row (default 8; undocumented)
PRODUCT_BLOCK_CAP = "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"
#: the hook program's name, in the folder of this todo-bench's commands as the CLI sees it
PROGRAM = "todo-bench-hook"


class HookJournal(StoreModel):
    """The hooks' journal of one episode, in the sample's store (so `inspect view` shows every
    refusal, injection, blocked stop and failure of the hooks)."""

    records: list[dict[str, Any]] = Field(default_factory=list)
    #: the product ended on a stop the hook had blocked (its own cap on blocks in a row)
    overridden: bool = False


def install_hooks(
    product: CliProduct, scenario: Scenario, workspace: Path, home: Path, tools: Path
) -> dict[str, str]:
    """Install the product's hooks into the workspace, run from `tools` (this todo-bench's
    commands, as the CLI sees them); the environment they need (empty for a product without
    hooks)."""
    if not product.hooks:
        return {}
    host = HOSTS[product.cli]
    # Codex: install(HOME) writes HOME/.codex/hooks.json, its CODEX_HOME's (module docstring)
    folder = home if product.cli == codex.CLI else workspace
    install(folder, product.hooks, str(tools / PROGRAM), host)
    if product.cli == opencode.CLI:  # its plugin folder, with the SDK it would fetch at start
        opencode.seed_plugin_sdk(workspace / opencode.OWN_FOLDER, product)
    env = {HOOK_JOURNAL: str(home / "hooks.jsonl"), HOOK_STATE: str(home / "hook-state")}
    # the hook program's warm server beside them: it ends once the episode's HOME is removed
    env[WARM_DIR] = str(home / "hook-warm")
    if any(fix.startswith("gate") for fix in product.hooks):
        # the board's gates refuse until the turn budget is spent, as the harness's own +gate
        # and +heuristic do, so a row compares the fix and not its bound: the hook's own bound
        # (a user's install keeps 3, harness/hooks/stop_gate.py) and the product's, which ends a
        # turn after 8 blocks in a row and tells the hook nothing
        env[MAX_BLOCKS] = str(scenario.max_turns)
        env[PRODUCT_BLOCK_CAP] = str(scenario.max_turns)
    if "gate-oracle" in product.hooks:
        path = home / "scenario.json"
        path.write_text(scenario.model_dump_json(), encoding="utf-8")
        env[SCENARIO] = str(path)
    return env


#: `codex` on the CLI's PATH for a hook row: its `exec` with the hooks' trust bypassed, the rest
#: as it is (the real binary is the next `codex` on PATH, without this folder)
_CODEX_WRAPPER = """#!/bin/sh
here=$(cd "$(dirname "$0")" && pwd)
PATH=$(printf %s ":$PATH:" | sed "s|:$here:|:|g; s|^:||; s|:$||")
export PATH
if [ "$1" = exec ]; then shift; exec codex exec {flag} "$@"; fi
exec codex "$@"
"""


def hooked_path(product: CliProduct, home: Path, path: str) -> str:
    """The PATH the CLI runs with: `path`, behind a folder in `home` with Codex CLI's wrapper
    for a Codex row with hooks (module docstring)."""
    if product.cli != codex.CLI or not product.hooks:
        return path
    folder = home / "hooked-bin"
    folder.mkdir(exist_ok=True)
    wrapper = folder / Path(product.binary).name
    wrapper.write_text(_CODEX_WRAPPER.format(flag=codex.HOOKS_TRUST_FLAG), encoding="utf-8")
    wrapper.chmod(0o755)
    return f"{folder}:{path}"


def hook_records(home: Path) -> list[HookRecord]:
    """What the hooks journaled in one episode, in order."""
    path = home / "hooks.jsonl"
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [HookRecord.model_validate_json(line) for line in lines if line.strip()]


def injections(records: list[HookRecord], turn_times: list[float]) -> list[InjectionEvent]:
    """The context the inject hook added (for the session's main thread and its subagents), as
    the ledger's injections: each in the first turn whose request came after it (`turn_times`,
    wall clock as the journal's; one past the last turn if none did)."""
    return [
        InjectionEvent(
            turn=bisect.bisect_right(turn_times, r.time) + 1,
            source="hook",
            chars=len(r.text),
            tokens=text_tokens(r.text),
        )
        for r in records
        if r.action == "injected"
    ]


def standing_blocks(records: list[HookRecord]) -> list[HookRecord]:
    """The main thread's blocked stops, less those taken back: a `withdrawn` record takes back
    its session's last block (its text preceded tool calls: OpenCode's plugin)."""
    standing: list[HookRecord] = []
    for r in (r for r in records if not r.agent_id):
        if r.action == "blocked":
            standing.append(r)
        elif r.action == "withdrawn":
            ours = [i for i, block in enumerate(standing) if block.session_id == r.session_id]
            if ours:
                del standing[ours[-1]]
    return standing


def overridden(records: list[HookRecord], ledger: Ledger, last_request: float) -> bool:
    """Whether the product ended the episode on a stop its hook had blocked: Claude Code ends a
    turn after a number of Stop-hook blocks in a row with no tool call between them
    (`CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`, 8 by default), and tells the hook nothing. Then the
    journal has one block more than the ledger, that block came after the product's last
    model request (`last_request`, wall clock as the journal's), and the ledger ends on the
    claim, unblocked."""
    blocks = standing_blocks(records)
    claims = sum(1 for c in ledger.of(ClaimEvent) if c.blocked)
    last = ledger.events[-1] if ledger.events else None
    return (
        len(blocks) == claims + 1
        and blocks[-1].time > last_request
        and isinstance(last, ClaimEvent)
        and not last.blocked
        and ledger.end_reason == last.ending
    )


def disagreements(records: list[HookRecord], ledger: Ledger, last_request: float) -> list[str]:
    """Where the hooks' journal and the ledger (built from the product's record and the
    bridge) disagree: a denied TodoWrite the product did not refuse, or blocked stops in one
    and not the other (but the last block the product overrode, see `overridden`). Empty when
    they agree."""
    main = [r for r in records if not r.agent_id]
    todo = {e.call_id: e for e in ledger.of(TodoEvent)}
    problems = [
        f"the hooks denied {r.tool} call {r.tool_use_id}; the product's record shows it accepted"
        for r in main
        if r.action == "denied"
        and (event := todo.get(r.tool_use_id)) is not None
        and event.accepted
    ]
    blocked = len(standing_blocks(records)) - overridden(records, ledger, last_request)
    claims = sum(1 for c in ledger.of(ClaimEvent) if c.blocked)
    if blocked != claims:
        problems.append(
            f"the hooks blocked {blocked} stop(s); the product went on after {claims} final "
            "answer(s)"
        )
    return problems
