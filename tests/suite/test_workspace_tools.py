"""The workspace tools are declared once (`harness/suite/workspace_tools.py`): the episode's
tools, the scenario format's argument table and the read-only steps all come from the specs, and
no other module keeps a table of their names."""

from __future__ import annotations

import ast
import inspect as pyinspect
import types

from harness.episode.tools import workspace_tools
from harness.suite.scenario import TOOL_ARGS
from harness.suite.workspace import Workspace
from harness.suite.workspace_tools import READ_ONLY, SPECS, WORKSPACE_TOOLS
from tests.helpers import ROOT


class _AnyWorkspace:
    def __getattr__(self, name: str) -> object:
        return lambda *args, **kwargs: ""


def test_the_episode_offers_one_tool_per_spec_as_the_spec_declares_it() -> None:
    episode = types.SimpleNamespace(workspace=_AnyWorkspace())
    tools = workspace_tools(episode)  # type: ignore[arg-type]
    assert [t.name for t in tools] == [s.name for s in SPECS] == list(WORKSPACE_TOOLS)
    for tool, spec in zip(tools, SPECS, strict=True):
        assert tool.description == spec.description
        schema = tool.parameters
        assert list(schema.properties) == list(spec.params), spec.name
        assert {k: p.description for k, p in schema.properties.items()} == spec.params
        assert schema.required == list(spec.required), spec.name


def test_every_spec_documents_its_stub_and_is_run_by_the_workspace_method_of_its_name() -> None:
    for spec in SPECS:
        stub = list(pyinspect.signature(spec.signature).parameters)
        assert stub == list(spec.params), spec.name
        method = list(pyinspect.signature(getattr(Workspace, spec.name)).parameters)
        assert method == ["self", *stub], spec.name


def test_the_derived_tables_come_from_the_specs() -> None:
    assert {s.name: (s.required, s.optional) for s in SPECS} == TOOL_ARGS
    assert {"list_files", "read_file"} == READ_ONLY
    for spec in SPECS:
        assert set(spec.existing) <= set(spec.required), spec.name


def _name_tables(tree: ast.AST) -> list[int]:
    """Lines of dict, set, list or tuple literals naming two or more workspace tools."""
    names = set(WORKSPACE_TOOLS)
    lines = []
    for node in ast.walk(tree):
        items = node.keys if isinstance(node, ast.Dict) else getattr(node, "elts", None)
        if not isinstance(node, ast.Dict | ast.Set | ast.List | ast.Tuple) or items is None:
            continue
        named = {i.value for i in items if isinstance(i, ast.Constant) and i.value in names}
        if len(named) >= 2:
            lines.append(node.lineno)
    return lines


def _parse(source: str) -> ast.Module:
    """ast.parse, again once on CPython 3.11's "AST constructor recursion depth mismatch": a
    SystemError seen once in the full suite when another test's thread compiled at the same
    time (the counter is not thread-safe there), never for the file's own sake."""
    try:
        return ast.parse(source)
    except SystemError:
        return ast.parse(source)


def test_no_module_but_the_specs_keeps_a_table_of_workspace_tool_names() -> None:
    tables = {
        str(path.relative_to(ROOT)): lines
        for path in sorted((ROOT / "harness").rglob("*.py"))
        if path.name != "workspace_tools.py"
        if (lines := _name_tables(_parse(path.read_text(encoding="utf-8"))))
    }
    assert tables == {}


def test_the_table_check_finds_a_table() -> None:
    assert _name_tables(ast.parse('OPS = {"list_files": 1, "read_file": 2}')) == [1]
    assert _name_tables(ast.parse('READ = frozenset({"list_files", "read_file"})')) == [1]
    assert _name_tables(ast.parse('ONE = ("create_excel",)')) == []
