"""The regression gate: paired tests, exact mode, refusals, and the cases the old gate missed."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from harness.commands import main
from harness.metrics import METRICS, WATCHED
from harness.results.summary import (
    EpisodeScores,
    Provenance,
    Summary,
    TaskResult,
    write_summary,
)
from harness.stats.aggregate import summarize
from harness.stats.comparison import compare, junit, mismatches, render


def run(
    outcomes: dict[str, list[float]],
    model: str = "openai-api/local/x",
    epochs: int = 3,
    scenario_hash: str = "h",
    **extra: list[float],
) -> TaskResult:
    """One variant's episodes: `outcomes[scenario]` is task_success per epoch."""
    episodes: list[EpisodeScores] = []
    for scenario, values in outcomes.items():
        for epoch, ok in enumerate(values, start=1):
            row = {**dict.fromkeys(METRICS, 0.0), "task_success": ok}
            for metric, per in extra.items():
                row[metric] = per[len(episodes)]
            episodes.append(EpisodeScores(scenario=scenario, epoch=epoch, values=row))
    return TaskResult(variant="L0-rewrite", model=model, epochs=epochs, episodes=episodes)


def summary(result: TaskResult, scenario_hash: str = "h") -> Summary:
    return summarize([result], seed=0, provenance=Provenance(scenario_hash=scenario_hash))


