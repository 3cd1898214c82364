"""The registry of todo designs: how a design is found by name, built in or a user's own.

A design is a `TodoStore` subclass with a `name` and its `tool_specs()` (see
`harness/todo/specs.py` and `examples/`). The seed's levels and the product designs are the
stores defined in `harness/todo/`'s modules, found there, and one per product's full-list tool
(`full_list.py`, built from the products' modules); a user's design is registered through the
Python entry-point group `todo_bench.designs`, or for one run with `--design module:Class`.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
from functools import cache
from importlib.metadata import entry_points

from harness.todo.base import TodoStore
from harness.todo.granular import GranularStore
from harness.todo.rewrite import RewriteStore
from harness.todo.textlock import TextLockStore
from harness.todo.whitelist import WhitelistStore

GROUP = "todo_bench.designs"
_EXTRA: dict[str, type[TodoStore]] = {}

#: the seed's levels by their short name (L4 is L3 with injection), for tests and benchmarks
LEVELS: dict[str, type[TodoStore]] = {
    "L0": RewriteStore,
    "L1": TextLockStore,
    "L2": WhitelistStore,
    "L3": GranularStore,
}


class DesignError(ValueError):
    """A design that cannot be loaded; the message says which and why in one line."""


def _check(obj: object, origin: str) -> type[TodoStore]:
    if not (isinstance(obj, type) and issubclass(obj, TodoStore)):
        raise DesignError(f"design {origin}: not a TodoStore subclass")
    if not obj.tool_specs():
        raise DesignError(f"design {origin}: offers no tools (define TOOLS or tool_specs())")
    if obj.name in ("", "base"):
        raise DesignError(f"design {origin}: give the class a `name`")
    return obj


def _shipped() -> dict[str, type[TodoStore]]:
    """The designs shipped in `harness/todo/`: the stores each module defines with a name of
    their own, and one for each product's full-list tool (`full_list.py`, from the products'
    modules: a new product with such a tool adds no design module)."""
    import harness.todo as package

    found: dict[str, type[TodoStore]] = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for obj in vars(module).values():
            if (
                isinstance(obj, type)
                and issubclass(obj, TodoStore)
                and obj.__module__ == module.__name__
                and obj.name not in ("", "base")
            ):
                found[obj.name] = _check(obj, f"{obj.name} ({module.__name__})")
    from harness.todo.full_list import STORES

    for name, design in STORES.items():
        found[name] = _check(
            design, f"{name} ({design.BACKEND.product}, harness/todo/full_list.py)"
        )
    return found


@cache
def _registered() -> dict[str, type[TodoStore]]:
    """The shipped designs (by name), then those the installed packages register."""
    found = dict(sorted(_shipped().items()))
    for point in entry_points(group=GROUP):
        try:
            design = _check(point.load(), f"{point.name} ({point.value})")
        except DesignError:
            raise
        except Exception as error:  # a broken third-party design names itself and stops
            raise DesignError(f"design {point.name} ({point.value}): {error}") from error
        if found.get(point.name, design) is not design:
            raise DesignError(
                f"design {point.name} ({point.value}): the name of a design todo-bench ships "
                f"({found[point.name].__module__}); register it under another name"
            )
        found[point.name] = design
    return found


def load(spec: str) -> str:
    """Register a design for this process from `module:Class`; returns its name."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise DesignError(f"--design expects module:Class, got '{spec}'")
    if os.getcwd() not in sys.path:
        sys.path.insert(
            0, os.getcwd()
        )  # a design in the user's own project, as inspect finds tasks
    try:
        design = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as error:
        raise DesignError(f"--design {spec}: {error}") from error
    design = _check(design, spec)
    _EXTRA[design.name] = design
    return design.name


def builtin(name: str) -> type[TodoStore]:
    """A design shipped in `harness/todo/`, by its name alone, without reading the entry points
    (the hook program's path: scanning the installed packages' metadata costs about 40 ms a
    call): a product's full-list design by its name, else its module is the name with `_` for
    `-`, the class the store in it of that name (tests/todo/test_products.py holds every product's
    design to it)."""
    from harness.todo.full_list import STORES

    if name in STORES:
        return STORES[name]
    try:
        module = importlib.import_module(f"harness.todo.{name.replace('-', '_')}")
    except ImportError as error:
        raise DesignError(f"design {name}: not shipped in harness/todo/ ({error})") from error
    for obj in vars(module).values():
        if isinstance(obj, type) and issubclass(obj, TodoStore) and obj.name == name:
            return obj
    raise DesignError(f"design {name}: no store of that name in {module.__name__}")


def designs() -> dict[str, type[TodoStore]]:
    """Every design by name: shipped, registered through the entry points, then loaded for
    this run."""
    return {**_registered(), **_EXTRA}
