"""A hung CLI ends its episode, not the run: the episode is watched through the bridge's
filter, and when the CLI neither asks the model anything nor exits for `idle_limit()` seconds
it is stopped and the episode ends with `CliHung`, naming the cause. Time the model spends
answering is not idle time, so a slow model is never taken for a hung CLI."""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio

from harness._inspect_private import quiet_bridge_warning

#: the environment variable that sets the idle limit, in seconds
IDLE_SECONDS = "TODO_BENCH_CLI_IDLE_SECONDS"
#: the default: a CLI's own start-up and a workspace command take seconds, not minutes
DEFAULT_IDLE = 600.0

T = TypeVar("T")
Filter = Callable[..., Awaitable[Any]]


class CliHung(RuntimeError):
    """The CLI made no model request and did not exit within the idle limit."""


class StopCli(RuntimeError):
    """Raised by the episode in the bridge's filter to end the CLI's run at once (the turn
    budget is spent): the watchdog stops the CLI and `run` raises it. Answering the CLI with
    an error instead would have it retry with back-off for minutes."""


def idle_limit() -> float:
    """The idle limit: `TODO_BENCH_CLI_IDLE_SECONDS`, else 600 s."""
    named = os.environ.get(IDLE_SECONDS, "").strip()
    try:
        seconds = float(named) if named else DEFAULT_IDLE
    except ValueError:
        seconds = DEFAULT_IDLE
    return seconds if seconds > 0 else DEFAULT_IDLE


class Watchdog:
    """Watches one CLI episode: `wrap` the bridge's filter, then `run` the agent under it."""

    def __init__(self, what: str, limit: float | None = None) -> None:
        self.what = what
        self.limit = idle_limit() if limit is None else limit
        self._last = time.monotonic()
        self._busy = 0
        self._scope: anyio.CancelScope | None = None
        self._stop: StopCli | None = None
        quiet_bridge_warning(StopCli)  # a stop is the episode's own doing, not a failure

    def wrap(self, filter: Filter) -> Filter:
        """The filter, timing the CLI's requests: while one is answered the CLI is not idle."""

        async def watched(*args: Any) -> Any:
            self._busy += 1
            try:
                return await filter(*args)
            except StopCli as stop:
                self._stop = stop
                if self._scope is not None:
                    self._scope.cancel()
                raise
            finally:
                self._busy -= 1
                self._last = time.monotonic()

        return watched

    def idle(self) -> float:
        """Seconds since the CLI last heard from the model (0 while it waits for an answer)."""
        return 0.0 if self._busy else time.monotonic() - self._last

    async def run(self, work: Callable[[], Awaitable[T]]) -> T:
        """`work()`, stopped with CliHung when the CLI idles past the limit, or with the
        filter's StopCli when the episode ends it (cancelling it stops the CLI's process)."""
        done: list[T] = []
        hung = False
        self._stop = None  # a stop ends one run; the next run of the session starts afresh
        self._last = time.monotonic()  # waiting for the machine's CLI lock is not idling

        async def main(scope: anyio.CancelScope) -> None:
            done.append(await work())
            scope.cancel()

        async with anyio.create_task_group() as group:
            self._scope = group.cancel_scope
            group.start_soon(main, group.cancel_scope)
            while not done and self._stop is None:
                await anyio.sleep(min(1.0, self.limit / 10))
                if self.idle() > self.limit:
                    hung = True
                    group.cancel_scope.cancel()
                    break
        self._scope = None
        if self._stop is not None:
            raise self._stop
        if hung:
            raise CliHung(
                f"{self.what} made no model request and did not exit for {self.limit:g} s "
                f"(hung; {IDLE_SECONDS} sets the limit): the episode is ended"
            )
        return done[0]
