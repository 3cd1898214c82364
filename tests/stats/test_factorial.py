"""The factorial's main effects: planted effects are recovered, a switch that moves nothing shows
none, and runs it cannot analyse are one-line errors."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from harness.commands import main
from harness.results.summary import EpisodeScores, Stat, Summary, VariantSummary, read_summary
from harness.stats.factorial import main_effects
from harness.todo.variants import SEED_FACTORIAL, Variant

SCENARIOS = [f"s{i}" for i in range(8)]


def _summary(labels: list[str], turns: dict[str, float]) -> Summary:
    """Episodes whose `turns` are a scenario's level plus each switch's planted effect plus
    noise; `task_success` never moves."""
    rng = random.Random(0)
    level = {s: rng.uniform(5, 15) for s in SCENARIOS}
    variants = []
    for label in labels:
        variant = Variant.parse(label)
        planted = sum(e for f, e in turns.items() if variant.has(f.replace("_", "-")))
        episodes = [
            EpisodeScores(
                scenario=s,
                epoch=epoch,
                values={
                    "turns": level[s] + planted + rng.gauss(0, 0.3),
                    "task_success": 1.0,
                },
            )
            for s in SCENARIOS
            for epoch in (1, 2, 3)
        ]
        variants.append(
            VariantSummary(
                variant=label,
                episodes=len(episodes),
                metrics={},
                pass_k=Stat(mean=1, stderr=0),
                per_100_todo_updates={},
                per_scenario_success={},
                per_episode=episodes,
            )
        )
    return Summary(
        model="sim/test", simulated=True, seed=0, epochs=3, scenarios=SCENARIOS, variants=variants
    )


def test_planted_effects_are_recovered_and_a_still_switch_shows_none() -> None:
    planted = {"heuristic": 6.0, "planner": -1.0, "loop_controller": 2.0, "completion_loop": 0.0}
    effects = main_effects(_summary(list(SEED_FACTORIAL), planted), ["turns", "task_success"])
    turns = {e.factor: e for e in effects if e.metric == "turns"}
    assert set(turns) == {"heuristic", "planner", "completion-loop", "loop-controller"}
    for factor, value in planted.items():
        effect = turns[factor.replace("_", "-")]
        assert effect.ci_low < value < effect.ci_high
        assert abs(effect.effect - value) < 0.3
    assert turns["heuristic"].p_value < 0.001 and turns["completion-loop"].p_value > 0.05
    success = [e for e in effects if e.metric == "task_success"]
    assert all(e.effect == 0 and e.p_value == 1 for e in success)


@pytest.mark.parametrize(
    ("labels", "metrics", "message"),
    [
        (["L4-inject", "L0-rewrite"], ["turns"], "mixes designs"),
        (["L4-inject+heuristic"], ["turns"], "no switch varies"),
        (["L4-inject", "L4-inject+heuristic"], ["turnz"], "unknown metric 'turnz'"),
    ],
)
def test_what_it_cannot_analyse_is_refused(
    labels: list[str], metrics: list[str], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        main_effects(_summary(labels, {}), metrics)


def test_the_command_prints_the_table_or_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.json"
    good.write_text(_summary(list(SEED_FACTORIAL), {"heuristic": 3.0}).model_dump_json())
    assert main(["factorial", str(good), "--metrics", "turns"]) == 0
    assert "+heuristic" in capsys.readouterr().out
    bad = tmp_path / "bad.json"
    bad.write_text(_summary(["L4-inject", "L1-textlock"], {}).model_dump_json())
    assert main(["factorial", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "mixes designs" in err and len(err.strip().splitlines()) == 1


def test_a_switch_that_moves_a_large_metric_not_at_all_shows_exactly_zero() -> None:
    # the committed factorial: CompletionLoop never fires on the simulated agent, so its
    # episodes equal those without it; float noise in the clustered errors of token counts
    # (1e5 and more) once showed as an interval like [-0.0011, +0.0011]
    summary = read_summary(Path("results/seed-factorial/summary.json"))
    metrics = ["input_tokens", "output_tokens", "todo_output_tokens", "turns"]
    for effect in main_effects(summary, metrics):
        if effect.factor == "completion-loop":
            assert (effect.effect, effect.stderr, effect.ci_low, effect.ci_high) == (0, 0, 0, 0)


def test_a_small_real_effect_on_a_large_metric_keeps_its_interval() -> None:
    # the other side of the float-noise cut: token counts near 4e5 (as in the committed run)
    # with a planted 16.5-token effect (5 turns x 3.3) and about one token of noise keep a
    # nonzero error and an interval around the effect
    summary = _summary(list(SEED_FACTORIAL), {"planner": 5.0})
    for variant in summary.variants:
        for episode in variant.per_episode:
            episode.values["input_tokens"] = 4e5 + episode.values["turns"] * 3.3
    effects = {e.factor: e for e in main_effects(summary, ["input_tokens"])}
    planner = effects["planner"]
    assert planner.stderr > 0 and planner.ci_low < planner.effect < planner.ci_high
    assert planner.ci_low < 5.0 * 3.3 < planner.ci_high
