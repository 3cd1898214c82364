"""The field-rate power suite's board (issue #42 item 3): the plan from its pilot, and what a run
of the planned size shows. Writes results/field-suite/board.md and board.json.

    .venv/bin/todo-bench run --model sim/field --scenarios field --epochs 2 --seed 100 \\
        --variants L0-rewrite,L2-whitelist,L4-inject,L4-inject+gate --out results/field-suite/pilot
    .venv/bin/python scripts/field_suite.py --plan        # prints the planned epochs
    .venv/bin/todo-bench run --model sim/field --scenarios field --epochs <planned> --seed 0 \\
        --variants L0-rewrite,L2-whitelist,L4-inject,L4-inject+gate --out results/field-suite/run
    .venv/bin/python scripts/field_suite.py               # the board

The plan: `todo-bench power`'s rows (harness.stats.power_plan.plan) for the watched comparisons at
alpha 0.05 / their number (Bonferroni, as docs/statistics.md advises for a Holm-corrected family),
on the suite's own scenarios (the pilot's); the run's size is the most epochs any comparison
needs, leaving out a comparison that needs more than MAX_EPOCHS (it is listed as not planned
for). The run: paired tests between designs (exact McNemar for rates, sign-flip permutation for
counts; harness.stats.intervals), Holm across the watched comparisons. Achieved power, where
results/power/study.json has the field suite, is the simulation study's (scripts/power_study.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pydantic import BaseModel
from tabulate import tabulate

from harness.results.summary import Summary, read_summary
from harness.stats.intervals import Test, holm, paired_test
from harness.stats.power_plan import Plan, plan

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "results/field-suite"
STUDY = ROOT / "results/power/study.json"
PAIRS = (
    ("L0-rewrite", "L2-whitelist"),
    ("L4-inject", "L4-inject+gate"),
    ("L0-rewrite", "L4-inject+gate"),
)
METRICS = ("task_success", "dropped_todos")
ALPHA = 0.05
POWER = 0.8
#: a run of more epochs per scenario than this does not fit this machine's minutes
MAX_EPOCHS = 16


class Board(BaseModel):
    """board.json: the plan, the planned and the run's size, and the run's tests."""

    pilot: str
    run: str
    alpha_each: float
    planned_epochs: int
    run_epochs: int
    scenarios: int
    plans: list[Plan]
    not_planned_for: list[str]
    tests: list[Test]
    achieved_power: dict[str, float | str]


def plans(pilot: Summary) -> list[Plan]:
    alpha = ALPHA / (len(PAIRS) * len(METRICS))
    return [
        plan(pilot, base, new, metric, alpha=alpha, power=POWER)
        for base, new in PAIRS
        for metric in METRICS
    ]


def planned_epochs(rows: list[Plan]) -> tuple[int, list[str]]:
    """The most epochs on the suite's scenarios any comparison needs (up to MAX_EPOCHS), and
    the comparisons left out (not plannable, or needing more)."""
    fits = [
        p.epochs_on_pilot_scenarios
        for p in rows
        if p.epochs_on_pilot_scenarios is not None and p.epochs_on_pilot_scenarios <= MAX_EPOCHS
    ]
    left = [
        f"{p.base} -> {p.new} {p.metric}: "
        + (
            p.note
            if p.epochs_on_pilot_scenarios is None and p.note
            else "more than the suite's scenarios can give"
            if p.epochs_on_pilot_scenarios is None
            else f"{p.epochs_on_pilot_scenarios} epochs (over {MAX_EPOCHS})"
        )
        for p in rows
        if p.epochs_on_pilot_scenarios is None or p.epochs_on_pilot_scenarios > MAX_EPOCHS
    ]
    return max(fits, default=2), left


def tests(run: Summary) -> list[Test]:
    episodes = {
        v.variant: {(e.scenario, e.epoch): e.values for e in v.per_episode} for v in run.variants
    }
    out = []
    for base, new in PAIRS:
        keys = sorted(episodes[base].keys() & episodes[new].keys())
        for metric in METRICS:
            a = [episodes[base][k].get(metric, 0.0) for k in keys]
            b = [episodes[new][k].get(metric, 0.0) for k in keys]
            out.append(paired_test(f"{base} -> {new}", metric, a, b))
    return holm(out)


def achieved() -> dict[str, float | str]:
    """The study's achieved power of the field suite's planned run, per comparison."""
    if not STUDY.is_file():
        return {}
    data = json.loads(STUDY.read_text(encoding="utf-8"))
    return {
        f"{r['base']} -> {r['new']} {r['metric']}": r["achieved_text"]
        for r in data.get("field_suite", [])
    }


def render(board: Board) -> str:
    plan_rows = [
        [
            f"{p.base} -> {p.new}",
            p.metric,
            f"{p.effect:+.3f}",
            p.method or "-",
            p.epochs_on_pilot_scenarios if p.epochs_on_pilot_scenarios is not None else p.note,
        ]
        for p in board.plans
    ]
    test_rows = [
        [
            t.variant,
            t.metric,
            f"{t.base_mean:.2f}",
            f"{t.new_mean:.2f}",
            f"{t.delta:+.2f} [{t.ci_low:+.2f}, {t.ci_high:+.2f}]",
            t.method,
            f"{t.p_holm:.2g}" if t.p_holm > 0 else "< 1e-6",
            "yes" if t.p_holm < ALPHA else "no",
            board.achieved_power.get(f"{t.variant} {t.metric}", "-"),
        ]
        for t in board.tests
    ]
    left = "".join(f"- {line}\n" for line in board.not_planned_for) or "- none\n"
    return (
        "# The field-rate power suite at sim/field\n\n"
        f"Suite: `--scenarios field` ({board.scenarios} scenarios, scenarios/field_lists.yaml). "
        f"Pilot: `{board.pilot}`; run: `{board.run}`. Written by `scripts/field_suite.py`.\n\n"
        f"## Plan (from the pilot, `todo-bench power`: power {POWER}, alpha {ALPHA} / "
        f"{len(board.plans)} = {board.alpha_each:.4f} per comparison)\n\n"
        + tabulate(
            plan_rows,
            headers=["base -> new", "metric", "pilot effect", "method", "epochs needed"],
            tablefmt="github",
            disable_numparse=True,
        )
        + f"\n\nPlanned run: {board.scenarios} scenarios x {board.planned_epochs} epochs "
        f"(the most any comparison needs, up to {MAX_EPOCHS}). Not planned for:\n\n{left}\n"
        f"## The run ({board.scenarios} scenarios x {board.run_epochs} epochs, Holm across "
        f"the {len(board.tests)} comparisons)\n\n"
        + tabulate(
            test_rows,
            headers=[
                "designs",
                "metric",
                "base",
                "new",
                "delta [95% CI]",
                "test",
                "p (Holm)",
                "separates",
                "achieved power [95% CI]",
            ],
            tablefmt="github",
            disable_numparse=True,
        )
        + "\n\nThe tests take the suite's scenarios as fixed (episodes are the draws); the "
        "plan's closed form and simulation plan for scenarios drawn from a population (a t-test "
        "on scenario means), a stricter question, so a comparison not planned for can still "
        "separate here. p-values are rounded to 6 decimals (`< 1e-6`: rounded to 0). Achieved "
        "power: the share of simulated runs of the planned size that reject by the plan's "
        "test, drawn from a pool of independent field-suite episodes (results/power/study.md).\n"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plan", action="store_true", help="print the planned epochs and stop")
    args = parser.parse_args()
    pilot = read_summary(FOLDER / "pilot/summary.json")
    rows = plans(pilot)
    epochs, left = planned_epochs(rows)
    if args.plan:
        print(epochs)
        return 0
    run_path = FOLDER / "run/summary.json"
    if not run_path.is_file():
        print(f"field_suite: no run at {run_path}", file=sys.stderr)
        return 2
    run = read_summary(run_path)
    board = Board(
        pilot="results/field-suite/pilot",
        run="results/field-suite/run",
        alpha_each=ALPHA / len(rows),
        planned_epochs=epochs,
        run_epochs=run.epochs,
        scenarios=len(run.scenarios),
        plans=rows,
        not_planned_for=left,
        tests=tests(run),
        achieved_power=achieved(),
    )
    (FOLDER / "board.json").write_text(board.model_dump_json(indent=2) + "\n", encoding="utf-8")
    text = render(board)
    (FOLDER / "board.md").write_text(text, encoding="utf-8")
    print(text)
    return 0 if run.epochs >= epochs else 1


if __name__ == "__main__":
    sys.exit(main())
