"""`todo-bench run --until-decided` on the simulated agent: a large effect stops early, an A/A
comparison never declares a difference and stops at its budget, the cost budget stops a run,
a rerun continues an interrupted run to the same bytes, and bad input is one line, exit 2."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.commands import main
from harness.results.summary import read_summary

BASE = ["run", "--until-decided", "--display", "none", "--epochs", "2"]
#: an agent that leaves out 60% of the items of each rewrite: L0 stores the drops, L2 refuses them
EFFECT = [
    *BASE,
    "--variants",
    "L0-rewrite,L2-whitelist",
    "--scenarios",
    "rename_chain,user_cancels",
]
EFFECT += ["-M", "drop=0.6"]
#: Claude Code's TodoWrite on the simulated agent is L0 under another name: no difference
SAME = [*BASE, "--variants", "L0-rewrite,cc-todowrite", "--scenarios", "user_adds_csv,excel_export"]


@pytest.mark.slow
def test_a_large_effect_is_decided_before_the_last_batch(tmp_path: Path) -> None:
    out = tmp_path / "effect"
    command = [*EFFECT, "--epochs", "3", "--metrics", "dropped_todos", "--out", str(out)]
    assert main(command) == 0
    record = read_summary(out / "summary.json").sequential
    assert record is not None and record.stopped == "decided"
    assert len(record.looks) < record.planned_looks == 5
    (decision,) = record.decisions
    assert decision.verdict == "better" and decision.decided_at == len(record.looks)
    assert "Sequential run stopped: decided." in (out / "leaderboard.md").read_text()


@pytest.mark.slow
def test_batches_of_one_epoch_decide_from_the_second_look(tmp_path: Path) -> None:
    """docs/statistics.md's recommended design: one epoch per batch. The first look has no
    within-scenario variance and cannot decide; a large effect is decided at a later one."""
    out = tmp_path / "one"
    command = [*EFFECT, "--epochs", "1", "--metrics", "dropped_todos", "--out", str(out)]
    assert main(command) == 0
    record = read_summary(out / "summary.json").sequential
    assert record is not None and record.stopped == "decided"
    assert all(d.verdict == "undecided" for d in record.looks[0].decisions)
    (decision,) = record.decisions
    assert decision.verdict == "better" and decision.decided_at is not None
    assert 2 <= decision.decided_at <= record.planned_looks


@pytest.mark.slow
def test_an_a_a_comparison_runs_to_its_budget_and_a_rerun_continues_to_the_same_bytes(
    tmp_path: Path,
) -> None:
    out = tmp_path / "same"
    command = [*SAME, "--max-episodes", "17", "--out", str(out)]  # two batches of 8
    assert main(command) == 0
    summary = read_summary(out / "summary.json")
    record = summary.sequential
    assert record is not None and record.stopped == "max episodes"
    assert record.planned_looks == len(record.looks) == 2
    assert all(d.verdict == "undecided" for e in record.looks for d in e.decisions)
    assert summary.epochs == 4 and {e.epoch for e in summary.variants[0].per_episode} == {
        1,
        2,
        3,
        4,
    }
    first = (out / "summary.json").read_bytes()
    # an interruption in the second batch: its folder and the run's summary are gone
    shutil.rmtree(out / "batch-02")
    (out / "summary.json").unlink()
    assert main(command) == 0
    assert (out / "summary.json").read_bytes() == first


@pytest.mark.slow
def test_the_cost_budget_stops_the_run_before_a_batch_it_cannot_pay(tmp_path: Path) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text("sim/: {input: 50.0, output: 50.0}\n", encoding="utf-8")
    out = tmp_path / "cost"
    args = [*SAME, "--scenarios", "excel_export", "--prices", str(prices), "--max-cost", "2"]
    assert main([*args, "--out", str(out)]) == 0
    record = read_summary(out / "summary.json").sequential
    assert record is not None and record.stopped == "max cost" and len(record.looks) == 1
    spent = record.looks[0].cost_usd
    assert spent is not None and spent <= 2 < 2 * spent
    assert "--max-cost 2 " in record.reason


@pytest.mark.slow
def test_a_futility_stop_ends_a_comparison_with_no_difference_and_is_recorded(
    tmp_path: Path,
) -> None:
    """An A/A pair (no difference can exist) with Pocock-type spending and a futility stop at
    MDEs the run could not show: both comparisons are futile at the first look and the run
    stops there, decided; the record names the spending function and the stop, each look's
    decision its conditional power; without the flags the same run goes to its budget."""
    out = tmp_path / "futile"
    flags = ["--spending", "pocock", "--futility", "0.2"]
    flags += ["--mde", "task_success=0.1,dropped_todos=0.2"]
    assert main([*SAME, *flags, "--out", str(out)]) == 0
    summary = read_summary(out / "summary.json")
    record = summary.sequential
    assert record is not None and record.stopped == "decided" and len(record.looks) == 1
    assert [d.verdict for d in record.decisions] == ["futile", "futile"]
    assert all(d.conditional_power is not None for d in record.decisions)
    assert record.spending == "pocock" and record.futility is not None
    assert record.futility.mde == {"task_success": 0.1, "dropped_todos": 0.2}
    assert "Pocock-type" in record.method and "futility" in record.method
    assert "| futile " in (out / "leaderboard.md").read_text()


@pytest.mark.parametrize(
    ("args", "refusal"),
    [
        (["run", "--max-episodes", "10"], "--max-episodes: only with --until-decided"),
        ([*EFFECT, "--epochs", "1", "--max-batches", "1"], "needs two epochs per scenario in"),
        ([*EFFECT, "--epochs", "1", "--max-episodes", "5"], "needs two epochs per scenario in"),
        ([*EFFECT, "--pairs", "L0-rewrite:L9"], "variant 'L9' is not in the run"),
        ([*EFFECT, "--pairs", "L0-rewrite"], "--pairs expects BASE:NEW"),
        ([*EFFECT, "--metrics", "gave_up"], "'gave_up' is not a per-episode metric with"),
        ([*EFFECT, "--max-episodes", "7"], "--max-episodes 7 is less than one batch (8 episodes"),
        ([*EFFECT, "--max-cost", "5"], "--max-cost: sim/sloppy has no price"),
        ([*EFFECT, "--variants", "L0-rewrite"], "give two or more"),
        ([*EFFECT, "--tolerance", "/nonexistent.yaml"], "--tolerance /nonexistent.yaml: cannot"),
        ([*EFFECT, "--futility", "0.1"], "--futility needs --mde: the smallest difference"),
        ([*EFFECT, "--mde", "task_success=0.1"], "--mde is read by --futility: give both"),
        ([*EFFECT, "--futility", "0.1", "--mde", "gave_up=1"], "'gave_up' is not a watched"),
        ([*EFFECT, "--futility", "0.1", "--mde", "task_success=x"], "expected METRIC=NUMBER"),
        ([*EFFECT, "--futility", "0.1", "--mde", "task_success=-1"], "must be a number above 0"),
        (
            [*EFFECT, "--futility", "0.1", "--mde", "task_success=0.1"],
            "--mde gives no difference for dropped_todos",
        ),
        (["run", "--futility", "0.1"], "--futility: only with --until-decided"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    args: list[str], refusal: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main([*args, "--out", str(tmp_path / "refused")]) == 2
    err = capsys.readouterr().err
    assert refusal in err and err.count("\n") == 1, err
    assert not (tmp_path / "refused").exists()
