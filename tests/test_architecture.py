"""The folder tree is the architecture: each wing imports only the wings below it, no module
imports itself back through others, and a reader of results loads no agent loop."""

from __future__ import annotations

import ast
import graphlib
import subprocess
import sys

import pytest

from tests.helpers import ROOT

HARNESS = ROOT / "harness"
#: lowest first; a module may import its own wing and any wing listed before it
WINGS = (
    "ground",
    "products",
    "suite",
    "todo",
    "episode",
    "sessions",
    "hooks",
    "scoring",
    "models",
    "audit",
    "results",
    "stats",
    "publishing",
    "agents",
    "run",
    "commands",
)
GROUND = {
    "metrics", "matcher", "paths", "progress", "storage", "tokens", "versions", "errors", "_face",
    "_inspect_private", "PACKAGE_DIR", "filekind", "ports", "cleanup",
}  # fmt: skip
#: the one module that may import inspect's private modules
INSPECT_PRIVATE = "harness._inspect_private"


def _wing(module: str) -> str:
    parts = module.split(".")
    return "ground" if len(parts) == 1 or parts[1] in GROUND else parts[1]


def _is_module(name: str) -> bool:
    path = HARNESS.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _targets(node: ast.AST) -> list[str]:
    """The harness modules one import statement loads."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.startswith("harness")]
    if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("harness"):
        # `from harness.episode import prompts` loads the module harness.episode.prompts
        named = [f"{node.module}.{a.name}" for a in node.names]
        return [m for m in named if _is_module(m)] or [str(node.module)]
    return []


def _imports() -> dict[str, set[str]]:
    """Every harness module and the harness modules it imports at run time (at any depth in the
    file; `if TYPE_CHECKING:` blocks, where a package face names its modules, do not count)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(HARNESS.rglob("*.py")):
        parts = path.relative_to(HARNESS.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
            for inner in ast.walk(node)
        }
        graph[module] = {
            target
            for node in ast.walk(tree)
            if id(node) not in typing_only
            for target in _targets(node)
        }
    return graph


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """`module -> target` for every import of a wing above the module's own."""
    return [
        f"{module} -> {target}"
        for module, targets in graph.items()
        for target in sorted(targets)
        if WINGS.index(_wing(target)) > WINGS.index(_wing(module))
    ]


def test_every_module_is_in_a_known_wing() -> None:
    assert {_wing(module) for module in _imports()} <= set(WINGS)


def test_the_package_docstring_names_every_wing_and_ground_floor_module() -> None:
    """harness/__init__.py's map of the package stays true as wings and modules are added."""
    import harness

    doc = harness.__doc__ or ""
    floor = doc[doc.index("single modules (") : doc.index("):")]
    ground = {p.stem for p in HARNESS.glob("*.py") if p.stem != "__init__"}
    assert {m for m in ground if m not in floor} == set()
    assert [w for w in WINGS[1:] if f"`{w}`" not in doc] == []


def misnamed(modules: list[str], wings: set[str]) -> list[str]:
    """The modules (paths below harness/) whose name a grep would find meaning two things: a name
    two modules share, or a module named like a wing outside it (`agents/episode.py` beside
    `episode/`). The command line's groups are the exception: each is named by the command or
    the wing it fronts (`commands/run.py` is `todo-bench run`)."""
    stems = [module.rsplit("/", 1)[-1].removesuffix(".py") for module in modules]
    shared = {stem for stem in stems if stems.count(stem) > 1} - {"__init__", "__main__"}
    return [
        module
        for module, stem in zip(modules, stems, strict=True)
        if stem in shared or (stem in wings and not module.startswith("commands/"))
    ]


def test_each_module_name_means_one_thing() -> None:
    modules = [
        path.relative_to(HARNESS).as_posix()
        for path in sorted(HARNESS.rglob("*.py"))
        if "__pycache__" not in path.parts
    ]
    wings = {init.parent.name for init in HARNESS.rglob("__init__.py")} - {"harness"}
    assert misnamed(modules, wings) == []


def test_the_naming_rule_catches_a_shared_name_and_a_module_named_like_a_wing() -> None:
    modules = ["stats/power.py", "commands/power.py", "agents/episode.py", "commands/run.py"]
    assert misnamed(modules, {"episode", "run"}) == modules[:3]


def test_no_wing_imports_a_wing_above_it() -> None:
    assert upward_imports(_imports()) == []


