"""Each CLI episode on this host its own block of ports for inspect's bridge, so that episodes
(of one run's samples, of other runs, of other users) run side by side. inspect-swe serves a
sample's CLI runs on consecutive local ports it counts in the sample store
(`_inspect_private.bridge_port_key`: each run on one more than the last); an episode takes the
first free block of WIDTH ports from BRIDGE_PORT and starts that count at the block. A block is
held by a file lock (machine-wide, released by the kernel if its process dies); a block whose
ports another process holds (a proxy still exiting, another program) is passed over."""

from __future__ import annotations

import asyncio
import errno
import socket
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from filelock import FileLock, Timeout
from inspect_ai.util import store

from harness._inspect_private import bridge_port_key
from harness.ports import who_holds

#: the first port of the first block (inspect-swe's own default count starts there)
BRIDGE_PORT = 3001
#: ports per block: an episode needing more CLI runs takes consecutive blocks
WIDTH = 16
#: blocks on this host: at most this many CLI episodes at once (ports 3001-5048)
BLOCKS = 128
#: how often an episode waiting for a block tries again (seconds)
POLL = 0.2

#: the blocks this process holds (a second lock of one process on one file is not refused
#: everywhere, so this process's own episodes are kept apart here)
_HELD: set[int] = set()


class BridgePortTaken(RuntimeError):
    """Another program holds the bridge's ports on every block this host has free."""


def port_free(port: int) -> bool:
    """Whether the bridge could bind `port` now (a closed connection's TIME_WAIT is no
    holder: the bridge's server binds with SO_REUSEADDR too)."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        probe.bind(("127.0.0.1", port))
    except OSError as error:
        if error.errno != errno.EADDRINUSE:
            raise
        return False
    finally:
        probe.close()
    return True


def check_port_free(port: int = BRIDGE_PORT) -> None:
    """BridgePortTaken naming the process that holds `port` (pid and command), if one does."""
    if not port_free(port):
        raise BridgePortTaken(
            f"127.0.0.1:{port}, a port inspect's agent bridge serves a CLI on, is taken "
            f"{who_holds(port)} (a model proxy an interrupted run left, or another program); "
            "a CLI episode cannot start until it is free"
        )


def block_ports(first: int, count: int = 1) -> range:
    """The ports of `count` blocks from block `first`."""
    start = BRIDGE_PORT + first * WIDTH
    return range(start, start + count * WIDTH)


def lock_path(block: int) -> Path:
    return Path(tempfile.gettempdir()) / f"todo-bench-bridge-{block_ports(block).start}.lock"


def _lock(first: int, count: int) -> list[FileLock] | None:
    """The file locks of blocks first..first+count-1, all taken now, else None (none kept)."""
    locks: list[FileLock] = []
    for block in range(first, first + count):
        lock = FileLock(str(lock_path(block)))
        try:
            if block in _HELD:
                raise Timeout(str(lock_path(block)))
            lock.acquire(timeout=0)
        except Timeout:
            for held in locks:
                held.release()
            return None
        locks.append(lock)
    return locks


@asynccontextmanager
async def bridge_block(runs: int) -> AsyncIterator[range]:
    """Hold free bridge ports for an episode of at most `runs` CLI runs (one block, or
    consecutive ones past WIDTH runs) for the block, and yield them. While every block is in use
    by other episodes it waits (polling: the event loop runs on); when every block it could
    take has a port another program holds, BridgePortTaken names the first holder."""
    count = max(1, -(-runs // WIDTH))
    if count > BLOCKS:
        raise BridgePortTaken(f"an episode of {runs} CLI runs needs over {BLOCKS * WIDTH} ports")
    while True:
        busy: int | None = None
        for first in range(BLOCKS - count + 1):
            locks = _lock(first, count)
            if locks is None:
                continue
            ports = block_ports(first, count)
            taken = next((p for p in ports[:runs] if not port_free(p)), None)
            if taken is None:
                blocks = set(range(first, first + count))
                _HELD.update(blocks)
                try:
                    yield ports
                finally:
                    _HELD.difference_update(blocks)
                    for lock in locks:
                        lock.release()
                return
            for lock in locks:
                lock.release()
            busy = taken if busy is None else busy
        if busy is not None:
            check_port_free(busy)  # names its holder (if it has gone meanwhile: try again)
        await asyncio.sleep(POLL)


@asynccontextmanager
async def sample_bridge_ports(agent: str, runs: int) -> AsyncIterator[range]:
    """`bridge_block(runs)` for the current sample, whose count of inspect-swe's `agent`
    (`claude_code`, `codex_cli`, ...) then starts at the block: the CLI runs the sample starts
    inside are served on the block's ports."""
    async with bridge_block(runs) as ports:
        store().set(bridge_port_key(agent), ports.start - 1)
        yield ports
