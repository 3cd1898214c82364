"""What the docker sandbox's image runs imports without the sqlite3 library: its Python (the
host's interpreter on a minimal Debian, scripts/agents_base_debian.sh) has no libsqlite3, and
a module-level `import sqlite3` in the products wing once failed the image's build, which
skipped every docker-sandbox test."""

from __future__ import annotations

import subprocess
import sys

import pytest

#: the image's build links the CLIs (harness.agents.binaries), its hooks run todo-bench-hook,
#: its helper tools todo-bench-tool
IMAGE_IMPORTS = ("harness.agents.binaries", "harness.hooks.entry", "harness.agents.toolcmd")

BLOCK = "import sys; sys.modules['sqlite3'] = None; sys.modules['_sqlite3'] = None; import {}"


@pytest.mark.parametrize("module", IMAGE_IMPORTS)
def test_the_image_s_commands_import_without_sqlite3(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", BLOCK.format(module)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_check_fires_on_a_module_that_needs_sqlite3() -> None:
    done = subprocess.run(
        [sys.executable, "-c", BLOCK.format("sqlite3")], capture_output=True, text=True
    )
    assert done.returncode != 0 and "import of sqlite3 halted" in done.stderr
