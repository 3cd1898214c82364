"""Build the docker sandbox's image of the CLI rows (`make agents-image`; docs/agents.md).

Stages build/agents-image/: scripts/agents/Dockerfile, the CLIs as `make agents` installed them
in .agents/ (each checked at its pinned version first), this checkout's wheel, its dependencies
(pyproject.toml) and constraints.txt; then `docker build` tags it as the image a run looks for
(`harness/agents/sandboxes.py`: todo-bench-agents:<version>).

    python scripts/agents_image.py [--base IMAGE]

`--base` (default python:3.11-slim-bookworm) is any Debian-like image with Python 3.11.5 or
newer as `python3`; node and rg are installed from its package manager where it lacks them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.agents.binaries import agents_dir, binary  # noqa: E402
from harness.agents.sandboxes import CODE_LABEL, IMAGE  # noqa: E402
from harness.errors import UsageError  # noqa: E402
from harness.products.catalog import PRODUCTS  # noqa: E402
from harness.results.provenance import code_hash  # noqa: E402

STAGE = ROOT / "build" / "agents-image"


def _link_or_copy(source: str, target: str) -> None:
    """Hard links where the stage shares the file system (the CLIs are ~700 MB)."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def stage(folder: Path) -> Path:
    """The build context in `folder`, made afresh."""
    for product in PRODUCTS.values():
        binary(product)  # at its pinned version, or a one-line error saying how to get it
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "python").mkdir(parents=True)
    shutil.copy2(ROOT / "scripts" / "agents" / "Dockerfile", folder / "Dockerfile")
    shutil.copytree(agents_dir(), folder / "agents", symlinks=True, copy_function=_link_or_copy)
    shutil.copy2(ROOT / "constraints.txt", folder / "python" / "constraints.txt")
    with (ROOT / "pyproject.toml").open("rb") as project:
        needs = tomllib.load(project)["project"]["dependencies"]
    (folder / "python" / "requirements.txt").write_text("\n".join(needs) + "\n", encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
         "-w", str(folder / "python"), str(ROOT)],
        check=True,
    )  # fmt: skip
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="python:3.11-slim-bookworm", help="the base image")
    parser.add_argument("--tag", default=IMAGE, help=f"the image's tag (default {IMAGE})")
    args = parser.parse_args(argv)
    if shutil.which("docker") is None:
        print("agents-image: docker is not on PATH", file=sys.stderr)
        return 2
    try:
        context = stage(STAGE)
    except UsageError as error:
        print(f"agents-image: {error}", file=sys.stderr)
        return 2
    label = f"{CODE_LABEL}={code_hash()}"
    command = ["docker", "build", "--build-arg", f"BASE={args.base}", "--label", label]
    built = subprocess.run([*command, "-t", args.tag, str(context)])
    if built.returncode == 0:
        print(f"agents-image: built {args.tag}")
    return built.returncode


if __name__ == "__main__":
    sys.exit(main())
