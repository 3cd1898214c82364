"""Every shipping product the board runs, and what the rest of the harness derives from them:
the rows (`cli/...` variants), the hook switches a row takes, the todo tools by kind, the file
tools and shells, the folders the products keep, their compaction words, and the readers of
their session records."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.products import claude_code, codex, gemini_cli, opencode
from harness.products.product import CliProduct, FileTools, ListDialect, Shell, TaskTools
from harness.products.record import Event

PRODUCTS: dict[str, CliProduct] = {
    row.name: row for module in (claude_code, codex, opencode, gemini_cli) for row in module.ROWS
}
#: `--variants agents`
AGENTS: tuple[str, ...] = tuple(PRODUCTS)

#: every product's full-list dialect and id-based tools, each once
DIALECTS: tuple[ListDialect, ...] = tuple(
    dict.fromkeys(p.dialect for p in PRODUCTS.values() if p.dialect is not None)
)
TASK_TOOLS: tuple[TaskTools, ...] = tuple(
    dict.fromkeys(p.tasks for p in PRODUCTS.values() if p.tasks is not None)
)
#: the products' todo tools that only read the list
TODO_READS: frozenset[str] = frozenset(name for t in TASK_TOOLS for name in t.reads)
FILE_TOOLS: tuple[FileTools, ...] = tuple(
    dict.fromkeys(p.file_tools for p in PRODUCTS.values() if p.file_tools is not None)
)
SHELLS: tuple[Shell, ...] = tuple(dict.fromkeys(p.shell for p in PRODUCTS.values()))
#: the folders the products keep for themselves in a project
OWN_FOLDERS: tuple[str, ...] = tuple(
    dict.fromkeys(f for p in PRODUCTS.values() for f in p.own_folders)
)
#: the products' compaction requests, each by the words it asks for its summary in
SUMMARY_REQUESTS: tuple[tuple[str, ...], ...] = tuple(
    dict.fromkeys(p.summary_request for p in PRODUCTS.values())
)


@dataclass(frozen=True)
class RecordFormat:
    """How the audit reads one product's session records."""

    #: the product's CLI name (the format's name in the audit's output)
    name: str
    #: whether a line of a JSONL file is this product's
    recognises: Callable[[dict[str, Any]], bool]
    events: Callable[[Path], Iterator[Event]]
    #: the agent's text in one record, if it has any
    final_text: Callable[[dict[str, Any]], str | None]


#: in the order a line is tried (OpenCode's first line is recognised only as the first)
FORMATS: tuple[RecordFormat, ...] = (
    RecordFormat(opencode.CLI, opencode.recognises, opencode.events, opencode.final_text),
    RecordFormat(codex.CLI, codex.recognises, codex.events, codex.final_text),
    RecordFormat(
        claude_code.CLI, claude_code.recognises, claude_code.events, claude_code.final_text
    ),
    RecordFormat(gemini_cli.CLI, gemini_cli.recognises, gemini_cli.events, gemini_cli.final_text),
)

