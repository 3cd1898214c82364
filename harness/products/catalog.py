"""Every shipping product the board runs, found as the modules of `shipped/` (in their names'
order), and what the rest of the harness derives from them: the rows (`cli/...` variants), the
hook switches a row takes, the todo tools by kind, the file tools and shells, the folders the
products keep, their compaction words, and the readers of their session records."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

from harness.products import shipped
from harness.products.cli_runner import CliRunner
from harness.products.list_backend import ListBackend
from harness.products.product import (
    CliProduct,
    ContextTags,
    FileTools,
    ListDialect,
    Shell,
    TaskTools,
)
from harness.products.session_record import CallRecord, Event


class ProductModule(Protocol):
    """What a module of `shipped/` declares: its CLI's name, its rows, its record's parser and
    how the board runs it."""

    CLI: str
    ROWS: tuple[CliProduct, ...]
    RUNNER: CliRunner

    def recognises(self, record: dict[str, Any]) -> bool: ...
    def events(self, path: Path) -> Iterator[Event]: ...
    def final_text(self, record: dict[str, Any]) -> str | None: ...
    def calls(self, path: Path) -> list[CallRecord]: ...


_DECLARES = ("CLI", "ROWS", "RUNNER", "recognises", "events", "final_text", "calls")


def _shipped() -> tuple[ProductModule, ...]:
    """Every module of `shipped/`, by name; ImportError names one that lacks a declaration."""
    found = []
    for info in sorted(pkgutil.iter_modules(shipped.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{shipped.__name__}.{info.name}")
        missing = [name for name in _DECLARES if not hasattr(module, name)]
        if missing:
            raise ImportError(
                f"harness/products/shipped/{info.name}.py declares no {', '.join(missing)} "
                "(what harness/products/catalog.py ProductModule asks of a product)"
            )
        found.append(cast(ProductModule, module))
    return tuple(found)


#: the product modules, in their names' order (the order of the board's rows)
MODULES: tuple[ProductModule, ...] = _shipped()
PRODUCTS: dict[str, CliProduct] = {row.name: row for module in MODULES for row in module.ROWS}
#: `--variants agents`
AGENTS: tuple[str, ...] = tuple(PRODUCTS)
#: each product's full-list todo tool as its backend takes a call, by the design that
#: reproduces it (a module declares them as `LIST_BACKENDS`; a product whose todo tools are of
#: another kind has a design module of its own in harness/todo/)
LIST_BACKENDS: dict[str, ListBackend] = {
    backend.design: backend
    for module in MODULES
    for backend in cast(tuple[ListBackend, ...], getattr(module, "LIST_BACKENDS", ()))
}
#: how each CLI is run, by its name (a row's `cli`)
RUNNERS: dict[str, CliRunner] = {module.CLI: module.RUNNER for module in MODULES}

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
#: how the products show a hook's added context to the model, each once
CONTEXT_TAGS: tuple[ContextTags, ...] = tuple(
    dict.fromkeys(p.extension.context for p in PRODUCTS.values() if p.extension.context)
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
    #: one session record's tool calls, in the order made, each with its answer
    calls: Callable[[Path], list[CallRecord]]


#: in the order a line is tried (each product's lines are told apart by their own keys)
FORMATS: tuple[RecordFormat, ...] = tuple(
    RecordFormat(m.CLI, m.recognises, m.events, m.final_text, m.calls) for m in MODULES
)
#: each product's record format by its CLI name
RECORDS: dict[str, RecordFormat] = {f.name: f for f in FORMATS}

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
#: `--variants agents-hooks`: every row that takes hook switches, bare and with each (in the
#: catalog's order), a row that takes every fix (all but Claude Code's Tasks) also with the
#: stack, beside the harness's own loop with the same fixes
AGENTS_HOOKS: tuple[str, ...] = (
    *(
        name
        for row in PRODUCTS.values()
        if row.hook_switches
        for name in (
            row.name,
            *(f"{row.name}+{s}" for s in row.hook_switches),
            *(
                (f"{row.name}+whitelist+inject+gate",)
                if set(row.hook_switches) == set(HOOK_SWITCHES)
                else ()
            ),
        )
    ),
    "L0-rewrite",
    "L1-textlock",
    "L2-whitelist",
    "L0-rewrite+inject",
    "L0-rewrite+gate",
    "L0-rewrite+heuristic",
    "L2-whitelist+inject+gate",
)


def with_hooks(product: CliProduct, switches: tuple[str, ...]) -> CliProduct:
    """The product with the fixes of the board's `switches` installed (in HOOK_SWITCHES'
    order); ValueError names a switch it does not take or a second gate."""
    wrong = [s for s in switches if s not in product.hook_switches]
    if wrong:
        takes = ", ".join("+" + s for s in product.hook_switches) or "none"
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
