"""What a path that is not a regular file is, for one-line refusals: readers of user files
(scenarios, a project's Claude Code settings) take regular files only, since a fifo blocks a
read and a device never ends."""

from __future__ import annotations

import stat

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
