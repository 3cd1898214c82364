"""A product is its module under harness/products/shipped/ and the design that reproduces its
todo backend: the rest of the harness reaches it through the catalog. Each other module that
imports a product's module is listed here with the reason; a new one fails (the fifth product,
Gemini CLI, has none)."""

from __future__ import annotations

import ast

from harness.products.catalog import MODULES, PRODUCTS
from tests.helpers import ROOT

HARNESS = ROOT / "harness"

#: modules outside the products wing that import a product's module and are not its design,
#: each with why the fact is not the catalog's
EXCEPTIONS: dict[str, dict[str, str]] = {
    "claude_code": {
        "harness/hooks/hosts.py": "Claude Code is the hook program's default product",
        "harness/todo/dialects.py": "the simulated agent reads Tasks' answers (TaskCreate's words)",
    },
    "codex": {
        "harness/agents/hooked.py": "Codex reads hooks from its CODEX_HOME and asks a trust flag",
    },
    "opencode": {
        "harness/agents/hooked.py": "OpenCode's plugin folder gets the SDK it would fetch",
        "harness/sessions/readers.py": "OpenCode's exports are JSON files, not JSONL lines",
    },
    "gemini_cli": {},
}


def _importers(name: str) -> set[str]:
    """The harness files (relative paths) outside harness/products/ that import the product
    module `name`, at any depth."""
    module = f"harness.products.shipped.{name}"
    found = set()
    for path in sorted(HARNESS.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith("harness/products/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                names = {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
            elif isinstance(node, ast.Import):
                names = {a.name for a in node.names}
            else:
                continue
            if module in names:
                found.add(relative)
    return found


def _designs(cli: str) -> set[str]:
    """The files of the designs a product's rows replay their todo calls through."""
    return {
        f"harness/todo/{row.design.replace('-', '_')}.py"
        for row in PRODUCTS.values()
        if row.cli == cli
    }


def test_each_product_is_its_module_and_its_design() -> None:
    for module in MODULES:
        name = module.__name__.rsplit(".", 1)[1]  # type: ignore[attr-defined]
        assert name in EXCEPTIONS, f"{name}: a product the footprint table does not list"
        outside = _importers(name) - _designs(module.CLI)
        assert outside == set(EXCEPTIONS[name]), name


def test_the_reader_finds_an_import() -> None:
    """The check reads both import forms: it can fail."""
    assert "harness/hooks/hosts.py" in _importers("claude_code")
    assert "harness/agents/hooked.py" in _importers("codex")
