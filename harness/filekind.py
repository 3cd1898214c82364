"""What a path that is not a regular file is, for one-line refusals: readers of user files
(scenarios, a project's Claude Code settings) take regular files only, since a fifo blocks a
read and a device never ends."""

from __future__ import annotations

import os
import stat
from pathlib import Path

_FILE_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (fifo)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def not_regular(mode: int) -> str | None:
    """What a file of this mode is, if it is not a regular file (None: a regular file)."""
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _FILE_KINDS if test(mode)), "not a regular file")


def read_regular(path: Path | str, limit: int) -> tuple[str | None, bytes]:
    """(None, at most `limit` + 1 bytes) of a regular file, links followed; or (what the path is
    instead, no bytes). The type is checked before the open, which cannot block (a file swapped
    for a fifo since the stat), and again on the open file. OSError as the OS raises it."""
    kind = not_regular(os.stat(path).st_mode)
    if kind is not None:
        return kind, b""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as handle:
        kind = not_regular(os.fstat(handle.fileno()).st_mode)
        return kind, b"" if kind else handle.read(limit + 1)
