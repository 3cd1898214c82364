"""End-to-end runs of `todo-bench run` on the simulated agent: orderings and determinism.

The orderings are asserted on the committed default run (`results/latest`, what `make bench`
makes), which is first checked to come from this code and these scenarios: rerunning the whole
suite here would only repeat it, since the same code and inputs give a byte-identical summary
(asserted below on smaller runs, and `make regress` reruns the suite itself)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.commands import main
from harness.results.provenance import scenario_hash
from harness.results.summary import Summary, read_summary
from harness.suite.scenario import SCENARIO_DIR, load_scenarios, select
from harness.versions import TASK_VERSION

pytestmark = pytest.mark.slow


LATEST = Path("results/latest/summary.json")


@pytest.fixture(scope="module")
def default_run() -> Summary:
    summary = read_summary(LATEST)
    selected = select(load_scenarios(SCENARIO_DIR), None)
    # made by today's code by meaning (versions, spot re-run):
    # tests/results/test_committed_results.py
    assert summary.provenance.task_version == TASK_VERSION, "results/latest is stale: make bench"
    assert summary.provenance.scenario_hash == scenario_hash(selected), "scenarios changed"
    return summary


def by_variant(summary: Summary) -> dict[str, dict[str, float]]:
    return {v.variant: {m: s.mean for m, s in v.metrics.items()} for v in summary.variants}


def test_default_suite_orderings_arise(default_run: Summary) -> None:
    summary = default_run
    assert summary.model == "sim/sloppy" and summary.simulated and summary.epochs == 3
    means = by_variant(summary)
    assert list(means) == [
        "L0-rewrite",
        "L1-textlock",
        "L2-whitelist",
        "L3-granular",
        "L4-inject",
        "L4-inject+gate",
    ]
    assert means["L0-rewrite"]["dropped_todos"] > 0
    assert means["L0-rewrite"]["mutated_text"] > 0
    for variant in list(means)[1:]:
        assert means[variant]["mutated_text"] == 0, variant
    for variant in list(means)[2:]:
        assert means[variant]["dropped_todos"] == 0, variant
    assert means["L4-inject"]["false_completion"] > 0
    assert means["L4-inject+gate"]["false_completion"] < means["L4-inject"]["false_completion"]
    assert means["L4-inject+gate"]["blocked_completions"] > 0
    assert means["L4-inject+gate"]["turns"] > means["L4-inject"]["turns"]


def test_compaction_is_where_injection_pays(default_run: Summary) -> None:
    per_variant: dict[str, dict[str, float]] = {}
    for variant in default_run.variants:
        episodes = [e for e in variant.per_episode if e.scenario == "compaction"]
        per_variant[variant.variant] = {
            m: sum(e.values[m] for e in episodes) for m in ("rejected_updates", "false_completion")
        }
    l3, l4 = per_variant["L3-granular"], per_variant["L4-inject"]
    # after compaction an L3 agent updates by ids it no longer knows; injection shows them again.
    # (False completions on this one scenario are premature "done" claims, too few per seed to
    # order the two designs, so they are not asserted.)
    assert l4["rejected_updates"] < l3["rejected_updates"]


def small_run(out: Path, seed: int, fresh: bool = False) -> bytes:
    args = [
        "run",
        "--out",
        str(out),
        "--display",
        "none",
        "--seed",
        str(seed),
        "--epochs",
        "2",
        "--variants",
        "L0-rewrite,L3-granular",
        "--scenarios",
        "excel_export,rename_chain,long_list",
        "--workers",
        "1",  # in-process: worker start-up is tested by test_progress and test_interrupt
    ]
    assert main(args + (["--fresh"] if fresh else [])) == 0
    return (out / "summary.json").read_bytes()


def test_same_seed_is_byte_identical_and_another_seed_differs(tmp_path: Path) -> None:
    first = small_run(tmp_path / "a", seed=3)
    board = (tmp_path / "a" / "leaderboard.md").read_text()
    assert board.startswith("Model: sim/sloppy (simulated agent")
    assert "| L3-granular" in board and (tmp_path / "a" / "logs" / "L0-rewrite").is_dir()
    assert small_run(tmp_path / "b", seed=3) == first
    assert small_run(tmp_path / "c", seed=4) != first


def test_rerunning_a_finished_run_resumes_without_redoing_work(tmp_path: Path) -> None:
    first = small_run(tmp_path / "r", seed=5)
    logs_before = sorted(p.name for p in (tmp_path / "r" / "logs").rglob("*.eval"))
    assert small_run(tmp_path / "r", seed=5) == first
    assert sorted(p.name for p in (tmp_path / "r" / "logs").rglob("*.eval")) == logs_before


def test_fresh_starts_over_whatever_the_folder_holds(tmp_path: Path) -> None:
    first = small_run(tmp_path / "f", seed=5)
    (tmp_path / "f" / "compare.md").write_text("a report written beside the run")
    (tmp_path / "f" / "extra").mkdir()
    fresh = small_run(tmp_path / "f", seed=5, fresh=True)
    assert fresh == first
    assert not (tmp_path / "f" / "compare.md").exists() and not (tmp_path / "f" / "extra").exists()
    assert not (tmp_path / "f" / "driver.lock").exists()  # released


def test_a_design_from_examples_runs_in_the_leaderboard(tmp_path: Path) -> None:
    args = ["run", "--out", str(tmp_path / "d"), "--display", "none", "--model", "sim/oracle"]
    args += ["--design", "examples.append_only:AppendOnlyStore", "--epochs", "1"]
    args += ["--variants", "append-only,cc-tasks", "--scenarios", "excel_export,user_cancels"]
    args += ["--workers", "1"]
    assert main(args) == 0
    board = (tmp_path / "d" / "leaderboard.md").read_text()
    assert "| append-only" in board and "| cc-tasks" in board
    summary = read_summary(tmp_path / "d" / "summary.json")
    assert all(v.metrics["task_success"].mean == 1 for v in summary.variants)


def test_a_run_is_a_call_that_returns_its_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness.errors import UsageError
    from harness.run import RunOptions, run_benchmark
    from harness.run.folder import Timing

    said: list[str] = []
    plan = RunOptions(
        variants="L0-rewrite",
        scenarios="excel_export",
        epochs=1,
        out=str(tmp_path / "r"),
        workers=1,
        display="none",
    )
    result = run_benchmark(plan, say=said.append)
    assert result.complete and result.summary is not None
    assert [v.variant for v in result.summary.variants] == ["L0-rewrite"]
    assert read_summary(tmp_path / "r" / "summary.json") == result.summary
    timing = Timing.model_validate_json((tmp_path / "r" / "timing.json").read_text())
    phases = timing.cpu_seconds
    assert phases is not None
    # the process's imports came before the run and an episode takes tens of ms; the summary of
    # one episode may take less than the clock's 10 ms tick
    assert phases.before_episodes > 0 and phases.episodes > 0 and phases.after_episodes >= 0
    times = os.times()  # the phases count finished child processes too
    spent = times.user + times.system + times.children_user + times.children_system
    assert sum(phases.model_dump().values()) <= spent + 0.05
    assert said and said[0].startswith("todo-bench: 1 variants x 1 scenarios x 1 epochs")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(UsageError, match="needs ANTHROPIC_API_KEY"):
        run_benchmark(plan.model_copy(update={"model": "anthropic/claude-x"}), say=said.append)


def test_rescore_reproduces_a_run_and_applies_a_scoring_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "r"
    args = ["run", "--out", str(out), "--display", "none", "--epochs", "1", "--workers", "1"]
    assert (
        main([*args, "--variants", "L0-rewrite", "--scenarios", "excel_export,rename_chain"]) == 0
    )
    made = (out / "summary.json").read_bytes()
    assert main(["rescore", str(out)]) == 0
    assert (out / "summary.json").read_bytes() == made  # same scorer, same numbers
    import harness.scoring.scorer as scoring

    real = scoring.detect_todo_faults

    def planted(*a: object, **k: object) -> None:
        real(*a, **k)  # type: ignore[arg-type]
        a[2].values["dropped_todos"] += 1  # type: ignore[attr-defined]

    monkeypatch.setattr(scoring, "detect_todo_faults", planted)
    assert main(["rescore", str(out)]) == 0
    before = {v.variant: v.metrics["dropped_todos"].mean for v in read_summary_bytes(made).variants}
    after = read_summary(out / "summary.json")
    assert after.variants[0].metrics["dropped_todos"].mean == before["L0-rewrite"] + 1


def read_summary_bytes(data: bytes) -> Summary:
    return Summary.model_validate_json(data)


def test_rescore_prices_a_run_with_the_table_it_was_made_with(tmp_path: Path) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text("sim/: {input: 3.0, output: 15.0}\n", encoding="utf-8")
    out = tmp_path / "r"
    assert (
        main(
            ["run", "--out", str(out), "--display", "none", "--epochs", "1", "--workers", "1"]
            + ["--variants", "L3-granular", "--scenarios", "excel_export"]
            + ["--prices", str(prices)]
        )
        == 0
    )
    made = (out / "summary.json").read_bytes()
    cost = read_summary_bytes(made).variants[0].cost_usd
    assert cost is not None and cost.mean > 0
    assert main(["rescore", str(out)]) == 0
    assert (out / "summary.json").read_bytes() == made
