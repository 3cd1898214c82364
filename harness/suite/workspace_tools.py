"""The workspace tools, declared once: each tool's name, its description (the model reads it),
its parameters (a typed stub whose signature inspect turns into the JSON schema, and a doc per
parameter) and whether it only looks. Everything else derives from `SPECS`: the episode's tools
(`harness/episode/tools.py`), the scenario format's table of arguments (`TOOL_ARGS`), the names a
tool call written as text is recognised by, and the steps `scenarios check` may leave out.

Here, in the scenario format's wing, because scenarios name these tools and every wing that
uses them (episode, scoring, run) may import it; it knows no runtime. The description and
parameter texts are part of every prompt: changing one changes committed results.
"""

from __future__ import annotations

import inspect as pyinspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class WorkspaceToolSpec:
    """One workspace tool; its implementation is the `Workspace` method of the same name."""

    name: str
    description: str
    #: each parameter's doc, in the stub's order
    params: dict[str, str]
    #: a typed stub: its signature (names, types, defaults) is the tool's schema
    signature: Callable[..., Awaitable[str]]
    #: it only looks, so a step calling it cannot change an outcome
    read_only: bool = False
    #: the parameters naming a file that must already exist (the call reads or moves it)
    existing: tuple[str, ...] = ()
    #: parameters of which a call gives one or the other
    one_of: tuple[str, ...] = ()

    @property
    def brief(self) -> str:
        """`name {a, b | c, d}`: the tool and its parameters, alternatives joined by `|`."""
        names = [p for p in self.params if p not in self.one_of[1:]]
        shown = [" | ".join(self.one_of) if p in self.one_of else p for p in names]
        return f"{self.name} {{{', '.join(shown)}}}"

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(p.name for p in self._parameters() if p.default is p.empty)

    @property
    def optional(self) -> tuple[str, ...]:
        return tuple(p.name for p in self._parameters() if p.default is not p.empty)

    def _parameters(self) -> list[pyinspect.Parameter]:
        return list(pyinspect.signature(self.signature).parameters.values())


async def _list_files() -> str:
    raise NotImplementedError


async def _read_file(path: str) -> str:
    raise NotImplementedError


async def _write_file(path: str, content: str) -> str:
    raise NotImplementedError


async def _rename_file(src: str, dst: str) -> str:
    raise NotImplementedError


async def _delete_file(path: str) -> str:
    raise NotImplementedError


async def _create_excel(
    path: str,
    rows: list[list[str]] | None = None,
    from_workspace_files: bool = False,
    sheet: str = "Sheet1",
) -> str:
    raise NotImplementedError


async def _write_csv(path: str, rows: list[list[str]]) -> str:
    raise NotImplementedError


#: in the order the episode offers them
SPECS: tuple[WorkspaceToolSpec, ...] = (
    WorkspaceToolSpec(
        "list_files",
        "List every file in the workspace (relative paths).",
        {},
        _list_files,
        read_only=True,
    ),
    WorkspaceToolSpec(
        "read_file",
        "Read a text file (an .xlsx file is shown as rows).",
        {"path": "Workspace-relative path."},
        _read_file,
        read_only=True,
        existing=("path",),
    ),
    WorkspaceToolSpec(
        "write_file",
        "Create or overwrite a text file.",
        {"path": "Workspace-relative path.", "content": "Full file content."},
        _write_file,
    ),
    WorkspaceToolSpec(
        "rename_file",
        "Rename or move a file.",
        {"src": "Current path.", "dst": "New path."},
        _rename_file,
        existing=("src",),
    ),
    WorkspaceToolSpec(
        "delete_file",
        "Delete a file.",
        {"path": "Workspace-relative path."},
        _delete_file,
        existing=("path",),
    ),
    WorkspaceToolSpec(
        "create_excel",
        (
            "Write a real .xlsx sheet: give `rows` (list of rows, each a list of cells), or set "
            "`from_workspace_files` to true to write a header 'file' and one row per workspace "
            "file. An existing workbook keeps its other sheets."
        ),
        {
            "path": "Output .xlsx path.",
            "rows": "Rows to write, each a list of cells.",
            "from_workspace_files": "Write one row per workspace file instead of `rows`.",
            "sheet": "Sheet name.",
        },
        _create_excel,
        one_of=("rows", "from_workspace_files"),
    ),
    WorkspaceToolSpec(
        "write_csv",
        "Write rows (list of lists of cells) to a CSV file.",
        {"path": "Output .csv path.", "rows": "Rows, each a list of cells."},
        _write_csv,
    ),
)
BY_NAME: dict[str, WorkspaceToolSpec] = {spec.name: spec for spec in SPECS}
WORKSPACE_TOOLS: tuple[str, ...] = tuple(BY_NAME)
#: steps that only look, so leaving one out cannot change the outcome
READ_ONLY: frozenset[str] = frozenset(spec.name for spec in SPECS if spec.read_only)
