"""The hook's own time budget: an event that is not answered within it is answered anyway,
before the product's timeout (`settings.TIMEOUT`) would kill the hook and let the call through
unchecked and unrecorded.

The budget is a SIGALRM timer: its handler raises `OverBudget` between two Python instructions,
so pure-Python work (the identity rule's comparisons) stops on time; a single long C call would
finish first, which is why the gate also bounds the text it reads (`stop_gate.readable`).
"""

from __future__ import annotations

import os

#: typing's own flag would import typing: mypy reads this one the same way
TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal
    from types import FrameType

#: the environment variable that sets the budget in seconds (tests make it short)
HOOK_BUDGET = "TODO_BENCH_HOOK_BUDGET"
#: seconds: well inside the 30 s the installed settings give the product's timeout, start-up
#: and the answer's writing included
DEFAULT_BUDGET = 20.0


class OverBudget(BaseException):
    """The event's work did not finish within the budget (a BaseException: no `except
    Exception` on the way may swallow it)."""


def seconds() -> float:
    """The budget: `TODO_BENCH_HOOK_BUDGET` if it is a positive number, else the default."""
    try:
        value = float(os.environ.get(HOOK_BUDGET) or DEFAULT_BUDGET)
    except ValueError:
        return DEFAULT_BUDGET
    return value if 0 < value < 3600 else DEFAULT_BUDGET


class _Within:
    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.previous: signal._HANDLER = None

    def __enter__(self) -> None:
        import signal

        def expire(signum: int, frame: FrameType | None) -> None:
            raise OverBudget(f"not finished within its {self.limit:g} s budget")

        self.previous = signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, self.limit)

    def __exit__(self, *raised: object) -> None:
        import signal

        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.previous)


def within(limit: float) -> _Within:
    """Raise OverBudget in the block once `limit` seconds have passed. (A class, not
    contextlib's decorator, and signal imported on entry: the warm client reads `seconds()`
    from this module, and those imports would cost each hook call milliseconds.)"""
    return _Within(limit)
