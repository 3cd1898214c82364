"""`todo-bench power`: the closed-form plan is statsmodels' answer with the design effect, the
simulation agrees with it where both fit, and what cannot be planned says so."""

from __future__ import annotations

import math

import numpy as np
import pytest
from statsmodels.stats.power import TTestPower

from harness.metrics import METRICS
from harness.results.summary import EpisodeScores, Stat, Summary, VariantSummary
from harness.stats.paired import check_inputs, paired_differences, variance_components
from harness.stats.power_plan import plan
from harness.stats.power_table import range_text
from harness.stats.sample_size import closed_form_epochs, closed_form_scenarios, simulated_scenarios

#: the synthetic truth: paired differences mean + b_s + w_se
MEAN, VAR_BETWEEN, VAR_WITHIN = 0.5, 0.25, 0.75
SCENARIOS, EPOCHS = 200, 4


def _variant(name: str, rows: dict[tuple[str, int], float], metric: str) -> VariantSummary:
    episodes = [
        EpisodeScores(
            scenario=s,
            epoch=e,
            values={**dict.fromkeys(METRICS, 0.0), metric: v, "input_tokens": 1000.0},
        )
        for (s, e), v in rows.items()
    ]
    stat = Stat(mean=0.0, stderr=0.0, n=len(episodes))
    metrics = {m: stat for m in METRICS}
    metrics["input_tokens"] = Stat(mean=1000.0, stderr=0.0, n=len(episodes))
    metrics["output_tokens"] = Stat(mean=100.0, stderr=0.0, n=len(episodes))
    return VariantSummary(
        variant=name,
        episodes=len(episodes),
        metrics=metrics,
        cost_usd=Stat(mean=0.01, stderr=0.0, n=len(episodes)),
        pass_k=stat,
        per_100_todo_updates={},
        per_scenario_success={},
        per_episode=episodes,
    )


def _pilot(new: dict[tuple[str, int], float], metric: str, epochs: int) -> Summary:
    """Variant A at 0 everywhere, variant B at `new`'s values: the paired differences."""
    return Summary(
        model="synthetic",
        simulated=True,
        seed=0,
        epochs=epochs,
        scenarios=sorted({scenario for scenario, _ in new}),
        variants=[_variant("A", dict.fromkeys(new, 0.0), metric), _variant("B", new, metric)],
    )


def synthetic(metric: str = "turns", seed: int = 1) -> Summary:
    """Base 0 everywhere; new = the known clustered differences."""
    rng = np.random.default_rng(seed)
    new = {}
    for s in range(SCENARIOS):
        b = rng.normal(0, math.sqrt(VAR_BETWEEN))
        for e in range(1, EPOCHS + 1):
            new[(f"s{s:03}", e)] = MEAN + b + rng.normal(0, math.sqrt(VAR_WITHIN))
    return _pilot(new, metric, EPOCHS)


def test_variance_components_recover_the_truth() -> None:
    s = synthetic()
    diffs, clusters = paired_differences(s.variants[0], s.variants[1], "turns")
    between, within = variance_components(diffs, clusters)
    assert between == pytest.approx(VAR_BETWEEN, rel=0.3)
    assert within == pytest.approx(VAR_WITHIN, rel=0.15)


def test_closed_form_is_statsmodels_with_the_design_effect() -> None:
    s = synthetic()
    row = plan(s, "A", "B", "turns", mde=0.3, method="closed form")
    total = row.var_between + row.var_within
    n = TTestPower().solve_power(
        effect_size=0.3 / math.sqrt(total), alpha=0.05, power=0.8, alternative="two-sided"
    )
    design = 1 + (EPOCHS - 1) * row.icc
    assert row.method == "closed form" and row.scenarios is not None
    assert row.design_effect == pytest.approx(design)
    assert row.scenarios == math.ceil(n * design / EPOCHS)
    assert row.episodes == 2 * row.scenarios * EPOCHS
    assert row.cost_usd == pytest.approx(row.episodes * 0.01)
    assert row.tokens == row.episodes * 1100
    # and the true components give nearly the same plan (the estimate is close)
    true_scenarios, _ = closed_form_scenarios(0.3, 1.0, 0.25, EPOCHS, 0.05, 0.8)
    assert abs(row.scenarios - true_scenarios) <= 0.15 * true_scenarios


def test_simulation_agrees_with_the_closed_form() -> None:
    """Tolerance: 15% of the closed-form number of scenarios (the simulation's power estimate
    has a standard error of about 0.013 at 1000 runs, and it tests scenario means with
    scenarios - 1 degrees of freedom where the closed form counts episodes)."""
    s = synthetic()
    closed = plan(s, "A", "B", "turns", mde=0.3, method="closed form")
    simulated = plan(s, "A", "B", "turns", mde=0.3, method="simulation", seed=3)
    assert simulated.method == "simulation" and closed.scenarios and simulated.scenarios
    assert abs(simulated.scenarios - closed.scenarios) <= 0.15 * closed.scenarios
    again = plan(s, "A", "B", "turns", mde=0.3, method="simulation", seed=3)
    assert again.scenarios == simulated.scenarios  # deterministic for a seed


def test_the_simulation_search_finds_the_smallest_size() -> None:
    diffs = [1.0, 2.0, 0.0, 1.5, 0.5, 1.0] * 2
    clusters = [f"s{i // 2}" for i in range(12)]
    k = simulated_scenarios(diffs, clusters, 1.0, 2, 0.05, 0.8, simulations=500)
    assert k is not None and 2 <= k <= 10


