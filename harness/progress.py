"""One progress display for a whole run, fed by every worker process.

The agent loop calls `episode_done()` when an episode ends and `model_replied()` when the model
answers; in a worker process that puts a tick on a queue the parent drains, in-process it
advances the display directly. On a terminal the display is a rich bar (episodes done / total,
elapsed, ETA); elsewhere (CI logs) it is one line per tenth of the run. While the model answers
nothing the display says so every `NOTE_EVERY` seconds, and past a run's silence limit it stops
the run (a server that accepts and never answers would otherwise hold it for many timeouts).
"""

from __future__ import annotations

import _thread
import sys
import threading
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
)

_sink: Callable[[int], None] | None = None
#: when this process last reported a model reply (replies are reported at most once a second)
_last_reply = 0.0
#: seconds of silence between two "still waiting" lines
NOTE_EVERY = 60.0


def episode_done() -> None:
    """Called by the agent loop once per finished episode (a no-op when nothing listens)."""
    if _sink is not None:
        _sink(1)


def model_replied() -> None:
    """Called by the agent loop after each model reply: a sign of life, sent as a tick of 0
    episodes at most once a second (the simulated agent answers thousands of times)."""
    global _last_reply
    now = time.monotonic()
    if _sink is not None and now - _last_reply >= 1.0:
        _last_reply = now
        _sink(0)


def attach(sink: Callable[[int], None] | None) -> None:
    global _sink
    _sink = sink


def attach_queue(queue: Queue[int]) -> None:
    """Worker-process initializer: ticks go to the parent's queue."""
    attach(queue.put)


class RunProgress:
    """The run's display; `advance(n)` from the parent, or attached in-process."""

    def __init__(
        self,
        total: int,
        done: int = 0,
        *,
        enabled: bool = True,
        silence_limit: float | None = None,
        waiting_for: str = "the model",
    ) -> None:
        self.total, self.done, self.enabled = total, done, enabled
        self.started = time.monotonic()
        #: the last sign of life: a model reply. A finished episode is none: one that ended on a
        #: timed-out request would restart the count, and a server that never answers would
        #: hold the run for one --timeout per episode and retry, never reaching the limit
        self.heard = self.started
        self.silence_limit, self.waiting_for = silence_limit, waiting_for
        #: set when the silence limit stopped the run (with the line that says so)
        self.silenced: str | None = None
        self._closed = threading.Event()
        # the pace is measured from this process's first finished episode: start-up (imports,
        # scenario checks, worker spawn) and episodes a resumed run had done are no pace
        self._first: tuple[float, int] | None = None
        self._tty = sys.stderr.isatty()
        self._next_line = 0
        self._bar: Progress | None = None
        self._task = TaskID(0)
        self._status = ""  # e.g. the shards' state under --executor ray

    def __enter__(self) -> RunProgress:
        if self.enabled and self._tty:
            self._bar = Progress(
                TextColumn("todo-bench"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("episodes"),
                TimeElapsedColumn(),
                TextColumn("{task.fields[eta]}"),
                TextColumn("{task.fields[status]}"),
                console=Console(stderr=True),
            )
            self._bar.start()
            self._task = self._bar.add_task(
                "run", total=self.total, completed=self.done, eta=self.eta(), status=""
            )
        elif self.enabled and self.done:
            print(f"todo-bench: resuming, {self.done} episodes already done", file=sys.stderr)
        threading.Thread(target=self._watch, daemon=True).start()
        return self

    def _say(self, line: str) -> None:
        if self._bar is not None:
            self._bar.console.print(line, markup=False, highlight=False)
        else:
            print(line, file=sys.stderr, flush=True)

    def _watch(self) -> None:
        """Say when the model has been silent for a while; past the limit, stop the run (the
        main thread gets KeyboardInterrupt, the driver reads `silenced`)."""
        noted = 0
        limit = self.silence_limit
        every = min(NOTE_EVERY, limit / 3) if limit else NOTE_EVERY
        while not self._closed.wait(min(1.0, every / 4)):
            quiet = time.monotonic() - self.heard
            if quiet < every:
                noted = 0
                continue
            if limit is not None and quiet >= limit:
                self.silenced = (
                    f"{self.waiting_for} answered nothing for {quiet:.0f} s "
                    f"(--silence-limit {limit:.0f}); the run was stopped"
                )
                _thread.interrupt_main()
                return
            if quiet // every > noted:
                noted = int(quiet // every)
                until = f"; the run stops at {limit:.0f} s of silence" if limit else ""
                self._say(f"todo-bench: no reply from {self.waiting_for} for {quiet:.0f} s{until}")

    def status(self, text: str) -> None:
        """A short note shown beside the count (printed with the next line without a tty)."""
        self._status = text
        if self.enabled and self._bar is not None:
            self._bar.update(self._task, status=text)

    def advance(self, n: int = 1) -> None:
        """`n` more episodes done (negative: a retried shard's episodes counted again; 0: a
        model reply, the only sign of life)."""
        if n == 0:
            self.heard = time.monotonic()
            return
        if self._first is None:
            self._first = (time.monotonic(), self.done + n)
        self.done += n
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(
                self._task,
                completed=min(self.done, self.total),
                eta=self.eta(),
                status=self._status,
            )
        elif self.done >= self._next_line or self.done == self.total:
            self._next_line = self.done + max(1, self.total // 10)
            print(self.line(), file=sys.stderr, flush=True)

    def eta(self) -> str:
        """'ETA n s' from the pace since this process's first finished episode; empty until a
        second one has finished (before that there is no pace to speak of)."""
        if self._first is None or self.done >= self.total:
            return ""
        since, at = self._first
        pace = (self.done - at) / (time.monotonic() - since) if self.done > at else 0.0
        return f"ETA {(self.total - self.done) / pace:.0f} s" if pace > 0 else ""

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        eta = self.eta()
        # an errored episode that inspect's eval-set retries is counted once per attempt
        return (
            f"todo-bench: {min(self.done, self.total)}/{self.total} episodes, {elapsed:.0f} s"
            + (f", {eta}" if eta else "")
            + (f"; {self._status}" if self._status else "")
        )

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._closed.set()
        if self._bar is not None:
            self._bar.stop()
