"""Proof by simulation (issue #42 item 4): does `todo-bench power`'s plan reach its power, does
the sequential gate of `run --until-decided` keep its alpha, and what does it save? With the
simulated agent at the field profile's rates (`sim/field`) as the ground truth. Writes
results/power/study.md and study.json.

    .venv/bin/python scripts/power_study.py   # or: make power-study

What it does, honestly (also in the output):
1. Pools: one large run of the default suite at sim/field (POOL_VARIANTS, --pool-epochs
   epochs per scenario, seed --pool-seed, independent of the pilot's seed 0), and one of the
   field suite (`--scenarios field`, --field-pool-epochs). Running 200 full benchmark runs is
   too slow here, so every repetition below is drawn from these pools (the runs are cached in
   build/power-study/ and resume; deterministic, so the same command gives the same pools).
2. The plan: `harness.stats.power_plan.plan` on the committed pilot results/field/run (exactly
   what `todo-bench power results/field/run` prints, alpha 0.05, power 0.8), for PAIRS x
   METRICS; the same plan with the pool's true effect as the MDE; and the plan made from the
   pool itself (its effect and its variance components, the pilot's epochs per scenario),
   which tests the planner's arithmetic apart from a pilot's sampling error.
3. Fixed-size runs of each plan's size drawn from the pool (scenarios with replacement from
   the suite's 12, epochs with replacement within each; the planner's t-test on the scenario
   means): achieved power with its Clopper-Pearson interval.
4. Sequential runs (`harness.stats.sequential_looks.look`, the code `--until-decided` runs, on
   batches of BATCH epochs of the suite's 12 scenarios drawn without replacement from the
   pool): A/A (a variant against itself, the two sides on disjoint pool epochs, both watched
   metrics, alpha 0.05 over them) for the false-alarm rate, told by metric and by look, once
   with the gate and once without its sign-flip bound on the same draws, with what the last
   look's pooled variance rests on (`pooled_df`); A/B (one comparison at alpha 0.05) for power
   and mean episodes, against the fixed run that answers the same question on the suite's
   scenarios (the fewest epochs whose single look by the same gate reaches the power), with a
   design `docs/statistics.md` recommends: batches of one epoch, as many looks as that fixed
   run's epochs (so never more episodes than it). The A/A runs are made in two designs: the
   documented default (LOOKS batches of BATCH epochs, with and without the sign-flip bound)
   and the recommended one (AA_ONE_EPOCH_LOOKS batches of one epoch). At equal power (at each
   of EQUAL_POWERS), the fewest one-epoch looks per spending function against the fixed run,
   each beside what the same design saves on a normal statistic
   (`harness.stats.sequential_efficiency`), and that theory's own table.
Limits: repetitions share one finite pool (each A/A repetition uses 2 x BATCH x looks of the
pool's epochs per scenario, each A/B one BATCH x looks), so they overlap and are not fully
independent, and the intervals (which assume they are) are somewhat too narrow; the scenario
population of a fixed plan is the suite's 12 scenarios, resampled.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel
from tabulate import tabulate

from harness.results.summary import Futility, Spending, Summary, read_summary
from harness.stats.equal_power import (
    SequentialDesign,
    fixed_on_suite,
    fixed_power,
    sequential_on_suite,
)
from harness.stats.power_plan import Method, Plan, plan
from harness.stats.power_study import (
    BoardOutcome,
    PooledDf,
    aa_sequential,
    ab_sequential,
    alarms_by_look,
    alarms_by_metric,
    board_sequential,
    pooled_df,
)
from harness.stats.power_table import range_text
from harness.stats.sequential_bounds import SPENDING_NAMES
from harness.stats.sequential_efficiency import Efficiency, efficiency
from harness.stats.sequential_looks import Rule
from harness.stats.study_pool import Pool, Rate, pool_epochs, pool_of, truth
from harness.versions import SIM_VERSION, TASK_VERSION

ROOT = Path(__file__).resolve().parent.parent
PILOT = ROOT / "results/field/run"
POOL_VARIANTS = ("L0-rewrite", "L2-whitelist", "L4-inject", "L4-inject+gate")
PAIRS = (
    ("L0-rewrite", "L2-whitelist"),
    ("L4-inject", "L4-inject+gate"),
    ("L0-rewrite", "L4-inject+gate"),
)
METRICS = ("task_success", "dropped_todos")
AA_VARIANTS = ("L0-rewrite", "L4-inject+gate")
#: the gate, and the gate without its sign-flip bound (the method before it), on the same draws
AA_METHODS = (("sign-flip bound", Rule()), ("t quantile alone", Rule(sign_flip=False)))
#: the futility stop's threshold in the study (`run --futility`)
FUTILITY = 0.1
#: the board of the study's whole-run rows: two pairs on both metrics, one comparison of
#: which has no difference at all in the pool
BOARD_PAIRS = PAIRS[1:]
#: the A/A's second design: batches of one epoch, this many looks (the gate only)
AA_ONE_EPOCH_LOOKS = 10
ALPHA = 0.05
POWER = 0.8
#: the powers the equal-power comparison is made at: the plan's, and the higher one at which
#: the group-sequential literature's "a quarter to a third fewer" is reported
EQUAL_POWERS = (POWER, 0.9)
#: the spending functions compared at equal power, and the looks of the theory's table
SPENDINGS: tuple[Spending, ...] = ("obrien-fleming", "pocock")
THEORY_LOOKS = (2, 4, 7, 10, 14)
#: epochs per scenario in each batch of a sequential run, and its looks (the documented default)
BATCH = 2
LOOKS = 5
#: the most epochs of the suite a fixed run is searched for: its sequential budget must be
#: drawn from the pool's epochs, and well under all of them to vary between repetitions
FIXED_MOST = 18


class EqualPower(BaseModel):
    """At one power: the fixed run on the suite that reaches it (None: none of at most
    FIXED_MOST epochs does) and, per spending function, the smallest sequential run of
    one-epoch batches that does (None: none of at most 2 x FIXED_MOST looks)."""

    power: float
    fixed_epochs: int | None
    fixed_power: Rate | None
    fixed_episodes: int | None
    sequential: dict[str, SequentialDesign | None]


class PlanCheck(BaseModel):
    """One comparison: the truth, the plans and what their runs achieve."""

    base: str
    new: str
    metric: str
    true_effect: float
    pilot_effect: float
    method: str
    planned: str  # "k x m" from the pilot, or its note
    planned_episodes: int | None
    achieved: Rate | None
    achieved_text: str
    planned_at_truth: str
    achieved_at_truth: Rate | None
    #: the paired differences' standard deviation and ICC in the pilot and in the pool
    pilot_sd: float
    pool_sd: float
    pilot_icc: float
    pool_icc: float
    #: the plan made from the pool itself, and its achieved power
    planned_from_pool: str
    achieved_from_pool: Rate | None
    #: the other method's plan from the pool, and its achieved power (the choice of `auto`)
    other_method: str
    planned_from_pool_other: str
    achieved_from_pool_other: Rate | None
    #: the pilot's plan at the ends of its effect's interval (`todo-bench power`'s range), and
    #: whether the plan from the pool lies in it
    pilot_range: str
    pool_plan_in_range: str
    sequential_looks: int
    sequential_batch: int
    sequential_power: Rate | None
    sequential_wrong_way: Rate | None
    sequential_mean_episodes: float | None
    #: the fixed and the sequential runs at each of EQUAL_POWERS (none: no true effect)
    equal_power: list[EqualPower] = []

    @property
    def at_plan(self) -> EqualPower | None:
        """At the plan's power: the fixed run answering the sequential run's question (epochs
        of the suite's own 12 scenarios whose one look, the gate's test, reaches it)."""
        return next((e for e in self.equal_power if e.power == POWER), None)


class BoardRow(BaseModel):
    """Whole-board sequential runs decided by one rule (`board_sequential`)."""

    rule: str
    outcome: BoardOutcome


class AACheck(BaseModel):
    variant: str
    #: "sign-flip bound" (the gate) or "t quantile alone" (the gate before the bound)
    method: str
    looks: int
    batch: int  # epochs per look
    metrics: list[str]
    false_alarms: Rate
    #: per metric, the runs in which it raised a false alarm
    by_metric: dict[str, Rate]
    #: per look, the runs whose first false alarm was raised there
    by_look: list[int]
    mean_episodes: float


class Study(BaseModel):
    """study.json."""

    command: str
    pool_seed: int
    pool_epochs: int
    field_pool_epochs: int
    pool_episodes: int
    field_pool_episodes: int
    reps_fixed: int
    reps_aa: int
    reps_ab: int
    batch: int
    looks: int
    alpha: float
    power: float
    aa: list[AACheck]
    #: per A/A variant and metric, what the last look's pooled variance rests on
    aa_pooled: list[PooledDf]
    plans: list[PlanCheck]
    field_suite: list[dict[str, object]]
    #: the MDE per metric the futility stop and the tolerance rows use
    mde: dict[str, float]
    board: list[tuple[str, str, str]]
    board_epochs: int | None
    board_rows: list[BoardRow]


def run_pool(out: Path, scenarios: str | None, epochs: int, seed: int) -> Summary:
    """The pool run (resumed if it is there already, started over where it was made under
    other task or sim versions: it is a cache), one process: its summary."""
    started = out / "run.json"
    if started.is_file():
        made = json.loads(started.read_text(encoding="utf-8")).get("provenance", {})
        if (made.get("task_version"), made.get("sim_version")) != (TASK_VERSION, SIM_VERSION):
            shutil.rmtree(out)
    command = [
        str(ROOT / ".venv/bin/todo-bench"),
        "run",
        "--model",
        "sim/field",
        "--variants",
        ",".join(POOL_VARIANTS),
        "--epochs",
        str(epochs),
        "--seed",
        str(seed),
        "--workers",
        "1",
        "--display",
        "none",
        "--out",
        str(out),
        *(["--scenarios", scenarios] if scenarios else []),
    ]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return read_summary(out / "summary.json")


def episodes_of(pool: Pool) -> int:
    return sum(len(rows) for by in pool.values() for rows in by.values())


def sequential_design(fixed_epochs: int | None) -> tuple[int, int]:
    """(looks, epochs per batch) of the sequential run set against a fixed run of
    `fixed_epochs` epochs on the suite's scenarios: a batch of one epoch per look, as many
    looks as the fixed run has epochs, so its budget is the fixed run's; FIXED_MOST looks where
    no fixed run of at most FIXED_MOST epochs reaches the power."""
    return (fixed_epochs or FIXED_MOST), 1


def check(
    pool: Pool,
    pooled: Summary,
    base: str,
    new: str,
    metric: str,
    args: argparse.Namespace,
    seed: int,
) -> PlanCheck:
    """One comparison against the pool (`pool`: its episodes by variant and scenario, drawn
    from; `pooled`: the same run's summary, planned from)."""
    pilot = read_summary(PILOT / "summary.json")
    effect = truth(pool, base, new, metric)
    row: Plan = plan(pilot, base, new, metric, alpha=ALPHA, power=POWER)

    def achieved_by(planned: Plan, draws: int) -> Rate | None:
        """The power a plan's runs reach when drawn from the pool (None: no plan)."""
        if planned.scenarios is None:
            return None
        return fixed_power(
            pool, base, new, metric, planned.scenarios, planned.epochs, ALPHA, args.reps_fixed,
            draws,
        )  # fmt: skip

    achieved = achieved_by(row, seed)
    at_truth = None
    at_truth_text = "no true effect"
    if effect != 0:
        truth_row = plan(pilot, base, new, metric, mde=effect, alpha=ALPHA, power=POWER)
        at_truth = achieved_by(truth_row, seed + 1)
        at_truth_text = _size(truth_row)
    # the planner given the truth: the pool's effect and variance, the pilot's epochs; by the
    # method `auto` picks and by the other one
    from_pool = plan(pooled, base, new, metric, epochs=pilot.epochs, alpha=ALPHA, power=POWER)
    achieved_from_pool = achieved_by(from_pool, seed + 4)
    other: Method = "simulation" if from_pool.method == "closed form" else "closed form"
    other_plan = plan(
        pooled, base, new, metric, epochs=pilot.epochs, alpha=ALPHA, power=POWER, method=other
    )
    achieved_other = achieved_by(other_plan, seed + 4)
    power = wrong = mean_episodes = None
    equal_power: list[EqualPower] = []
    if effect != 0:
        equal_power = [
            equal_at(pool, base, new, metric, level, args.reps_ab, seed) for level in EQUAL_POWERS
        ]
    looks, batch = sequential_design(equal_power[0].fixed_epochs if equal_power else None)
    if effect != 0:
        power, mean_episodes, wrong = ab_sequential(
            pool, base, new, metric, args.reps_ab, batch, looks, ALPHA, seed + 3
        )
    return PlanCheck(
        base=base,
        new=new,
        metric=metric,
        true_effect=round(effect, 6),
        pilot_effect=round(row.effect, 6),
        method=row.method or "-",
        planned=_size(row),
        planned_episodes=row.episodes,
        achieved=achieved,
        achieved_text=achieved.text if achieved else "-",
        planned_at_truth=at_truth_text,
        achieved_at_truth=at_truth,
        pilot_sd=round(math.sqrt(row.var_between + row.var_within), 6),
        pool_sd=round(math.sqrt(from_pool.var_between + from_pool.var_within), 6),
        pilot_icc=row.icc,
        pool_icc=from_pool.icc,
        planned_from_pool=_size(from_pool),
        achieved_from_pool=achieved_from_pool,
        other_method=other,
        planned_from_pool_other=_size(other_plan),
        achieved_from_pool_other=achieved_other,
        pilot_range=range_text(row),
        pool_plan_in_range=_in_range(row, from_pool.scenarios),
        sequential_looks=looks,
        sequential_batch=batch,
        sequential_power=power,
        sequential_wrong_way=wrong,
        sequential_mean_episodes=None if mean_episodes is None else round(mean_episodes, 3),
        equal_power=equal_power,
    )


def equal_at(
    pool: Pool, base: str, new: str, metric: str, power: float, reps: int, seed: int
) -> EqualPower:
    """The fixed run on the suite and each spending function's sequential run at `power`, on
    the same draws at every size (`harness.stats.equal_power`)."""
    epochs, reached = fixed_on_suite(
        pool, base, new, metric, power, ALPHA, reps, FIXED_MOST, seed + 2
    )
    scenarios = len(next(iter(pool.values())))
    search = (pool, base, new, metric, power, ALPHA, reps, 2 * FIXED_MOST, seed + 3)
    return EqualPower(
        power=power,
        fixed_epochs=epochs,
        fixed_power=reached,
        fixed_episodes=None if epochs is None else 2 * scenarios * epochs,
        sequential={kind: sequential_on_suite(*search, Rule(spending=kind)) for kind in SPENDINGS},
    )


def field_suite(pool: Pool, args: argparse.Namespace) -> list[dict[str, object]]:
    """Achieved power of the field suite's planned run (scripts/field_suite.py's plan)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import field_suite as board  # the board's own plan

    pilot = read_summary(board.FOLDER / "pilot/summary.json")
    rows = board.plans(pilot)
    epochs, _ = board.planned_epochs(rows)
    alpha = board.ALPHA / len(rows)
    scenarios = len(next(iter(pool.values())))
    out: list[dict[str, object]] = []
    for k, row in enumerate(rows):
        effect = truth(pool, row.base, row.new, row.metric)
        achieved = (
            fixed_power(
                pool,
                row.base,
                row.new,
                row.metric,
                scenarios,
                epochs,
                alpha,
                args.reps_fixed,
                args.seed + 100 + k,
            )
            if effect != 0
            else None
        )
        out.append(
            {
                "base": row.base,
                "new": row.new,
                "metric": row.metric,
                "true_effect": round(effect, 6),
                "scenarios": scenarios,
                "epochs": epochs,
                "alpha": round(alpha, 6),
                "achieved": achieved.model_dump() if achieved else None,
                "achieved_text": achieved.text if achieved else "no true difference in the pool",
            }
        )
    return out


def study_mde(pool: Pool) -> dict[str, float]:
    """Per metric, the smallest true difference of the study's comparisons that has one: the
    MDE the futility stop and the tolerance rows are given."""
    return {
        m: round(min(abs(truth(pool, b, n, m)) for b, n in PAIRS if truth(pool, b, n, m)), 3)
        for m in METRICS
    }


def board(
    pool: Pool, mde: dict[str, float], args: argparse.Namespace
) -> tuple[int | None, list[BoardRow]]:
    """Whole-board sequential runs (BOARD_PAIRS x METRICS watched at once, one-epoch
    batches) with as many looks as the board's fixed run has epochs: the fewest at which every
    comparison with a difference reaches the power by the gate's one-look test at its
    Bonferroni share of alpha. Decided by the default rule, with a tolerance at the MDE, with
    a futility stop, and with Pocock-type spending and a futility stop."""
    comparisons = [(b, n, m) for b, n in BOARD_PAIRS for m in METRICS]
    alpha = ALPHA / len(comparisons)
    epochs = 0
    for k, (b, n, m) in enumerate(comparisons):
        if truth(pool, b, n, m) == 0:
            continue
        found, _ = fixed_on_suite(
            pool, b, n, m, POWER, alpha, args.reps_ab, 2 * FIXED_MOST, args.seed + 200 + k
        )
        if found is None:
            return None, []
        epochs = max(epochs, found)
    futile = Futility(threshold=FUTILITY, mde=mde)
    rules = [
        ("O'Brien-Fleming-type (the default)", Rule(), {}),
        ("O'Brien-Fleming-type, --tolerance at the MDE", Rule(), mde),
        (f"O'Brien-Fleming-type, --futility {FUTILITY}", Rule(futility=futile), {}),
        (f"Pocock-type, --futility {FUTILITY}", Rule(spending="pocock", futility=futile), {}),
    ]
    rows = [
        BoardRow(
            rule=name,
            outcome=board_sequential(
                pool, comparisons, args.reps_ab, epochs, ALPHA, args.seed + 300, tolerance, rule
            ),
        )
        for name, rule, tolerance in rules
    ]
    return epochs, rows


def fmt(r: Rate | None) -> str:
    return r.text if r is not None else "-"


def render(study: Study) -> str:
    aa_rows = [
        [a.variant, f"{a.looks} x {a.batch}", a.method,
         f"{a.false_alarms.hits} of {a.false_alarms.reps}",
         fmt(a.false_alarms), "yes" if a.false_alarms.rate <= study.alpha else "NO",
         "yes" if a.false_alarms.ci_high <= study.alpha else "no",
         *[f"{r.hits} ({r.text})" for r in a.by_metric.values()],
         ", ".join(str(n) for n in a.by_look), f"{a.mean_episodes:.1f}"]
        for a in study.aa
    ]  # fmt: skip
    pooled_rows = [
        [p.variant, p.metric, str(p.df_given),
         "-" if p.df_satterthwaite is None else f"{p.df_satterthwaite:.1f}",
         "-" if p.top_scenario_share is None else f"{p.top_scenario_share:.2f}"]
        for p in study.aa_pooled
    ]  # fmt: skip
    plan_rows = [
        [f"{p.base} -> {p.new}", p.metric, f"{p.pilot_effect:+.3f}", f"{p.true_effect:+.3f}",
         p.method, p.planned, fmt(p.achieved), _agrees(p.achieved, study.power),
         p.planned_at_truth, fmt(p.achieved_at_truth), _agrees(p.achieved_at_truth, study.power)]
        for p in study.plans
    ]  # fmt: skip
    truth_rows = [
        [f"{p.base} -> {p.new}", p.metric, f"{p.true_effect:+.3f}",
         f"{p.pilot_sd:.3f} / {p.pool_sd:.3f}", f"{p.pilot_icc:.2f} / {p.pool_icc:.2f}",
         p.planned, p.pilot_range, p.planned_from_pool, p.pool_plan_in_range,
         fmt(p.achieved_from_pool), _agrees(p.achieved_from_pool, study.power)]
        for p in study.plans
    ]  # fmt: skip
    method_rows = [
        [f"{p.base} -> {p.new}", p.metric, p.method, p.planned_from_pool,
         fmt(p.achieved_from_pool), _agrees(p.achieved_from_pool, study.power), p.other_method,
         p.planned_from_pool_other, fmt(p.achieved_from_pool_other),
         _agrees(p.achieved_from_pool_other, study.power)]
        for p in study.plans if p.achieved_from_pool is not None
    ]  # fmt: skip
    seq_rows = [
        [f"{p.base} -> {p.new}", p.metric,
         *_fixed_cells(p.at_plan),
         "-" if p.sequential_power is None else f"{p.sequential_looks} x {p.sequential_batch}",
         fmt(p.sequential_power), fmt(p.sequential_wrong_way),
         "-" if p.sequential_mean_episodes is None else f"{p.sequential_mean_episodes:.1f}",
         _saved(p)]
        for p in study.plans
    ]  # fmt: skip
    power_rows = [
        [f"{p.base} -> {p.new}", p.metric, f"{e.power:g}",
         "-" if e.fixed_episodes is None else str(e.fixed_episodes), fmt(e.fixed_power),
         *[cell for kind in SPENDINGS
           for cell in _at_power(e.sequential.get(kind), e.fixed_episodes, e.power, kind)]]
        for level in EQUAL_POWERS for p in study.plans for e in p.equal_power if e.power == level
    ]  # fmt: skip
    theory_rows = [
        [f"{power:g}", looks,
         *[cell for kind in SPENDINGS for cell in _theory(efficiency(looks, ALPHA, power, kind))]]
        for power in EQUAL_POWERS for looks in THEORY_LOOKS
    ]  # fmt: skip
    names = [f"{b} -> {n} {m}" for b, n, m in study.board]
    board_rows = [
        [r.rule, f"{r.outcome.mean_episodes:.1f}", _fewer(r.outcome.mean_episodes, study),
         fmt(r.outcome.stopped_early),
         *[f"{right.rate:.2f} / {wrong.rate:.2f}"
           for right, wrong in zip(r.outcome.right, r.outcome.wrong, strict=True)]]
        for r in study.board_rows
    ]  # fmt: skip
    field_rows = [
        [f"{f['base']} -> {f['new']}", f["metric"], f"{f['true_effect']:+.3f}",
         f"{f['scenarios']} x {f['epochs']}", f"{f['alpha']:.4f}", f["achieved_text"]]
        for f in study.field_suite
    ]  # fmt: skip
    return (
        "# Proof by simulation: power plans and the sequential gate at sim/field\n\n"
        f"Written by `{study.command}` (scripts/power_study.py; method and limits in its "
        "docstring and docs/statistics.md). Ground truth: the simulated agent at the field "
        f"profile's rates. Pools: the default suite, {study.pool_epochs} epochs per scenario x "
        f"{len(POOL_VARIANTS)} variants ({study.pool_episodes:,} episodes, seed "
        f"{study.pool_seed}); the field suite, {study.field_pool_epochs} epochs "
        f"({study.field_pool_episodes:,} episodes). Every repetition is drawn from a pool, "
        "not run afresh: repetitions overlap in the pool's episodes, so they are not fully "
        "independent and the Clopper-Pearson 95% intervals below (which assume they are) are "
        "somewhat too narrow.\n\n"
        f"## A/A: false alarms of the sequential gate ({study.reps_aa} repetitions)\n\n"
        "A variant against itself, the two sides on disjoint pool epochs, 12 scenarios, alpha "
        f"{study.alpha} over both metrics ({', '.join(METRICS)}; "
        "`harness.stats.sequential_looks.look`, the code `run --until-decided` runs). A false "
        "alarm: any comparison decided better or worse. Two designs: the documented default "
        f"({study.looks} looks of {study.batch} epochs), each variant twice on the same draws, "
        "with the gate (`sign-flip bound`) and without its sign-flip bound (`t quantile "
        f"alone`, the method before it); and the recommended one ({AA_ONE_EPOCH_LOOKS} looks "
        "of one epoch), with the gate, with Pocock-type spending (`--spending pocock`) and with "
        f"a futility stop (`--futility {FUTILITY}` at the MDEs of the board below). "
        "Per metric: the runs in which that metric raised a "
        "false alarm; per look: the runs whose first false alarm was raised at each look.\n\n"
        + table(
            aa_rows,
            [
                "variant",
                "looks x epochs",
                "method",
                "false alarms",
                "rate [95% CI]",
                f"<= alpha {study.alpha}",
                "upper bound <= alpha",
                *[f"by {m}" for m in METRICS],
                "by look",
                "mean episodes",
            ],
        )  # fmt: skip
        + "\n\nWhat the last look's pooled within-scenario variance rests on (the same draws; "
        "medians over the repetitions where the metric varied): the degrees of freedom the t "
        "quantile is given (n pairs - k scenarios + 1), Satterthwaite's count of them from the "
        "per-scenario variances, and the largest scenario's share of the pooled variance.\n\n"
        + table(
            pooled_rows,
            ["variant", "metric", "df given", "df (Satterthwaite)", "largest scenario's share"],
        )
        + f"\n\n## Fixed-size plans (`todo-bench power {PILOT.relative_to(ROOT)}`, alpha "
        f"{study.alpha}, power {study.power}) against the truth ({study.reps_fixed} simulated "
        "runs each)\n\n"
        "Each plan's run is drawn from the pool (scenarios with replacement from the 12, "
        "epochs with replacement within each) and tested as the planner assumes (t-test on the "
        "scenario means of the paired differences). `agrees`: the plan's power lies in the "
        "achieved power's interval. The pilot's effect is an estimate: a plan for it is a plan "
        "for that effect, so the second pair of columns plans with the pool's true effect as "
        "the MDE, which tests the planner itself.\n\n"
        + table(
            plan_rows,
            [
                "base -> new",
                "metric",
                "pilot effect",
                "true effect",
                "method",
                "plan (pilot)",
                "achieved power",
                "agrees",
                "plan (true MDE)",
                "achieved power",
                "agrees",
            ],
        )  # fmt: skip
        + "\n\n### The planner given the truth\n\n"
        "The same planner on the pool itself: its effect and its variance components (the "
        "standard deviation and ICC of the paired differences, pilot / pool), at the pilot's "
        "epochs per scenario, so a plan misses its power only by the planner's own "
        "arithmetic (its closed form or its resampling), not by a pilot's sampling error. "
        "Where the pilot's row above misses and this row agrees, the pilot's estimates "
        "(effect or spread) were off. `pilot's range`: what `todo-bench power` prints beside "
        "its plan, the plan were the effect at either end of its 95% interval (`from N`: the "
        "interval reaches 0); `in range`: the pool's plan lies in it.\n\n"
        + table(
            truth_rows,
            [
                "base -> new",
                "metric",
                "true effect",
                "sd (pilot / pool)",
                "ICC (pilot / pool)",
                "plan (pilot)",
                "pilot's range",
                "plan (pool)",
                "in range",
                "achieved power",
                "agrees",
            ],
        )  # fmt: skip
        + "\n\n### Closed form or simulation, given the truth\n\n"
        "The same plans from the pool by either method (`auto` is the closed form for a "
        "rate, the simulation for a count): which one reaches the power it plans for.\n\n"
        + table(
            method_rows,
            [
                "base -> new",
                "metric",
                "auto",
                "plan (pool)",
                "achieved power",
                "agrees",
                "other",
                "plan (pool)",
                "achieved power",
                "agrees",
            ],
        )  # fmt: skip
        + f"\n\n## Sequential against fixed ({study.reps_ab} A/B repetitions each)\n\n"
        f"One comparison watched at alpha {study.alpha}, both runs on the suite's own 12 "
        "scenarios, both judged by the gate's own test (`harness.stats.sequential_looks.look`), so "
        "both answer the sequential run's question (are the designs different on these "
        "scenarios?). The fixed run: the fewest epochs (1 to "
        f"{FIXED_MOST}) whose single look decides the comparison the right way in at least "
        f"{study.power} of the draws (the same draws at every size), with that power. The "
        "sequential run as docs/statistics.md recommends: batches of one epoch, as many looks "
        "as the fixed run's epochs (`--until-decided --epochs 1 --max-batches E`), so it never "
        "runs more episodes than the fixed run. Power: the share decided the right way (the "
        "pool's direction); episodes count both variants; `saved`: the sequential run's mean "
        "episodes against the fixed run's.\n\n"
        + table(
            seq_rows,
            [
                "base -> new",
                "metric",
                "fixed on suite",
                "its power",
                "fixed episodes",
                "sequential looks x epochs",
                "sequential power",
                "decided the wrong way",
                "mean episodes",
                "saved",
            ],
        )  # fmt: skip
        + "\n\n### At equal power, by spending function\n\n"
        "The same question with the number of looks free: the fewest looks of one epoch "
        f"(2 to {2 * FIXED_MOST}) whose sequential run decides the comparison the right way "
        "in at least the power of the draws, the same draws at every size (`--spending "
        "obrien-fleming`, the default, and `--spending pocock`), against the fixed run (the "
        f"fewest epochs, 1 to {FIXED_MOST}, that reach it): at the plan's power "
        f"{study.power} and at {EQUAL_POWERS[-1]:g}. `theory`: what the same design saves on "
        "average at those looks when the statistic is normal (the table below), so a row "
        "short of a quarter can be told from a design that cannot save one.\n\n"
        + table(
            power_rows,
            [
                "base -> new",
                "metric",
                "power",
                "fixed episodes",
                "its power",
                "O'Brien-Fleming: looks",
                "power",
                "mean episodes",
                "saved",
                "theory",
                "Pocock: looks",
                "power",
                "mean episodes",
                "saved",
                "theory",
            ],
        )  # fmt: skip
        + "\n\n### What the designs can save at best\n\n"
        "The same designs on a normal statistic of known variance, the large-sample limit of "
        "the gate's test (`harness.stats.sequential_efficiency`, by the boundaries' own "
        "numerical integration): the largest run a design of so many equally spaced looks "
        "needs for the power (over the fixed run's size), and its mean size at the stop when "
        "the difference is there, as the share of the fixed run it saves. "
        + _quarter_text()
        + " The pool's rows above differ from these by the epochs' "
        "granularity (a fixed run of whole epochs overshoots the power it is sized for), the "
        "gate's small-sample critical values (the t quantile and the sign-flip bound), and "
        "the draws.\n\n"
        + table(
            theory_rows,
            [
                "power",
                "looks",
                "O'Brien-Fleming: largest",
                "saved",
                "Pocock: largest",
                "saved",
            ],
        )  # fmt: skip
        + f"\n\n## A whole board: futility and tolerance ({study.reps_ab} repetitions)\n\n"
        + _board_text(study, names, board_rows)
        + "\n\n## The field suite's planned run (scripts/field_suite.py)\n\n"
        "The board's planned size, drawn from the field-suite pool (scenarios with "
        "replacement from its 8), the planner's test at the board's per-comparison alpha.\n\n"
        + table(
            field_rows,
            [
                "base -> new",
                "metric",
                "true effect",
                "scenarios x epochs",
                "alpha",
                "achieved power [95% CI]",
            ],
        )  # fmt: skip
        + "\n"
    )


def _at_power(
    design: SequentialDesign | None, fixed: int | None, power: float, kind: Spending
) -> list[str]:
    if design is None:
        return ["none", "-", "-", "-", "-"]
    saved = "-" if fixed is None else _share(design.mean_episodes, fixed)
    theory = efficiency(design.looks, ALPHA, power, kind)
    return [
        str(design.looks),
        design.power.text,
        f"{design.mean_episodes:.1f}",
        saved,
        _share(theory.expected, 1),
    ]


def _quarter_text() -> str:
    """Where in the theory's table a design first saves a quarter, per power."""
    parts = []
    for power in EQUAL_POWERS:
        found = []
        for kind in SPENDINGS:
            looks = next(
                (k for k in THEORY_LOOKS if efficiency(k, ALPHA, power, kind).saved >= 0.25), None
            )
            name = SPENDING_NAMES[kind]
            found.append(f"{name} {'never' if looks is None else f'from {looks} looks'}")
        parts.append(f"at power {power:g}: {', '.join(found)}")
    return "A quarter fewer, " + "; ".join(parts) + "."


def _theory(design: Efficiency) -> list[str]:
    return [f"{design.largest:.3f}", _share(design.expected, 1)]


def _share(episodes: float, fixed: int) -> str:
    saved = 1 - episodes / fixed
    return f"{abs(saved):.0%} {'fewer' if saved >= 0 else 'more'}"


def _fewer(episodes: float, study: Study) -> str:
    if study.board_epochs is None:
        return "-"
    variants = len({v for b, n, _ in study.board for v in (b, n)})
    return _share(episodes, study.board_epochs * 12 * variants)


def _board_text(study: Study, names: list[str], rows: list[list[str]]) -> str:
    if study.board_epochs is None:
        return "No fixed run of the board reaches the power within the pool's epochs.\n"
    variants = len({v for b, n, _ in study.board for v in (b, n)})
    mde = ", ".join(f"{m} {v:g}" for m, v in study.mde.items())
    return (
        f"The {len(study.board)} comparisons of {len(BOARD_PAIRS)} pairs on both metrics "
        f"watched at once, alpha {study.alpha} over them, as `run --until-decided` watches a "
        "board; one of them has no difference at all in the pool "
        "(L4-inject -> L4-inject+gate on dropped_todos: neither drops anything). Its fixed "
        f"run: {study.board_epochs} epochs x 12 scenarios x {variants} variants "
        f"({study.board_epochs * 12 * variants} episodes), the fewest at which every "
        "comparison with a difference reaches the power by the gate's one-look test at its "
        "share of alpha. The sequential runs plan as many looks of one epoch (so never more "
        "episodes) and stop when every comparison is decided. The MDE per metric (the "
        "futility stop's, and the tolerance row's): the smallest true difference among the "
        f"study's comparisons, {mde}. Per comparison: the share decided the right way (a "
        "difference: its direction; none: not declared) / the share decided the wrong way.\n\n"
        + table(
            rows,
            ["rule", "mean episodes", "against fixed", "stopped before the budget", *names],
        )
    )


def table(rows: Sequence[Sequence[object]], headers: list[str]) -> str:
    return str(tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True))


