"""The full-size hostile submissions of issue 56, measured: each refused in one line, exit 2,
with the verifying process's max RSS under 300 MB and nothing left in its scratch folder
(heavy: building the 1 GiB bomb and the million-member zip takes about a minute)."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.helpers import ROOT

pytestmark = pytest.mark.heavy

GiB = 1 << 30
#: the bound this test holds verify to, in KiB (ru_maxrss's unit on Linux)
MAX_RSS_KIB = 300 * 1024
#: runs verify as a child and prints the child's max RSS (KiB) on its last line
MEASURE = (
    "import resource, subprocess, sys; "
    "done = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
    "print(done.returncode); print(done.stdout + done.stderr, end=''); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def measured(submission: Path, scratch: Path) -> tuple[int, list[str], int]:
    """verify's exit code, its lines and its max RSS (KiB), its TMPDIR `scratch`."""
    scratch.mkdir(exist_ok=True)
    command = [sys.executable, "-c", MEASURE, sys.executable, "-m", "harness.commands", "verify"]
    done = subprocess.run(
        [*command, str(submission)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(scratch)},
        timeout=600,
        check=True,
    )
    code, *lines, rss = done.stdout.splitlines()
    return int(code), lines, int(rss)


def folder_with(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / "sub"
    (folder / "logs").mkdir(parents=True)
    (folder / "submission.json").write_text(json.dumps({}))
    return folder / name


def zip_bomb(path: Path) -> Path:
    """1 GiB of zeros in one member (about 1 MB on disk)."""
    block = b"\0" * (1 << 20)
    with (
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive,
        archive.open("sub/summary.json", "w", force_zip64=True) as member,
    ):
        for _ in range(GiB // len(block)):
            member.write(block)
    return path


def million_members(path: Path, count: int = 1_000_000) -> Path:
    """A zip64 archive of `count` empty stored members, written by hand (zipfile takes
    minutes for a million)."""
    local, central = bytearray(), bytearray()
    for index in range(count):
        name = f"m{index}".encode()
        offset = len(local)
        local += struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 0, 0, 0, 0, 0, 0, len(name), 0)
        local += name
        central += struct.pack(
            "<4s6H3L5H2L",
            b"PK\x01\x02",
            20,
            20,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            len(name),
            0,
            0,
            0,
            0,
            0,
            offset,
        )
        central += name
    at = len(local)
    end64_at = at + len(central)
    end64 = struct.pack(
        "<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, len(central), at
    )
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, end64_at, 1)
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    path.write_bytes(bytes(local) + bytes(central) + end64 + locator + end)
    return path


def test_each_bomb_is_refused_in_one_line_within_300_mb(tmp_path: Path) -> None:
    cases: dict[str, tuple[Path, str]] = {}
    cases["zip bomb"] = (zip_bomb(tmp_path / "bomb.zip"), "expands to more than")
    big = folder_with(tmp_path / "big", "summary.json")
    with big.open("wb") as handle:
        handle.truncate(GiB)  # sparse: a 1 GiB file that costs no disk
    cases["1 GiB summary.json"] = (big.parent, "more than 536870912 bytes")
    cases["million members"] = (million_members(tmp_path / "many.zip"), "1000000 archive members")
    zero = folder_with(tmp_path / "zero", "logs/zero.eval")
    zero.symlink_to("/dev/zero")
    cases["/dev/zero"] = (zero.parent.parent, "a symlink, not a regular file")
    fifo = folder_with(tmp_path / "fifo", "logs/stuck.eval")
    os.mkfifo(fifo)
    cases["FIFO"] = (fifo.parent.parent, "a FIFO, not a regular file")
    loop = folder_with(tmp_path / "loop", "logs/a.eval")
    loop.symlink_to(loop.parent / "b.eval")
    (loop.parent / "b.eval").symlink_to(loop)
    cases["link loop"] = (loop.parent.parent, "a symlink, not a regular file")
    for name, (submission, says) in cases.items():
        scratch = tmp_path / f"scratch-{name.replace('/', '')}"
        code, lines, rss = measured(submission, scratch)
        print(f"{name}: exit {code}, max RSS {rss / 1024:.0f} MB: {lines}")
        assert code == 2 and len(lines) == 1 and says in lines[0], (name, lines)
        assert rss < MAX_RSS_KIB, (name, rss)
        assert list(scratch.iterdir()) == [], name