def test_the_rule_catches_an_upward_import() -> None:
    graph = {"harness.episode.loop": {"harness.run.runner"}, "harness.run.runner": set()}
    assert upward_imports(graph) == ["harness.episode.loop -> harness.run.runner"]


def test_no_import_cycles() -> None:
    graph = {module: targets - {module} for module, targets in _imports().items()}
    graphlib.TopologicalSorter(graph).prepare()  # raises CycleError naming the cycle


@pytest.mark.parametrize(
    "module",
    ["harness.results", "harness.results.summary", "harness.episode.record", "harness.todo"],
)
def test_readers_load_no_loop_no_runner_no_provider(module: str) -> None:
    heavy = ("harness.episode.loop", "harness.run", "harness.models", "harness.scoring")
    code = f"import sys, {module}\nprint(sorted(m for m in sys.modules if m.startswith({heavy!r})))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def _long_modules(wing: str) -> dict[str, int]:
    """The modules of a wing over 300 lines, with their lengths."""
    return {
        path.name: lines
        for path in sorted((HARNESS / wing).glob("*.py"))
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > 300
    }


def test_the_run_wing_is_small_modules_around_a_short_run_benchmark() -> None:
    """No hub: each module of harness/run/ has one job (at most 300 lines), and run_benchmark
    reads as a sequence of steps (at most 50 lines)."""
    assert _long_modules("run") == {}
    tree = ast.parse((HARNESS / "run" / "benchmark.py").read_text(encoding="utf-8"))
    (function,) = [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name == "run_benchmark"
    ]
    assert function.end_lineno is not None
    assert function.end_lineno - function.lineno + 1 <= 50


def test_the_statistics_are_small_modules() -> None:
    """Each module of harness/stats/ has one job in at most 300 lines (the power planner, the
    sequential looks and the power study are each split by purpose to keep it)."""
    assert _long_modules("stats") == {}


def _private_or_mock(module: str) -> bool:
    """inspect's private modules (`inspect_ai._util`, `inspect_ai.model._model_call`), and
    unittest.mock, which production code does not use."""
    parts = module.split(".")
    if parts[0] == "inspect_ai":
        return any(part.startswith("_") for part in parts[1:])
    return module == "unittest.mock"


def forbidden_imports(sources: dict[str, str]) -> list[str]:
    """`module -> target` for each import (at any depth, type-checking blocks included) of a
    private inspect module or of unittest.mock, outside INSPECT_PRIVATE."""
    found = []
    for module, source in sources.items():
        if module == INSPECT_PRIVATE:
            continue
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                # `from inspect_ai.model import _assistant_internal` loads a private module too
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            else:
                continue
            found += [f"{module} -> {name}" for name in names if _private_or_mock(name)][:1]
    return found


def _sources() -> dict[str, str]:
    return {
        ".".join(path.relative_to(HARNESS.parent).with_suffix("").parts): path.read_text("utf-8")
        for path in sorted(HARNESS.rglob("*.py"))
    }


def test_only_one_module_reaches_inspects_private_apis_and_none_uses_mock() -> None:
    assert forbidden_imports(_sources()) == []
    assert INSPECT_PRIVATE in _sources()


def test_the_rule_catches_private_inspect_imports_and_mock() -> None:
    sources = {
        "harness.a": "from inspect_ai.model._model_call import ModelCall",
        "harness.b": "from inspect_ai.model import _assistant_internal as internal",
        "harness.c": "import inspect_ai._util.registry",
        "harness.d": "from unittest import mock",
        "harness.e": "def f():\n    from unittest.mock import patch",
        "harness.ok": "from inspect_ai.model import ModelCall\nimport unittest",
        INSPECT_PRIVATE: "from inspect_ai._util.registry import _registry",
    }
    assert forbidden_imports(sources) == [
        "harness.a -> inspect_ai.model._model_call",
        "harness.b -> inspect_ai.model._assistant_internal",
        "harness.c -> inspect_ai._util.registry",
        "harness.d -> unittest.mock",
        "harness.e -> unittest.mock",
    ]


def test_every_package_of_the_harness_is_in_the_wheel() -> None:
    """pyproject.toml lists the wheel's packages by hand: a new wing left out of it works in a
    checkout and fails installed (harness.sessions once did)."""
    import tomllib

    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"][
            "packages"
        ]
    )
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in HARNESS.rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert found - listed == set()