def suite(successes: int, total: int = 30) -> dict[str, list[float]]:
    flat = [1.0] * successes + [0.0] * (total - successes)
    return {f"s{i}": flat[3 * i : 3 * i + 3] for i in range(total // 3)}


def test_a_clear_paired_regression_fails() -> None:
    # 20/30 -> 14/30, the six losses all on episodes that used to pass (McNemar)
    base, new = summary(run(suite(20))), summary(run(suite(14)))
    result = compare(base, new)
    (finding,) = [f for f in result.findings if f.verdict != "unchanged"]
    assert (finding.verdict, finding.variant, finding.metric) == (
        "regression",
        "L0-rewrite",
        "task_success",
    )
    assert finding.test and finding.test.method == "exact McNemar" and finding.test.p_holm < 0.05
    assert result.failed and "regression" in render(result)


def test_an_improvement_is_reported_and_passes() -> None:
    result = compare(summary(run(suite(14))), summary(run(suite(20))))
    assert not result.failed
    assert [f.verdict for f in result.findings if f.verdict != "unchanged"] == ["improvement"]


def test_a_deterministic_model_fails_on_any_change() -> None:
    # the gate-disabling bug: success 1.00 -> 0.97 on the simulated agent
    perfect = run(suite(30), model="sim/sloppy")
    broken = run(suite(29), model="sim/sloppy")
    result = compare(summary(perfect), summary(broken))
    assert result.exact and result.failed
    assert [f.verdict for f in result.findings if f.verdict != "unchanged"] == ["changed"]
    assert not compare(summary(perfect), summary(perfect)).failed


@pytest.mark.parametrize("base_has_it", [True, False])
def test_a_metric_the_baseline_was_made_without_is_not_judged(base_has_it: bool) -> None:
    """A baseline kept from a todo-bench that did not yet score `lost_todos` has it in no
    episode: read as zero, every loss in the new run would be a regression on upgrading."""
    old = run(suite(30), model="sim/sloppy")
    new = run(suite(30), model="sim/sloppy", lost_todos=[1.0] + [0.0] * 29)
    base = summary(old)
    if not base_has_it:
        for episode in base.variants[0].per_episode:
            del episode.values["lost_todos"]
    result = compare(base, summary(new))
    judged = {f.metric for f in result.findings}
    assert ("lost_todos" in judged) is base_has_it and "task_success" in judged
    assert result.failed is base_has_it


def test_changes_that_cancel_out_still_fail_exactly() -> None:
    a = run({"s": [1.0, 0.0]}, model="sim/x", epochs=2)
    b = run({"s": [0.0, 1.0]}, model="sim/x", epochs=2)
    assert compare(summary(a), summary(b)).failed


def test_an_exact_failure_says_changed_and_shows_no_p_value() -> None:
    # it used to read "p (Holm) 1.0000 ... not worse on average", which looks like a pass
    a = run({"s": [1.0, 0.0], "t": [1.0, 1.0]}, model="sim/x", epochs=2)
    b = run({"s": [0.0, 1.0], "t": [1.0, 0.0]}, model="sim/x", epochs=2)
    result = compare(summary(a), summary(b))
    (finding,) = [f for f in result.findings if f.verdict != "unchanged"]
    assert finding.test is not None
    p_value = f"{finding.test.p_holm:.4f}"
    for text in (render(result), render(result, "md"), junit(result)):
        (line,) = [line for line in text.splitlines() if "task_success" in line]
        assert "changed (exact comparison: any change fails); worse on average" in line, line
        assert p_value not in line and "not worse" not in line, line


def test_a_statistical_comparison_still_shows_its_p_value() -> None:
    result = compare(summary(run(suite(20))), summary(run(suite(14))))
    (finding,) = [f for f in result.findings if f.verdict == "regression"]
    assert finding.test is not None and f"{finding.test.p_holm:.4f}" in render(result)
    assert "exact comparison" not in render(result) + junit(result)


def test_a_missing_variant_fails() -> None:
    base = summarize([run(suite(20)), run(suite(20)).model_copy(update={"variant": "L3"})], seed=0)
    result = compare(base, summary(run(suite(20))))
    assert result.failed and any(f.verdict == "missing" for f in result.findings)


@pytest.mark.parametrize(
    ("new_run", "hash_", "reason"),
    [
        (run(suite(20), model="anthropic/claude"), "h", "model"),
        (run(suite(20), epochs=2), "h", "epochs"),
        (run({"other": [1.0, 1.0, 1.0]}), "h", "scenario sets differ"),
        (run(suite(20)), "other-hash", "scenario content differs"),
    ],
)
def test_incomparable_runs_are_refused(new_run: TaskResult, hash_: str, reason: str) -> None:
    assert any(reason in m for m in mismatches(summary(run(suite(20))), summary(new_run, hash_)))


def test_two_seeds_of_one_configuration_rarely_trip_the_gate() -> None:
    # same true success rate (0.6) and corruption rate, independent episodes: a false alarm
    # should come at most at the nominal rate
    rng = random.Random(0)

    def noisy() -> TaskResult:
        outcomes = {f"s{i}": [float(rng.random() < 0.6) for _ in range(3)] for i in range(10)}
        drops = [float(rng.random() < 0.3) * rng.randint(1, 3) for _ in range(30)]
        return run(outcomes, dropped_todos=drops)

    alarms = sum(compare(summary(noisy()), summary(noisy())).failed for _ in range(100))
    assert alarms <= 5, alarms


def test_cli_exit_codes_md_junit_and_step_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    base, new, other = tmp_path / "b.json", tmp_path / "n.json", tmp_path / "o.json"
    write_summary(summary(run(suite(20))), base)
    write_summary(summary(run(suite(14))), new)
    write_summary(summary(run(suite(20), model="anthropic/claude")), other)
    step = tmp_path / "step.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    assert main(["compare", str(base), str(base)]) == 0
    capsys.readouterr()
    junit_file = tmp_path / "junit.xml"
    assert main(["compare", str(base), str(new), "--format", "md", "--junit", str(junit_file)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("FAIL") and "| L0-rewrite | task_success | regression" in out
    assert 'failures="1"' in junit_file.read_text() and "regression" in step.read_text()
    assert main(["compare", str(base), str(other)]) == 2
    assert "not comparable" in capsys.readouterr().err
    assert main(["compare", str(base), str(other), "--allow-mismatch"]) in (0, 1)
    broken = tmp_path / "broken.json"
    broken.write_text('{"schema_version": 1}')
    assert main(["compare", str(base), str(broken)]) == 2
    tolerance = tmp_path / "tol.yaml"
    tolerance.write_text("task_success: 0.25\n")
    assert main(["compare", str(base), str(new), "--tolerance", str(tolerance)]) == 0


def test_junit_has_one_case_per_variant_and_metric() -> None:
    xml = junit(compare(summary(run(suite(20))), summary(run(suite(20)))))
    assert xml.count("<testcase") == len(WATCHED) and 'failures="0"' in xml


def test_another_seed_is_refused_exactly_but_tested_statistically() -> None:
    base = summary(run(suite(20), model="sim/sloppy"))
    other = base.model_copy(update={"seed": 1})
    assert any("seed 0 vs 1" in m for m in mismatches(base, other))
    assert not mismatches(base, other, statistical=True)
    assert not mismatches(base, base)


def test_another_task_or_sim_version_is_refused() -> None:
    base = summary(run(suite(20)))
    for field, value, word in (("task_version", 99, "task version"), ("sim_version", 7, "sim")):
        other = base.model_copy(
            update={"provenance": base.provenance.model_copy(update={field: value})}
        )
        assert any(word in m for m in mismatches(base, other, statistical=True)), field


def test_a_large_change_that_is_not_significant_is_shown_with_its_interval() -> None:
    # dropped todos 0.83 -> 2.08 per episode on few, noisy episodes: too few to be significant
    # at alpha 0.05 after Holm, but the reader must see the change, its interval and p-value
    base_drops = [0, 0, 5, 0, 0, 0]
    new_drops = [0, 0, 12, 0, 0, 0.5]
    outcomes = {"a": [1.0, 1.0, 1.0], "b": [1.0, 1.0, 1.0]}
    base = summary(run(outcomes, dropped_todos=[float(x) for x in base_drops]))
    new = summary(run(outcomes, dropped_todos=[float(x) for x in new_drops]))
    result = compare(base, new, exact=False)
    assert not result.failed
    (finding,) = [f for f in result.findings if f.verdict != "unchanged"]
    assert finding.verdict == "not significant" and finding.metric == "dropped_todos"
    assert finding.test is not None and finding.test.p_holm >= 0.05
    text = render(result)
    assert "No watched metric changed" not in text
    assert "not significant" in text and f"{finding.test.p_holm:.4f}" in text
    assert "[+" in text or "[-" in text  # the interval of the difference


def test_every_column_of_the_pr_table_has_a_header() -> None:
    result = compare(summary(run(suite(14))), summary(run(suite(20))))
    header = render(result, "md").splitlines()[2]
    assert all(cell.strip() for cell in header.strip("|").split("|")), header


def test_holm_forces_no_collection_and_puts_gc_collect_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """statsmodels' Holm branch calls gc.collect(); holm() swaps it out (without unittest.mock)
    for the call only, and the adjusted p-values are statsmodels' own."""
    import gc

    from statsmodels.stats import multitest

    from harness.stats.intervals import holm, paired_test

    calls: list[object] = []

    def counting(*args: object) -> int:
        calls.append(args)
        return 0

    monkeypatch.setattr(gc, "collect", counting)
    tests = [
        paired_test("v", "task_success", [1, 1, 1, 0, 1, 1], [0, 0, 1, 0, 0, 0]),
        paired_test("v", "dropped_todos", [0, 1, 0, 2, 0, 1], [1, 2, 3, 2, 1, 2]),
    ]
    adjusted = holm(tests)
    assert calls == [] and gc.collect is counting
    expected = multitest.multipletests([t.p_value for t in tests], method="holm")[1]
    assert calls != []  # the call it guards against does happen without the swap
    assert [t.p_holm for t in adjusted] == pytest.approx(list(expected), abs=1e-4)
