"""A CLI that stops asking the model without exiting is stopped and named; one that waits on a
slow model, or finishes, is not."""

from __future__ import annotations

import time

import anyio
import pytest

from harness.agents.watchdog import (
    DEFAULT_IDLE,
    IDLE_SECONDS,
    CliHung,
    StopCli,
    Watchdog,
    idle_limit,
)


def test_an_idle_cli_is_stopped_with_the_cause_named() -> None:
    watchdog = Watchdog("claude-code", limit=0.2)

    async def hangs() -> str:
        await anyio.sleep(30)
        return "never"

    with pytest.raises(
        CliHung, match="claude-code made no model request and did not exit for 0.2 s"
    ):
        anyio.run(watchdog.run, hangs)


def test_time_the_model_spends_answering_is_not_idle() -> None:
    watchdog = Watchdog("codex", limit=0.2)

    async def slow_model(*args: object) -> str:
        await anyio.sleep(0.6)  # three limits inside one answer
        return "answer"

    async def cli() -> str:
        answer: str = await watchdog.wrap(slow_model)()
        return answer

    assert anyio.run(watchdog.run, cli) == "answer"


def test_a_cli_that_finishes_returns_its_result_at_once() -> None:
    async def quick() -> int:
        return 7

    assert anyio.run(Watchdog("opencode", limit=5).run, quick) == 7


@pytest.mark.parametrize(
    ("named", "limit"),
    [("30", 30.0), ("", DEFAULT_IDLE), ("x", DEFAULT_IDLE), ("-1", DEFAULT_IDLE)],
)
def test_the_limit_comes_from_the_environment_or_the_default(
    named: str, limit: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(IDLE_SECONDS, named)
    assert idle_limit() == limit


def test_a_stop_the_episode_raises_in_the_filter_ends_the_cli_at_once() -> None:
    """The turn budget spent: the filter's StopCli cancels the CLI's run (no waiting for the
    CLI to give up on its own) and is what `run` raises."""
    watchdog = Watchdog("claude-code", limit=30)

    async def spent(*args: object) -> None:
        raise StopCli("the scenario's 2 turns are spent")

    async def cli() -> str:
        try:
            await watchdog.wrap(spent)()
        except StopCli:
            await anyio.sleep(30)  # a CLI would retry the failed request
        return "never"

    started = time.monotonic()
    with pytest.raises(StopCli, match="2 turns are spent"):
        anyio.run(watchdog.run, cli)
    assert time.monotonic() - started < 5


def test_a_bridge_port_someone_holds_is_named_before_the_cli_starts() -> None:
    import socket

    from harness.agents.bridge_ports import BridgePortTaken, check_port_free

    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    port = holder.getsockname()[1]
    try:
        with pytest.raises(BridgePortTaken, match=f"127.0.0.1:{port}.*interrupted run"):
            check_port_free(port)
    finally:
        holder.close()
    check_port_free(port)  # free again: no error


def test_the_bridge_s_warning_for_a_stop_is_dropped_and_any_other_failure_still_shows(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The bridge logs an exception from its filter with a traceback before forwarding it to
    the CLI; a StopCli (a user turn, the budget) is the episode's own doing."""
    import logging

    from harness._inspect_private import BRIDGE_SERVICE_LOGGER
    from harness.agents.cli_episode import UserSpeaks

    Watchdog("claude-code")
    Watchdog("claude-code")  # installed once
    logger = logging.getLogger(BRIDGE_SERVICE_LOGGER)
    assert len(logger.filters) == 1
    for raised in (UserSpeaks("hello"), StopCli("budget"), RuntimeError("a real bug")):
        try:
            raise raised
        except Exception:
            logger.warning("Agent bridge model request failed: %s", raised, exc_info=True)
    assert [r.getMessage() for r in caplog.records] == [
        "Agent bridge model request failed: a real bug"
    ]
