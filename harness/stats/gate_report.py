"""`todo-bench gate-accuracy RUN`: how the deployable gate (no oracle) did against the oracle.

Per variant (and per scenario with `--by-scenario`), from a run's summary.json:
- precision: true ticks / judged ticks of the heuristic tracker (a tick is true when every
  subtask its plan item names was already done by the scenario's rules);
- recall: done plan items it ticked / plan items the oracle saw done;
- false blocks: refused claims while the oracle had every subtask done, per episode, and the
  turns and tokens spent from the first one to the end;
- missed false completions: claims it let through while an outcome check failed, per episode;
- the stack's own counts: CompletionLoop nudges and LoopController extensions per episode, the
  IntentPlanner's tokens per episode and the episodes where it gave no usable plan.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from tabulate import tabulate

from harness.results.summary import EpisodeScores, Summary

HEADERS = [
    "variant",
    "episodes",
    "precision",
    "recall",
    "false blocks / ep",
    "eps with a false block",
    "turns after false block",
    "tokens after false block",
    "missed false completions / ep",
    "nudges / ep",
    "extensions / ep",
    "planner tok / ep",
    "planner failed",
]


def _ratio(numerator: float, denominator: float) -> str:
    return (
        f"{numerator / denominator:.2f} ({numerator:.0f}/{denominator:.0f})" if denominator else "-"
    )


def row(label: str, episodes: Iterable[EpisodeScores]) -> list[str]:
    eps = list(episodes)
    total: defaultdict[str, float] = defaultdict(float)
    for episode in eps:
        for name, value in episode.values.items():
            total[name] += value
    n = len(eps)
    blocked = sum(1 for e in eps if e.values.get("false_blocks", 0) > 0)
    done_items = total["plan_done_items"]
    return [
        label,
        str(n),
        _ratio(total["plan_true_ticks"], total["plan_judged_ticks"]),
        _ratio(done_items - total["plan_missed_ticks"], done_items),
        f"{total['false_blocks'] / n:.2f}",
        f"{blocked}/{n}",
        f"{total['false_block_turns'] / n:.1f}",
        f"{total['false_block_tokens'] / n:.0f}",
        f"{total['false_completion'] / n:.2f}",
        f"{total['completion_loop_nudges'] / n:.2f}",
        f"{total['extensions'] / n:.2f}",
        f"{total['planner_tokens'] / n:.0f}",
        f"{total['planner_failed']:.0f}/{n}",
    ]


def accuracy_table(summary: Summary, by_scenario: bool = False, fmt: str = "github") -> str:
    rows = []
    for variant in summary.variants:
        if not by_scenario:
            rows.append(row(variant.variant, variant.per_episode))
            continue
        scenarios: defaultdict[str, list[EpisodeScores]] = defaultdict(list)
        for episode in variant.per_episode:
            scenarios[episode.scenario].append(episode)
        rows += [row(f"{variant.variant} / {s}", eps) for s, eps in sorted(scenarios.items())]
    return tabulate(rows, headers=HEADERS, tablefmt=fmt)
