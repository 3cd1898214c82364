"""The products' npm pins as npm's package.json: `make agents` writes it beside the committed
lock (npm reads no Python), so a product's package and version are declared once, in its module;
`make agents-lock` renews the lock from it."""

from __future__ import annotations

import json
from typing import Any

from harness.products.catalog import PRODUCTS

#: the lock's own name for the folder of CLIs (scripts/agents/package-lock.json)
NAME = "todo-bench-agents"


def manifest() -> dict[str, Any]:
    """package.json of the folder `make agents` installs the CLIs into."""
    pins = {p.package: p.version for p in PRODUCTS.values()}
    return {
        "name": NAME,
        "private": True,
        "description": "The shipping coding agents todo-bench runs, pinned in harness/products/"
        "shipped/; written by make agents into .agents/ (ignored), never committed.",
        "dependencies": dict(sorted(pins.items())),
    }


def main() -> None:
    """Print the manifest (make agents writes it to .agents/package.json)."""
    print(json.dumps(manifest(), indent=2))


if __name__ == "__main__":
    main()
