"""One CLI episode at a time on a machine: inspect's bridge serves the CLI on fixed local
ports (`bridge_ports`) and the CLI runs on the host, so episodes (of this run's workers, or of
another run) take turns. Within a process an asyncio lock; across processes a file lock, polled
so that a waiting episode never blocks the event loop the running one needs."""

from __future__ import annotations

import asyncio
import errno
import socket
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from weakref import WeakKeyDictionary

from filelock import FileLock, Timeout

from harness.ports import who_holds

#: one lock per event loop (an asyncio lock belongs to the loop that first waits on it)
_LOCAL: WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = WeakKeyDictionary()
#: how often a waiting episode tries the machine's lock again (seconds)
POLL = 0.2
#: the local port inspect's bridge serves the CLI's model traffic on (inspect-swe's)
BRIDGE_PORT = 3001


def bridge_ports(runs: int) -> range:
    """The ports of a sample's first `runs` CLI runs: inspect-swe serves each run of a sample
    (a resumed session after a user turn is one more) on the next port, 3001, 3002, ..."""
    return range(BRIDGE_PORT, BRIDGE_PORT + runs)


class BridgePortTaken(RuntimeError):
    """Another process holds the bridge's port while this machine's CLI lock is free."""


def check_port_free(port: int = BRIDGE_PORT) -> None:
    """With the machine's CLI lock held, nothing of ours should hold the bridge's port: if
    something does, it is a model proxy an interrupted or killed run left behind, or another
    program; say so, instead of the bridge's `address already in use` deep in a traceback."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # as the bridge's server binds: a closed connection's TIME_WAIT is no holder
    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        probe.bind(("127.0.0.1", port))
    except OSError as error:
        if error.errno != errno.EADDRINUSE:
            raise
        raise BridgePortTaken(
            f"127.0.0.1:{port}, the port inspect's agent bridge serves the CLI on, is taken "
            f"{who_holds(port)} (a model proxy an interrupted run left, or another program); "
            "a CLI episode cannot start until it is free"
        ) from None
    finally:
        probe.close()


def lock_path() -> Path:
    return Path(tempfile.gettempdir()) / "todo-bench-cli-agent.lock"


async def _ports_freed(ports: range, wait: float = 5.0) -> None:
    """The bridge's ports, free within `wait` seconds (the previous episode's proxies may still
    be exiting), else BridgePortTaken."""
    for _ in range(int(wait / POLL)):
        try:
            for port in ports:
                check_port_free(port)
            return
        except BridgePortTaken:
            await asyncio.sleep(POLL)
    for port in ports:
        check_port_free(port)


@asynccontextmanager
async def one_at_a_time(runs: int = 1) -> AsyncIterator[None]:
    """Hold the machine's CLI-episode lock for the block, in which the CLI runs at most `runs`
    times (their bridge ports checked free first)."""
    local = _LOCAL.setdefault(asyncio.get_running_loop(), asyncio.Lock())
    async with local:
        lock = FileLock(str(lock_path()))
        while True:
            try:
                lock.acquire(timeout=0)
                break
            except Timeout:
                await asyncio.sleep(POLL)
        try:
            await _ports_freed(bridge_ports(runs))
            yield
        finally:
            lock.release()
