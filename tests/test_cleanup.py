"""What a process owes if it is cut short (harness/cleanup.py): listed while an episode runs,
cleared by a normal end or an ordinary error, kept through an interrupt and done then, each
action bounded and a failing one passed over."""

from __future__ import annotations

import threading
import time

import pytest

from harness import cleanup


def test_a_normal_end_or_an_error_clears_what_was_owed() -> None:
    done: list[bool] = []
    with cleanup.owed(done.append):
        pass
    with pytest.raises(ValueError), cleanup.owed(done.append):
        raise ValueError("an ordinary failure: the normal cleanup runs")
    cleanup.settle_now(final=True)
    assert done == []


def test_an_interrupt_keeps_it_owed_and_settling_does_it_each_time() -> None:
    done: list[bool] = []
    action = done.append
    with pytest.raises(KeyboardInterrupt), cleanup.owed(action):
        raise KeyboardInterrupt
    try:
        cleanup.settle_now(final=False)  # at the Ctrl-C: what runs outside the process
        cleanup.settle_now(final=True)  # as the process ends: the folders too
        assert done == [False, True]
    finally:
        cleanup._clear(id(action))


def test_a_failing_action_is_passed_over_and_a_stuck_one_does_not_hold_the_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cleanup, "SETTLE_WITHIN", 0.2)
    release = threading.Event()
    done: list[bool] = []

    def failing(final: bool) -> None:
        raise OSError("gone already")

    def stuck(final: bool) -> None:
        release.wait(5)

    actions = [failing, stuck, done.append]
    for action in actions:
        cleanup._OWED[id(action)] = action
    try:
        started = time.monotonic()
        cleanup.settle_now(final=True)
        assert time.monotonic() - started < 2.0  # the stuck one waits 5 s
        assert done == [True]
    finally:
        release.set()
        for action in actions:
            cleanup._clear(id(action))
