"""Every metric, declared once: the scorer's output keys, the leaderboard columns, the CSV and
JSON fields, what `compare` watches and which way is better, and the README's metric reference
all come from this table (`tests/test_metrics.py` fails when one of them does not).

To add a metric: one `Metric(...)` line here (in the order the scorer reports it), and its
detector in `harness/scoring.py` (`detect` fills `Counts.values[name]`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Direction = Literal["higher", "lower", "none"]
Table = Literal["outcomes", "corruption", "price"]


@dataclass(frozen=True)
class Metric:
    """One number the benchmark publishes."""

    name: str
    #: "rate": 0/1 per episode; "count": a count per episode; "cost": what an episode cost
    kind: Literal["rate", "count", "cost"]
    #: which way is better (the gate's sense of "worse"); "none": neither, a description
    direction: Direction
    #: the leaderboard column header, and the table it is in (None: not on the leaderboard)
    header: str | None
    table: Table | None
    doc: str
    #: `todo-bench compare` fails a run on a change in it
    watched: bool = False
    #: reports also give it per 100 todo updates
    corruption: bool = False
    #: a per-episode score (False: computed over a run, such as pass^k and cost)
    episode: bool = True
    #: in the brief board a terminal gets (120 columns)
    brief: bool = False


def _m(
    name: str,
    kind: Literal["rate", "count", "cost"],
    direction: Direction,
    header: str | None,
    table: Table | None,
    doc: str,
    **flags: bool,
) -> Metric:
    return Metric(name, kind, direction, header, table, doc, **flags)


OUTCOMES: Table = "outcomes"
CORRUPTION: Table = "corruption"
PRICE: Table = "price"
DECLARED: tuple[Metric, ...] = (
    _m(
        "task_success",
        "rate",
        "higher",
        "success",
        OUTCOMES,
        "every outcome check of the final workspace passes",
        watched=True,
        brief=True,
    ),
    _m(
        "pass_k",
        "rate",
        "higher",
        "pass^k",
        OUTCOMES,
        "share of scenarios solved in all k epochs (pass^k)",
        episode=False,
    ),
    _m(
        "false_completion",
        "rate",
        "lower",
        "false done",
        OUTCOMES,
        "the episode ended on a claim of completion while an outcome check fails",
        watched=True,
        brief=True,
    ),
    _m(
        "false_completion_past_gate",
        "rate",
        "lower",
        "false done past gate",
        OUTCOMES,
        "a false completion where every active subtask had been ticked",
    ),
    _m(
        "gave_up",
        "rate",
        "none",
        "gave up",
        OUTCOMES,
        "the episode ended with the agent admitting failure",
    ),
    _m(
        "asked_user",
        "rate",
        "none",
        "asked user",
        OUTCOMES,
        "the episode ended with a question to the user",
    ),
    _m(
        "dropped_todos",
        "count",
        "lower",
        "dropped",
        CORRUPTION,
        "an unfinished item left the list in an accepted rewrite, unasked",
        watched=True,
        corruption=True,
        brief=True,
    ),
    _m(
        "mutated_text",
        "count",
        "lower",
        "mutated",
        CORRUPTION,
        "an item kept its id but its text changed to a related text, unasked",
        watched=True,
        corruption=True,
        brief=True,
    ),
    _m(
        "invented_todos",
        "count",
        "lower",
        "invented",
        CORRUPTION,
        "a rewrite after the first plan added an item naming no subtask and never listed before",
        watched=True,
        corruption=True,
    ),
    _m(
        "id_churn",
        "count",
        "lower",
        "id churn",
        CORRUPTION,
        "an item's exact text reappeared under another id",
        watched=True,
        corruption=True,
    ),
    _m(
        "false_todo_completions",
        "count",
        "lower",
        "false ticks",
        CORRUPTION,
        "an item became completed while a subtask it names was not done",
        watched=True,
        corruption=True,
        brief=True,
    ),
    _m(
        "unmatched_todos",
        "count",
        "none",
        "unmatched",
        CORRUPTION,
        "distinct item texts that name no subtask",
    ),
    _m(
        "lost_history",
        "count",
        "lower",
        "lost history",
        CORRUPTION,
        "a completed item left the list, unasked",
        watched=True,
    ),
    _m(
        "fake_tool_calls",
        "count",
        "lower",
        "fake calls",
        CORRUPTION,
        "a tool call written as text instead of made",
    ),
    _m(
        "recovered_tool_calls",
        "count",
        "none",
        "recovered",
        CORRUPTION,
        "text calls the recover/ wrapper turned into real calls",
    ),
    _m(
        "malformed_tool_calls",
        "count",
        "lower",
        None,
        None,
        "tool calls the harness could not run (unknown tool, bad arguments)",
    ),
    _m(
        "unsanctioned_deletes",
        "count",
        "lower",
        "unasked deletes",
        CORRUPTION,
        "a call other than a rewrite removed an item, unasked",
    ),
    _m(
        "unsanctioned_renames",
        "count",
        "lower",
        "unasked renames",
        CORRUPTION,
        "a call other than a rewrite changed an item's text, unasked",
    ),
    _m("rejected_updates", "count", "none", "rejected", PRICE, "todo updates the backend refused"),
    _m(
        "cap_refusals",
        "count",
        "none",
        "cap refused",
        PRICE,
        "refused updates whose list would exceed the design's item cap",
    ),
    _m(
        "blocked_completions",
        "count",
        "none",
        "blocked",
        PRICE,
        "claims of completion the gate refused",
    ),
    _m("budget_exhausted", "rate", "lower", "out of turns", PRICE, "the turn budget ran out"),
    _m(
        "gate_exhausted",
        "rate",
        "lower",
        "gate held to end",
        PRICE,
        "the budget ran out on a claim the gate refused",
    ),
    _m("turns", "cost", "lower", "turns", PRICE, "assistant turns"),
    _m("todo_tool_calls", "cost", "lower", "todo calls", PRICE, "todo tool calls, reads included"),
    _m(
        "todo_updates",
        "cost",
        "none",
        None,
        None,
        "todo calls other than reads, accepted or refused",
    ),
    _m("input_tokens", "cost", "lower", "in tok", PRICE, "prompt tokens, cache hits included"),
    _m("cache_read_tokens", "cost", "none", None, None, "the cached part of the prompt tokens"),
    _m("output_tokens", "cost", "lower", "out tok", PRICE, "reply tokens"),
    _m(
        "todo_output_tokens",
        "cost",
        "lower",
        "todo tok",
        PRICE,
        "the share of reply tokens spent writing todo calls",
        brief=True,
    ),
    _m(
        "cost_usd",
        "cost",
        "lower",
        "cost $",
        PRICE,
        "USD per episode at the price table's rate",
        episode=False,
    ),
    _m("plan_items", "count", "none", None, None, "deployable gate: items of the plan it tracks"),
    _m("plan_ticks", "count", "none", None, None, "deployable gate: its ticks"),
    _m(
        "plan_judged_ticks",
        "count",
        "none",
        None,
        None,
        "deployable gate: ticks the oracle can judge",
    ),
    _m(
        "plan_true_ticks",
        "count",
        "none",
        None,
        None,
        "deployable gate: judged ticks that were true",
    ),
    _m(
        "plan_done_items",
        "count",
        "none",
        None,
        None,
        "deployable gate: plan items whose work was done",
    ),
    _m(
        "plan_missed_ticks",
        "count",
        "none",
        None,
        None,
        "deployable gate: items done that it never ticked",
    ),
    _m(
        "false_blocks",
        "count",
        "lower",
        None,
        None,
        "deployable gate: claims refused while every subtask was done",
    ),
    _m(
        "false_block_turns",
        "count",
        "lower",
        None,
        None,
        "deployable gate: turns that followed false blocks",
    ),
    _m(
        "false_block_tokens",
        "count",
        "lower",
        None,
        None,
        "deployable gate: tokens that followed false blocks",
    ),
    _m(
        "completion_loop_nudges",
        "count",
        "none",
        None,
        None,
        "CompletionLoop: idle answers refused",
    ),
    _m("extensions", "count", "none", None, None, "LoopController: turn-budget extensions"),
    _m("planner_tokens", "count", "none", None, None, "IntentPlanner: the planning call's tokens"),
    _m("planner_failed", "rate", "lower", None, None, "IntentPlanner: no usable plan"),
)
BY_NAME = {m.name: m for m in DECLARED}

#: the scorer's per-episode values, in the order it reports them
METRICS = tuple(m.name for m in DECLARED if m.episode)
#: what an episode cost rather than what went wrong
COST_METRICS = tuple(m.name for m in DECLARED if m.episode and m.kind == "cost")
#: counts that reports normalise per 100 todo updates
CORRUPTION_COUNTS = tuple(m.name for m in DECLARED if m.corruption)
#: what `todo-bench compare` watches, and which way is better
WATCHED: dict[str, Literal["higher", "lower"]] = {
    m.name: m.direction for m in DECLARED if m.watched and m.direction != "none"
}
#: the brief board's columns, in declaration order
BRIEF: tuple[tuple[str, str], ...] = tuple(
    (m.name, m.header) for m in DECLARED if m.brief and m.header is not None
)
CAPTIONS: dict[Table, str] = {
    "outcomes": "Outcomes (per episode)",
    "corruption": "List corruption (per episode)",
    "price": "Price of safety and cost (per episode)",
}
#: the leaderboard's tables: caption and (metric, header) columns, in declaration order
TABLES: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = tuple(
    (
        caption,
        tuple((m.name, m.header) for m in DECLARED if m.table == table and m.header is not None),
    )
    for table, caption in CAPTIONS.items()
)
