"""One overall progress display for a run, fed by every worker process."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from harness.commands import main
from harness.progress import RunProgress


def test_the_line_display_prints_each_tenth_and_the_end(capsys: pytest.CaptureFixture[str]) -> None:
    with RunProgress(20) as display:
        for _ in range(20):
            display.advance()
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("todo-bench: 1/20 episodes")
    assert lines[-1].startswith("todo-bench: 20/20 episodes")
    assert len(lines) == 11  # the first, then every second episode


def test_a_disabled_display_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    with RunProgress(3, enabled=False) as display:
        display.advance(3)
    assert capsys.readouterr().err == "" and display.done == 3


@pytest.mark.slow
def test_every_worker_feeds_the_one_display_and_a_resume_counts_what_is_done(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["run", "--variants", "L0-rewrite,L3-granular", "--scenarios", "excel_export"]
    args += ["--epochs", "2", "--workers", "2", "--out", str(tmp_path / "run")]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "todo-bench: 4/4 episodes" in err  # two workers, two variants each of 2 episodes
    assert "inspect's display" not in err
    assert main(args) == 0
    assert "resuming, 4 episodes already done" in capsys.readouterr().err


def test_no_eta_until_there_is_a_pace_and_start_up_is_no_pace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import time

    clock = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    bar = RunProgress(100, done=40, enabled=False)  # a resumed run: 40 done before
    clock[0] += 600  # ten minutes of start-up
    assert bar.eta() == "" and "ETA" not in bar.line()
    bar.advance()  # the first episode of this process: still no pace
    assert bar.eta() == ""
    clock[0] += 10
    bar.advance()  # one episode in 10 s; 58 left
    assert bar.eta() == "ETA 580 s" and bar.line().endswith("ETA 580 s")


def test_silence_past_the_limit_stops_the_run_and_replies_keep_it_going(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the "still waiting" line comes at a third of the limit: a limit of 3 s leaves the watcher
    # 2 s to say it before it stops the run (1 s was too short on a loaded machine)
    display = RunProgress(4, enabled=True, silence_limit=3.0, waiting_for="m")
    with pytest.raises(KeyboardInterrupt), display:
        for _ in range(100):  # 10 s, interrupted by the watcher (between two short sleeps)
            time.sleep(0.1)
    assert display.silenced is not None and "m answered nothing for" in display.silenced
    assert "no reply from m for" in capsys.readouterr().err

    alive = RunProgress(4, enabled=True, silence_limit=1.5, waiting_for="m")
    with alive:
        for _ in range(15):  # a reply every 0.2 s for 3 s: twice the limit
            time.sleep(0.2)
            alive.advance(0)
    assert alive.silenced is None and alive.done == 0


def test_episodes_that_end_without_a_reply_do_not_restart_the_silence() -> None:
    # a request timed out (--timeout shorter than the limit): its episode ends with an error
    # and the next one waits again; 691d616 counted each end as life and never stopped
    display = RunProgress(100, enabled=False, silence_limit=1.5, waiting_for="m")
    with pytest.raises(KeyboardInterrupt), display:
        for _ in range(50):  # an episode ends every 0.1 s for 5 s, and no reply
            time.sleep(0.1)
            display.advance(1)
    assert display.silenced is not None and "m answered nothing for" in display.silenced
