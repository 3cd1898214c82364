"""`todo-bench power`'s plans as a table: per pair and metric what the pilot shows and the run
it asks for, the sizes were the effect at either end of its interval, and the epochs that would
do on the pilot's own scenarios (`power_plan.py` plans them)."""

from __future__ import annotations

from typing import Literal

from tabulate import tabulate

from harness.stats.power_plan import Plan
from harness.stats.sample_size import MAX_EPOCHS

HEADERS = [
    "base -> new",
    "metric",
    "pairs",
    "effect [95% CI]",
    "var between",
    "var within",
    "ICC",
    "MDE",
    "method",
    "scenarios x epochs",
    "if the effect is at its CI's ends",
    "or on the pilot's",
    "episodes",
    "tokens",
    "cost USD",
]


def _row(p: Plan) -> list[object]:
    interval = (
        f" [{p.ci_low:+.3f}, {p.ci_high:+.3f}]"
        if p.ci_low is not None and p.ci_high is not None
        else ""
    )
    size = f"{p.scenarios} x {p.epochs}" if p.scenarios is not None else p.note
    return [
        f"{p.base} -> {p.new}",
        p.metric,
        p.pairs,
        f"{p.effect:+.3f}{interval}",
        f"{p.var_between:.4f}",
        f"{p.var_within:.4f}",
        f"{p.icc:.2f}",
        f"{p.mde:+.3f}",
        p.method or "-",
        size,
        range_text(p),
        _on_pilot(p),
        f"{p.episodes:,}" if p.episodes is not None else "-",
        f"{p.tokens:,.0f}" if p.tokens is not None else "-",
        f"{p.cost_usd:,.2f}" if p.cost_usd is not None else "n/a",
    ]


def range_text(p: Plan) -> str:
    """The plan's scenarios were the effect at either end of its interval: "4 - 40", or
    "from 4" when the interval reaches 0 (no run size is then enough for every effect it
    allows)."""
    if p.scenarios is None or p.mde != p.effect or p.ci_low is None or p.ci_high is None:
        return "-"  # not plannable, or planned for a stated --mde
    fewest = "?" if p.range_fewest is None else str(p.range_fewest)
    if p.range_most is None:
        near = p.ci_low if p.effect > 0 else p.ci_high
        return f"from {fewest} ({'CI reaches 0' if near * p.effect <= 0 else 'past the search'})"
    return f"{fewest} - {p.range_most}"


def _on_pilot(p: Plan) -> str:
    if not p.method:
        return "-"
    if p.epochs_on_pilot_scenarios is None:
        return f"{p.pilot_scenarios} x (> {MAX_EPOCHS}): too few scenarios"
    return f"{p.pilot_scenarios} x {p.epochs_on_pilot_scenarios}"


def render(plans: list[Plan], model: str, fmt: Literal["text", "md"] = "text") -> str:
    """The plans as a table under a one-line title naming the pilot and the test."""
    first = plans[0] if plans else None
    head = (
        f"Planned runs from the pilot of {model}: paired differences (new - base) by scenario "
        f"and epoch; 95% interval: percentile bootstrap over scenarios (scipy); two-sided "
        f"alpha {first.alpha if first else '-'}, power {first.power if first else '-'}; "
        "closed form: statsmodels TTestPower x design effect 1 + (m-1) ICC; simulation: "
        "resampled pilot, t-test on scenario means. Episodes count both variants."
    )
    table = tabulate(
        [_row(p) for p in plans],
        headers=HEADERS,
        tablefmt="github" if fmt == "md" else "simple",
        disable_numparse=True,
    )
    return f"{head}\n\n{table}\n"
