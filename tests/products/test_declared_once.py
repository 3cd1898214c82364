"""A product fact (a tool name, a package, a folder, a record path, a compaction's words) is
written once, in its module under harness/products/: a second copy anywhere else in the harness
is the drift the products wing exists to end."""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path

from harness.products.catalog import PRODUCTS
from harness.products.npm import manifest
from harness.products.product import CliProduct
from harness.products.table import BEGIN, END, products_table
from tests.helpers import ROOT

HARNESS = ROOT / "harness"
PRODUCTS_WING = HARNESS / "products"


def facts(products: list[CliProduct]) -> dict[str, str]:
    """Every fact a string in the code could copy, and what it is."""
    out: dict[str, str] = {}
    for p in products:
        out.update({tool: f"{p.name}'s todo tool" for tool in p.todo_tools})
        out[p.package] = f"{p.name}'s npm package"
        out[p.binary] = f"{p.name}'s binary"
        out[p.shell.tool] = f"{p.name}'s shell"
        out.update({folder: f"{p.name}'s own folder" for folder in p.own_folders})
        out[p.extension.config] = f"{p.name}'s extension config"
        out.update({words: f"{p.name}'s compaction words" for words in p.summary_request})
        if p.compact_command:
            out[p.compact_command] = f"{p.name}'s compaction command"
        if p.extension.context:
            tags = (p.extension.context.open, p.extension.context.close)
            out.update({tag: f"{p.name}'s context tag" for tag in tags})
        if p.file_tools:
            names = (p.file_tools.write, p.file_tools.read, *p.file_tools.edits)
            out.update({n: f"{p.name}'s file tool" for n in names if n[0].isupper()})
    return out


def _docstrings(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def strings(source: str) -> Iterator[tuple[int, str]]:
    """Every string constant of a module's code (docstrings, its prose, left out)."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            yield node.lineno, node.value


#: strings equal to a fact by chance, and why: the simulated agent's reworded first verbs
COINCIDENCES = {
    ("harness/models/sim/recall.py", "Write"),
    ("harness/models/sim/recall.py", "Read"),
    ("harness/models/sim/wording.py", "Write"),
    ("harness/models/sim/wording.py", "Read"),
}


def copies(path: Path, known: dict[str, str], name: str) -> list[str]:
    """The places in one module (`name`, as the checkout names it) that write a fact again."""
    out = []
    for line, text in strings(path.read_text(encoding="utf-8")):
        for fact, what in known.items():
            pathlike = "/" in fact or " " in fact
            if (text == fact or (pathlike and fact in text)) and (name, fact) not in COINCIDENCES:
                out.append(f"{name}:{line}: {what} {fact!r}")
    return out


def test_no_product_fact_is_written_outside_the_products_wing() -> None:
    known = facts(list(PRODUCTS.values()))
    found = [
        copy
        for path in sorted(HARNESS.rglob("*.py"))
        if PRODUCTS_WING not in path.parents
        for copy in copies(path, known, str(path.relative_to(ROOT)))
    ]
    assert found == []


def test_the_check_finds_a_tool_name_and_a_record_path_written_again(tmp_path: Path) -> None:
    known = facts(list(PRODUCTS.values()))
    module = tmp_path / "m.py"
    module.write_text(
        '"""Prose may name TodoWrite."""\n'
        'TOOL = "TodoWrite"\n'
        'RECORD = f"{HOME}/.claude/settings.json"\n'
        'OTHER = "todo"\n',
        encoding="utf-8",
    )
    found = [c.split(": ", 1)[1] for c in copies(module, known, "m.py")]
    assert found == [
        "cli/claude-code-todowrite's todo tool 'TodoWrite'",
        "cli/claude-code-tasks's own folder '.claude/'",
        "cli/claude-code-tasks's extension config '.claude/settings.json'",
    ]


def test_the_docs_table_of_products_is_the_one_the_code_renders() -> None:
    docs = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    assert BEGIN in docs and END in docs
    held = docs.split(BEGIN, 1)[1].split(END, 1)[0].strip()
    assert held == products_table(), "docs/agents.md: rerun python -m harness.products.table"


def test_the_npm_lock_pins_exactly_the_declared_versions() -> None:
    """make agents writes package.json from the product modules; the committed lock must lock
    what they declare, package for package (else `make agents-lock`)."""
    lock = json.loads((ROOT / "scripts" / "agents" / "package-lock.json").read_text("utf-8"))
    declared = {p.package: p.version for p in PRODUCTS.values()}
    assert manifest()["dependencies"] == declared
    assert lock["name"] == manifest()["name"]
    assert lock["packages"][""]["dependencies"] == declared, "run make agents-lock"
    for package, version in declared.items():
        assert lock["packages"][f"node_modules/{package}"]["version"] == version
