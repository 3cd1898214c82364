"""Who holds a local TCP port: the listening socket's inode from /proc/net/tcp and tcp6, then the
process whose open files include that socket (/proc/PID/fd). Linux only; a process of another
user cannot be seen (its fds are not readable), and then the answer says so."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

_PROC = Path("/proc")
_LISTEN = "0A"


@dataclass(frozen=True)
class Holder:
    pid: int
    command: str

    def line(self) -> str:
        """`pid 123 (python -m http.server 3001)`: the pid and its command, bounded."""
        return f"pid {self.pid} ({self.command[:200]})"


def _socket_inodes(port: int) -> set[str]:
    """The inodes of sockets listening on `port`, any address."""
    inodes: set[str] = set()
    for table in ("tcp", "tcp6"):
        try:
            lines = (_PROC / "net" / table).read_text(encoding="ascii").splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            listening = len(fields) > 9 and fields[3] == _LISTEN and fields[9] != "0"
            if listening and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(fields[9])
    return inodes


def holders(port: int) -> list[Holder] | None:
    """The processes holding a listening socket on `port` that this user can see; [] when the
    port is held by a process hidden from us; None when nothing listens on it."""
    inodes = {f"socket:[{inode}]" for inode in _socket_inodes(port)}
    if not inodes:
        return None
    found = []
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        if _links(entry / "fd") & inodes:
            found.append(Holder(int(entry.name), _command(entry)))
    return found


def _links(fds: Path) -> set[str]:
    """What a process's open files are; empty when it is gone or another user's."""
    try:
        names = os.listdir(fds)
    except OSError:
        return set()
    links = set()
    for name in names:
        try:
            links.add(os.readlink(fds / name))
        except OSError:  # closed since the listing (the listing's own fd, at least)
            continue
    return links


def _command(entry: Path) -> str:
    try:
        raw = (entry / "cmdline").read_bytes()
    except OSError:
        return "?"
    words = [w.decode("utf-8", "replace") for w in raw.split(b"\0") if w]
    return " ".join(words) or "?"


def who_holds(port: int) -> str:
    """One clause naming what holds `port` and how to end that process alone."""
    found = holders(port)
    if not found:
        return (
            "by a process this user cannot see (another user's); ask its owner, or find it "
            f"with `sudo ss -ltnp 'sport = :{port}'`"
        )
    pids = " ".join(str(h.pid) for h in found)
    return f"by {', '.join(h.line() for h in found)}; to end that process alone: `kill {pids}`"
