"""The products the hook program runs inside, and what differs between them: the full-list todo
tool the fixes read (its name, the argument holding the list, the field holding an item's
text), the harness design that applies an accepted list (its own rules and the identity rule),
the parser of the product's session record (to rebuild a session's list), the tools a final
message might spell out instead of calling, the project file the hooks are declared in, and
the hook wire it speaks (`protocol.Wire`: Claude Code's, which Codex CLI shares, or Gemini
CLI's own event names and answers).

OpenCode has plugins, not command hooks: its host's file is the plugin `plugin.py` generates,
which hands each event to the same hook program in Claude Code's wire (`kind` "plugin").

Everything else is shared: the rules are the harness's own (`listlock.py`, `inject.py`,
`stop_gate.py`), one implementation each, judged on Claude Code's event names whatever the product
calls them. The facts come from the product modules (`harness/products/`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from harness.hooks.protocol import CLAUDE_WIRE, Wire
from harness.products.catalog import PRODUCTS, RECORDS
from harness.products.product import CliProduct, Extension, ListDialect
from harness.products.session_record import CallRecord
from harness.products.shipped import claude_code

if TYPE_CHECKING:
    from harness.todo.base import TodoStore


@dataclass(frozen=True)
class Host:
    """One product as the hook program meets it (see the module docstring)."""

    #: the product's CLI name, as `--product` names it
    name: str
    dialect: ListDialect
    #: the harness design that reproduces the product's backend for this list
    store: Callable[[], type[TodoStore]]
    #: the product's session record, call by call (`transcript_path`)
    calls: Callable[[Path], list[CallRecord]]
    #: the project file the hooks go in, relative to the project folder
    config: str
    #: the product's tools a final message might spell out instead of calling
    tool_names: tuple[str, ...]
    #: what a user must do before the product runs the installed hooks ("" for nothing)
    notice: str = ""
    wire: Wire = CLAUDE_WIRE
    #: "hooks": `config` is a JSON hooks file merged with the user's; "plugin": `config` is a
    #: plugin module of our own (`plugin.py`), written whole, never over a file of the user's
    kind: Literal["hooks", "plugin"] = "hooks"

    @property
    def tool(self) -> str:
        return self.dialect.tool


def _names(row: CliProduct) -> tuple[str, ...]:
    files = row.file_tools
    own = () if files is None else (files.write, *files.edits, files.read)
    return (*row.todo_tools, *own, row.shell.tool)


#: the plugin module `hooks install --product opencode` writes in the product's plugin folder
PLUGIN_FILE = "todo-bench.js"


def _store(design: str) -> Callable[[], type[TodoStore]]:
    def load() -> type[TodoStore]:
        from harness.todo.registry import builtin

        return builtin(design)

    return load


def _wire(extension: Extension) -> Wire:
    if extension.events is None:
        return CLAUDE_WIRE
    return Wire(
        events=extension.events,
        per_second=extension.timeout_per_second,
        regex_matchers=extension.regex_matchers,
        flat_deny=extension.flat_deny,
        config_fields=extension.config_fields,
    )


def _host(row: CliProduct) -> Host:
    assert row.dialect is not None, f"{row.name} has no full-list todo tool"
    plugin = row.extension.kind == "plugin"
    return Host(
        name=row.cli,
        dialect=row.dialect,
        store=_store(row.design),
        # OpenCode's plugin sends no transcript: a session's list starts at its first event
        calls=RECORDS[row.cli].calls,
        config=row.extension.config + (PLUGIN_FILE if plugin else ""),
        tool_names=_names(row),
        notice=row.extension.notice,
        wire=_wire(row.extension),
        kind=row.extension.kind,
    )


#: each product's first row with a full-list todo tool, the list the fixes read (Claude Code's
#: Task tools are id-based, one item a call: the seed's L3 already)
HOSTS: dict[str, Host] = {}
for _row in PRODUCTS.values():
    if _row.dialect is not None and _row.cli not in HOSTS:
        HOSTS[_row.cli] = _host(_row)
#: the product `todo-bench hooks` and the hook program serve when none is named
DEFAULT = claude_code.CLI


def host(name: str) -> Host:
    """The host named `name`; ValueError lists the others."""
    try:
        return HOSTS[name]
    except KeyError:
        raise ValueError(f"unknown product {name!r}; choose from {', '.join(HOSTS)}") from None