def test_no_difference_is_not_plannable() -> None:
    s = synthetic()
    zero = s.variants[0]
    twin = zero.model_copy(update={"variant": "A2"})
    s = s.model_copy(update={"variants": [zero, twin]})
    row = plan(s, "A", "A2", "turns")
    assert row.scenarios is None and row.note.startswith("not plannable")
    row = plan(s, "A", "A2", "turns", mde=0.0)
    assert row.scenarios is None and "minimum effect of 0" in row.note


def test_bad_inputs_are_refused() -> None:
    s = synthetic()
    with pytest.raises(ValueError, match="'C' is not in the summary"):
        check_inputs(s, [("A", "C")], ["turns"])
    with pytest.raises(ValueError, match="'nope' is not a declared"):
        check_inputs(s, [("A", "B")], ["nope"])
    bare = s.model_copy(
        update={"variants": [v.model_copy(update={"per_episode": []}) for v in s.variants]}
    )
    with pytest.raises(ValueError, match="no per-episode values"):
        check_inputs(bare, [("A", "B")], ["turns"])


def test_epochs_on_the_pilot_scenarios_follow_the_design_effect() -> None:
    """On a fixed set of k scenarios, the fewest epochs m with k m >= n (1 + (m - 1) ICC); none
    when the between-scenario variance alone is too much for k scenarios."""
    n = TTestPower().solve_power(effect_size=0.3, alpha=0.05, power=0.8, alternative="two-sided")
    m = closed_form_epochs(0.3, 1.0, 0.25, 40, 0.05, 0.8)
    assert m is not None
    assert 40 * m >= n * (1 + (m - 1) * 0.25)
    assert 40 * (m - 1) < n * (1 + (m - 2) * 0.25)
    assert closed_form_epochs(0.3, 1.0, 0.25, 20, 0.05, 0.8) is None  # 20 <= n ICC
    s = synthetic()
    row = plan(s, "A", "B", "turns", mde=0.3, method="simulation", simulations=300)
    assert row.epochs_on_pilot_scenarios == 1  # 200 scenarios: one epoch each is plenty


def test_a_plan_from_the_observed_effect_spans_its_interval() -> None:
    """The pilot's effect is an estimate: the row also plans for either end of its 95% interval
    (the far end needs the fewest scenarios, the near end the most); an interval that reaches 0
    bounds the plan from below only, and a stated --mde carries no range."""
    s = synthetic()
    row = plan(s, "A", "B", "turns", method="closed form")
    assert row.ci_low is not None and row.ci_high is not None and 0 < row.ci_low < row.ci_high
    at = {
        end: plan(s, "A", "B", "turns", mde=end, method="closed form").scenarios
        for end in (row.ci_low, row.ci_high)
    }
    assert (row.range_fewest, row.range_most) == (at[row.ci_high], at[row.ci_low])
    assert row.range_fewest is not None and row.range_most is not None and row.scenarios
    assert row.range_fewest < row.scenarios < row.range_most
    assert range_text(row) == f"{row.range_fewest} - {row.range_most}"
    # a noisy pilot: scenarios that disagree in sign; its interval reaches 0, and no size is
    # enough for every effect it allows
    new = {(f"s{k}", e): v + 0.1 * e for k, v in enumerate((1.0, -0.8, 0.9, -0.5)) for e in (1, 2)}
    small = s.model_copy(
        update={
            "epochs": 2,
            "variants": [
                _variant("A", dict.fromkeys(new, 0.0), "turns"),
                _variant("B", new, "turns"),
            ],
        }
    )
    noisy = plan(small, "A", "B", "turns", method="closed form")
    assert noisy.ci_low is not None and noisy.ci_low <= 0 < noisy.effect
    assert noisy.range_most is None and noisy.range_fewest is not None
    assert range_text(noisy) == f"from {noisy.range_fewest} (CI reaches 0)"
    stated = plan(s, "A", "B", "turns", mde=0.3, method="closed form")
    assert range_text(stated) == "-"


def _sparse(discordant: int, scenarios: int = 12, epochs: int = 3) -> Summary:
    """A 0/1 pilot like the field run's: the new variant succeeds where the base did not in
    `discordant` of the pairs (one per scenario from the first), every other pair equal."""
    new = {
        (f"s{k:02}", e): 1.0 if (e == 1 and k < discordant) else 0.0
        for k in range(scenarios)
        for e in range(1, epochs + 1)
    }
    return _pilot(new, "task_success", epochs)


def test_one_discordant_pair_does_not_plan_a_tiny_run() -> None:
    """One success in 36 pairs: no scenario but one varies. The adjusted resampling turns the
    others into constants at the shifted mean, and a simulated run of constants has no t-test;
    counted as a rejection it planned 2 scenarios for an effect of 1 in 36. It must plan about
    what the closed form does (95), never a handful."""
    s = _sparse(1)
    simulated = plan(s, "A", "B", "task_success", method="simulation", simulations=300)
    closed = plan(s, "A", "B", "task_success", method="closed form")
    assert closed.scenarios is not None and closed.scenarios > 50
    assert simulated.scenarios is not None and simulated.scenarios > closed.scenarios / 2
