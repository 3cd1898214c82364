"""One CLI episode at a time on a machine: inspect's bridge serves the CLI on a fixed local
port and the CLI runs on the host, so episodes (of this run's workers, or of another run) take
turns. Within a process an asyncio lock; across processes a file lock, polled so that a waiting
episode never blocks the event loop the running one needs."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from weakref import WeakKeyDictionary

from filelock import FileLock, Timeout

#: one lock per event loop (an asyncio lock belongs to the loop that first waits on it)
_LOCAL: WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = WeakKeyDictionary()
#: how often a waiting episode tries the machine's lock again (seconds)
POLL = 0.2


def lock_path() -> Path:
    return Path(tempfile.gettempdir()) / "todo-bench-cli-agent.lock"


@asynccontextmanager
async def one_at_a_time() -> AsyncIterator[None]:
    """Hold the machine's CLI-episode lock for the block."""
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
            yield
        finally:
            lock.release()
