"""The board's account of a sequential run (`run --until-decided`): how and why it stopped,
each watched comparison's decision, and every look. Pure rendering of the summary's record."""

from __future__ import annotations

import html

from tabulate import tabulate

from harness.results.summary import LookDecision, SequentialRecord


def _interval(d: LookDecision) -> str:
    return f"{d.effect:+.3f} [{d.ci_low:+.3f}, {d.ci_high:+.3f}]"


def _power(d: LookDecision) -> str:
    return "-" if d.conditional_power is None else f"{d.conditional_power:.3f}"


def headline(record: SequentialRecord) -> str:
    """One line: how the run stopped and why."""
    return (
        f"Sequential run stopped: {record.stopped}. {record.reason[:1].upper()}{record.reason[1:]}."
    )


def section(record: SequentialRecord, tablefmt: str = "github", looks: bool = True) -> str:
    """The stop line, the method, the decisions (and, with `looks`, every look's)."""
    futility = record.futility is not None
    decisions = tabulate(
        [
            [
                f"{d.base} -> {d.new}",
                d.metric,
                d.verdict,
                d.decided_at or "-",
                d.pairs,
                _interval(d),
                *([_power(d)] if futility else []),
            ]
            for d in record.decisions
        ],
        headers=[
            "base -> new",
            "metric",
            "decision",
            "at look",
            "pairs",
            "effect [RCI]",
            *(["cond. power at MDE"] if futility else []),
        ],
        tablefmt=tablefmt,
        disable_numparse=True,
    )
    method = (
        f"{record.method}; alpha {record.alpha:g} two-sided over every comparison and look "
        f"({record.alpha_each:.4g} each); {record.planned_looks} looks planned of "
        f"{record.batch_epochs} epochs per scenario each."
    )
    lines = [headline(record), method]
    if tablefmt == "html":  # the page's tables are tabulate's html; its lines are paragraphs
        lines = [f"<p>{html.escape(line)}</p>" for line in lines]
    parts = [*lines, decisions]
    if looks:
        rows = [
            [
                e.look,
                e.epochs,
                f"{e.episodes:,}",
                "n/a" if e.cost_usd is None else f"{e.cost_usd:,.4f}",
                f"{e.boundary:.3f}",
                f"{e.alpha_spent:.2g}",
                f"{sum(d.decided_at is not None for d in e.decisions)} of {len(e.decisions)}",
            ]
            for e in record.looks
        ]
        headers = ["look", "epochs", "episodes", "cost USD", "z bound", "alpha spent", "decided"]
        parts.append(tabulate(rows, headers=headers, tablefmt=tablefmt, disable_numparse=True))
    return "\n\n".join(parts) + "\n"
