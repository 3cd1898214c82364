"""What a process owes the machine if it is cut short. A CLI episode in the local sandbox starts
processes outside this process's tree (inspect's sandbox-tools server is a daemon; the model
proxy and the CLI hang from it) and temporary folders; its normal end (inspect's sample cleanup,
the solver's own) removes them, but a Ctrl-C, the wind-down's kill or the driver's end of a
worker does not reach it. While an episode runs, what it owes is listed here (`owed`); the
process's ways of ending abruptly call `settle_now()`, which does every listed action at once,
each bounded, and never raises: at a Ctrl-C with `final=False` (stop what runs outside this
process: the wind-down that follows may still use the folders, and may not finish), and again
as the process ends with `final=True` (what the wind-down started again, and the folders)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator

#: seconds `settle_now` waits for all the listed actions together
SETTLE_WITHIN = 5.0

_OWED: dict[int, Callable[[bool], None]] = {}
_GUARD = threading.Lock()


@contextlib.contextmanager
def owed(action: Callable[[bool], None]) -> Iterator[None]:
    """`action(final)` listed while the block runs. A normal end, or an ordinary exception,
    clears it (the normal cleanup follows); a KeyboardInterrupt, a cancellation or an exit
    leaves it listed: the process is ending, and `settle_now` does it."""
    key = id(action)
    with _GUARD:
        _OWED[key] = action
    try:
        yield
    except Exception:
        _clear(key)
        raise
    else:
        _clear(key)


def _clear(key: int) -> None:
    with _GUARD:
        _OWED.pop(key, None)


def settle_now(final: bool) -> None:
    """Do every listed action now, side by side, waiting at most SETTLE_WITHIN seconds in all;
    an action that fails is passed over (the process is ending: nothing can be reported)."""
    with _GUARD:
        actions = list(_OWED.values())
    threads = [
        threading.Thread(target=_quietly, args=(action, final), daemon=True) for action in actions
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + SETTLE_WITHIN
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))


def _quietly(action: Callable[[bool], None], final: bool) -> None:
    with contextlib.suppress(Exception):  # best effort at the end of the process
        action(final)