#: a CLI row's switch on the board -> the hook fix it installs (`harness/hooks/fixes.py`):
#: the seed's L1, L2 and L4 and the two completion gates, named as the harness's own rows name
#: the same fixes (`L1-textlock`, `L2-whitelist`, `+inject`, `+gate`, `+heuristic`)
HOOK_SWITCHES: dict[str, str] = {
    "textlock": "textlock",
    "whitelist": "whitelist",
    "inject": "inject",
    "gate": "gate-oracle",
    "heuristic": "gate-heuristic",
}
#: the fixes that read and judge the product's full todo list; the oracle gate judges the
#: scenario from the calls and the workspace, so it works on any product
_LIST_ONLY = ("textlock", "whitelist", "inject", "heuristic")
_TODOWRITE_ROW = claude_code.ROWS[0].name
_TASKS_ROW = claude_code.ROWS[1].name
#: Codex CLI's: the checks of update_plan (`PreToolUse`) and the oracle gate (`Stop`); not yet
#: its injection (whether the simulated agent reads Codex's developer message is not
#: established) nor the heuristic gate (its keyword table reads no Codex call) (docs/hooks.md)
_CODEX_SWITCHES = ("textlock", "whitelist", "gate")
_CODEX_ROW = codex.ROWS[0].name
#: Gemini CLI's: the checks of write_todos (`BeforeTool`); not yet its injection (whether the
#: simulated agent reads its `<hook_context>` is not established) nor a gate (a trial `+gate`
#: episode stalled after a right refusal, not diagnosed) (docs/hooks.md)
_GEMINI_SWITCHES = ("textlock", "whitelist")
_GEMINI_ROW = gemini_cli.ROWS[0].name
#: OpenCode's, through its plugin: the checks of todowrite (`tool.execute.before`); its
#: injection and gates are not board rows yet (docs/hooks.md)
_OPENCODE_SWITCHES = ("textlock", "whitelist")
_OPENCODE_ROW = opencode.ROWS[0].name
#: `--variants agents-hooks`: Claude Code's TodoWrite row with each fix, and with the stack,
#: Codex CLI's, OpenCode's and Gemini CLI's rows with each fix they take, beside the harness's
#: own loop with the same fixes
AGENTS_HOOKS: tuple[str, ...] = (
    _TODOWRITE_ROW,
    *(f"{_TODOWRITE_ROW}+{s}" for s in HOOK_SWITCHES),
    f"{_TODOWRITE_ROW}+whitelist+inject+gate",
    _TASKS_ROW,
    f"{_TASKS_ROW}+gate",
    _CODEX_ROW,
    *(f"{_CODEX_ROW}+{s}" for s in _CODEX_SWITCHES),
    _OPENCODE_ROW,
    *(f"{_OPENCODE_ROW}+{s}" for s in _OPENCODE_SWITCHES),
    _GEMINI_ROW,
    *(f"{_GEMINI_ROW}+{s}" for s in _GEMINI_SWITCHES),
    "L0-rewrite",
    "L1-textlock",
    "L2-whitelist",
    "L0-rewrite+inject",
    "L0-rewrite+gate",
    "L0-rewrite+heuristic",
    "L2-whitelist+inject+gate",
)


def hook_switches(product: CliProduct) -> tuple[str, ...]:
    """The hook switches a product's row takes (its hooks: Claude Code's settings, Codex CLI's
    hooks.json, Gemini CLI's settings; OpenCode's plugin)."""
    if product.cli == codex.CLI:
        return _CODEX_SWITCHES
    if product.cli == gemini_cli.CLI:
        return _GEMINI_SWITCHES
    if product.cli == opencode.CLI:
        return _OPENCODE_SWITCHES
    if product.cli != claude_code.CLI:
        return ()
    if product.dialect == claude_code.TODOWRITE:
        return tuple(HOOK_SWITCHES)
    return tuple(s for s in HOOK_SWITCHES if s not in _LIST_ONLY)


def with_hooks(product: CliProduct, switches: tuple[str, ...]) -> CliProduct:
    """The product with the fixes of the board's `switches` installed (in HOOK_SWITCHES'
    order); ValueError names a switch it does not take or a second gate."""
    wrong = [s for s in switches if s not in hook_switches(product)]
    if wrong:
        takes = ", ".join("+" + s for s in hook_switches(product)) or "none"
        raise ValueError(
            f"variant '{product.name}+{'+'.join(switches)}': {product.name} takes no "
            f"+{', +'.join(wrong)} (its hook switches: {takes})"
        )
    if {"gate", "heuristic"} <= set(switches):
        raise ValueError(
            f"variant '{product.name}+{'+'.join(switches)}': +gate (oracle) and +heuristic are "
            "two gates"
        )
    ordered = tuple(s for s in HOOK_SWITCHES if s in switches)
    if not ordered:
        return product
    return product.model_copy(
        update={
            "name": product.name + "".join(f"+{s}" for s in ordered),
            "title": f"{product.title} + hooks: {', '.join(ordered)}",
            "hooks": tuple(HOOK_SWITCHES[s] for s in ordered),
        }
    )
