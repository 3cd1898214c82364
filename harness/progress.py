"""One progress display for a whole run, fed by every worker process.

The agent loop calls `episode_done()` when an episode ends; in a worker process that puts a
tick on a queue the parent drains, in-process it advances the display directly. On a terminal
the display is a rich bar (episodes done / total, elapsed, ETA); elsewhere (CI logs) it is one
line per tenth of the run.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from multiprocessing.queues import Queue
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

_sink: Callable[[int], None] | None = None


def episode_done() -> None:
    """Called by the agent loop once per finished episode (a no-op when nothing listens)."""
    if _sink is not None:
        _sink(1)


def attach(sink: Callable[[int], None] | None) -> None:
    global _sink
    _sink = sink


def attach_queue(queue: Queue[int]) -> None:
    """Worker-process initializer: ticks go to the parent's queue."""
    attach(queue.put)


class RunProgress:
    """The run's display; `advance(n)` from the parent, or attached in-process."""

    def __init__(self, total: int, done: int = 0, *, enabled: bool = True) -> None:
        self.total, self.done, self.enabled = total, done, enabled
        self.started = time.monotonic()
        self._tty = sys.stderr.isatty()
        self._next_line = 0
        self._bar: Progress | None = None
        self._task = TaskID(0)

    def __enter__(self) -> RunProgress:
        if self.enabled and self._tty:
            self._bar = Progress(
                TextColumn("todo-bench"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("episodes"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
            )
            self._bar.start()
            self._task = self._bar.add_task("run", total=self.total, completed=self.done)
        elif self.enabled and self.done:
            print(f"todo-bench: resuming, {self.done} episodes already done", file=sys.stderr)
        return self

    def advance(self, n: int = 1) -> None:
        self.done += n
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done)
        elif self.done >= self._next_line or self.done == self.total:
            self._next_line = self.done + max(1, self.total // 10)
            print(self.line(), file=sys.stderr, flush=True)

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = (self.total - self.done) / rate if rate > 0 else float("nan")
        eta = f"ETA {left:.0f} s" if left == left else "ETA ?"
        return f"todo-bench: {self.done}/{self.total} episodes, {elapsed:.0f} s, {eta}"

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._bar is not None:
            self._bar.stop()