def _in_range(pilot: Plan, scenarios: int | None) -> str:
    """Whether a size lies in the pilot's range (fewest at the far end of the effect's
    interval, most at the near end; no most when the interval reaches 0)."""
    if scenarios is None or pilot.range_fewest is None or pilot.scenarios is None:
        return "-"
    most = pilot.range_most if pilot.range_most is not None else math.inf
    return "yes" if pilot.range_fewest <= scenarios <= most else "NO"


def _size(p: Plan) -> str:
    return f"{p.scenarios} x {p.epochs}" if p.scenarios is not None else p.note


def _fixed_cells(fixed: EqualPower | None) -> list[str]:
    if fixed is None or fixed.fixed_epochs is None:
        return ["-", fmt(None if fixed is None else fixed.fixed_power), "-"]
    return [f"12 x {fixed.fixed_epochs}", fmt(fixed.fixed_power), str(fixed.fixed_episodes)]


def _saved(p: PlanCheck) -> str:
    fixed = p.at_plan
    if fixed is None or fixed.fixed_episodes is None or p.sequential_mean_episodes is None:
        return "-"
    return _share(p.sequential_mean_episodes, fixed.fixed_episodes)


def _agrees(achieved: Rate | None, power: float) -> str:
    if achieved is None:
        return "-"
    if achieved.ci_low <= power <= achieved.ci_high:
        return "yes"
    return "above" if achieved.ci_low > power else "BELOW"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pool-epochs", type=int, default=40)
    parser.add_argument("--field-pool-epochs", type=int, default=16)
    parser.add_argument("--pool-seed", type=int, default=1000)
    parser.add_argument("--reps-fixed", type=int, default=1000)
    parser.add_argument("--reps-aa", type=int, default=400)
    parser.add_argument("--reps-ab", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0, help="seed of the draws (0)")
    parser.add_argument("--work", default=str(ROOT / "build/power-study"), help="pool runs")
    parser.add_argument("--out", default=str(ROOT / "results/power"))
    args = parser.parse_args()
    work, out = Path(args.work), Path(args.out)
    start = time.perf_counter()
    default_run = run_pool(work / "pool-default", None, args.pool_epochs, args.pool_seed)
    field_run = run_pool(work / "pool-field", "field", args.field_pool_epochs, args.pool_seed)
    pool = pool_of(default_run, list(POOL_VARIANTS))
    field = pool_of(field_run, list(POOL_VARIANTS))
    pooled = time.perf_counter()
    need = 2 * max(BATCH * LOOKS, AA_ONE_EPOCH_LOOKS)
    if pool_epochs(pool) < need:
        print(f"power_study: A/A needs --pool-epochs >= {need}", file=sys.stderr)
        return 2
    mde = study_mde(pool)
    futile = Futility(threshold=FUTILITY, mde=mde)
    designs = [(LOOKS, BATCH, method, rule) for method, rule in AA_METHODS]
    designs.append((AA_ONE_EPOCH_LOOKS, 1, AA_METHODS[0][0], AA_METHODS[0][1]))
    designs.append((AA_ONE_EPOCH_LOOKS, 1, "Pocock-type", Rule(spending="pocock")))
    designs.append((AA_ONE_EPOCH_LOOKS, 1, f"futility {FUTILITY}", Rule(futility=futile)))
    aa = []
    for looks, batch, method, rule in designs:
        for k, variant in enumerate(AA_VARIANTS):
            alarms, outcomes = aa_sequential(
                pool, variant, list(METRICS), args.reps_aa, batch, looks, ALPHA, args.seed + k,
                rule,
            )  # fmt: skip
            mean = sum(o.episodes for o in outcomes) / len(outcomes)
            aa.append(
                AACheck(
                    variant=variant,
                    method=method,
                    looks=looks,
                    batch=batch,
                    metrics=list(METRICS),
                    false_alarms=alarms,
                    by_metric=alarms_by_metric(outcomes, list(METRICS)),
                    by_look=alarms_by_look(outcomes, looks),
                    mean_episodes=mean,
                )
            )
    aa.sort(key=lambda a: (a.looks != LOOKS, AA_VARIANTS.index(a.variant)))
    aa_pooled = [
        pooled_df(pool, variant, metric, args.reps_aa, BATCH * LOOKS, args.seed + k)
        for k, variant in enumerate(AA_VARIANTS)
        for metric in METRICS
    ]
    plans = [
        check(pool, default_run, base, new, metric, args, args.seed + 10 * (i + 1))
        for i, (base, new, metric) in enumerate((b, n, m) for b, n in PAIRS for m in METRICS)
    ]
    board_epochs, board_rows = board(pool, mde, args)
    flags = [
        f"--pool-epochs {args.pool_epochs}" if args.pool_epochs != 40 else "",
        f"--field-pool-epochs {args.field_pool_epochs}" if args.field_pool_epochs != 16 else "",
    ]
    study = Study(
        command=" ".join(["python scripts/power_study.py", *[f for f in flags if f]]),
        pool_seed=args.pool_seed,
        pool_epochs=pool_epochs(pool),
        field_pool_epochs=pool_epochs(field),
        pool_episodes=episodes_of(pool),
        field_pool_episodes=episodes_of(field),
        reps_fixed=args.reps_fixed,
        reps_aa=args.reps_aa,
        reps_ab=args.reps_ab,
        batch=BATCH,
        looks=LOOKS,
        alpha=ALPHA,
        power=POWER,
        aa=aa,
        aa_pooled=aa_pooled,
        plans=plans,
        field_suite=field_suite(field, args),
        mde=mde,
        board=[(b, n, m) for b, n in BOARD_PAIRS for m in METRICS],
        board_epochs=board_epochs,
        board_rows=board_rows,
    )
    # the timings go to the terminal, not the files: the same command gives the same bytes
    print(
        f"power_study: pools {pooled - start:.0f} s, analysis {time.perf_counter() - pooled:.0f} s",
        file=sys.stderr,
    )
    out.mkdir(parents=True, exist_ok=True)
    (out / "study.json").write_text(study.model_dump_json(indent=2) + "\n", encoding="utf-8")
    text = render(study)
    (out / "study.md").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
