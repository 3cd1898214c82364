"""Package faces that import on first use: `from harness.results import Summary` works, while
`import harness.results.summary` does not load the rest of the wing (the CLI starts in a fraction
of a second because of it)."""

from __future__ import annotations

import importlib
from collections.abc import Callable


def lazy(package: str, exports: dict[str, str]) -> Callable[[str], object]:
    """A module `__getattr__` that resolves each exported name from its module on first use."""

    def __getattr__(name: str) -> object:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(exports[name]), name)

    return __getattr__
