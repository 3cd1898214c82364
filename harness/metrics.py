"""Every metric, declared once: the scorer's output keys, the leaderboard columns, the CSV and
JSON fields, what `compare` watches and which way is better all come from this table, and
docs/metrics.md names every metric in it (`tests/test_metrics.py` fails when one of them does not).

To add a metric: one `Metric(...)` line here (in the order the scorer reports it), and its
detector in `harness/scoring/scorer.py` (a detector `detect` runs fills `Counts.values[name]` and
declares it in its `@produces(...)`; a declared metric no detector produces fails the tests).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Direction = Literal["higher", "lower", "none"]
Table = Literal["outcomes", "corruption", "calls", "price"]


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


OUTCOMES: Table = "outcomes"
CORRUPTION: Table = "corruption"
CALLS: Table = "calls"
PRICE: Table = "price"
DECLARED: tuple[Metric, ...] = (
    Metric(
        "task_success",
        "rate",
        "higher",
        "success",
        OUTCOMES,
        "every outcome check of the final workspace passes",
        watched=True,
        brief=True,
    ),
    Metric(
        "pass_k",
        "rate",
        "higher",
        "pass^k",
        OUTCOMES,
        "share of scenarios solved in all k epochs (pass^k)",
        episode=False,
    ),
    Metric(
        "false_completion",
        "rate",
        "lower",
        "false done",
        OUTCOMES,
        "the episode ended on a claim of completion while an outcome check fails",
        watched=True,
        brief=True,
    ),
    Metric(
        "false_completion_past_gate",
        "rate",
        "lower",
        "false done past gate",
        OUTCOMES,
        "a false completion where every active subtask had been ticked",
    ),
    Metric(
        "gave_up",
        "rate",
        "none",
        "gave up",
        OUTCOMES,
        "the episode ended with the agent admitting failure",
    ),
    Metric(
        "asked_user",
        "rate",
        "none",
        "asked user",
        OUTCOMES,
        "the episode ended with a question to the user",
    ),
    # the headline pair: the same question for every design, whichever tool did it (a rewrite
    # of the whole list, a delete or an update of one item); the columns after them say how
    Metric(
        "lost_todos",
        "count",
        "lower",
        "lost",
        CORRUPTION,
        "an item left the list, unasked, by any tool, finished or not (dropped + lost history"
        " in rewrites + unasked deletes)",
        watched=True,
        corruption=True,
        brief=True,
    ),
    Metric(
        "changed_todos",
        "count",
        "lower",
        "changed",
        CORRUPTION,
        "an item stayed on the list but its text changed, unasked, by any tool (mutated +"
        " unasked renames)",
        watched=True,
        corruption=True,
        brief=True,
    ),
    Metric(
        "dropped_todos",
        "count",
        "lower",
        "dropped",
        CORRUPTION,
        "an unfinished item left the list in an accepted rewrite, unasked",
        watched=True,
        corruption=True,
    ),
    Metric(
        "mutated_text",
        "count",
        "lower",
        "mutated",
        CORRUPTION,
        "an item kept its id but its text changed to a related text, unasked",
        watched=True,
        corruption=True,
    ),
    Metric(
        "invented_todos",
        "count",
        "lower",
        "invented",
        CORRUPTION,
        "a rewrite after the first plan added an item naming no subtask and never listed before",
        watched=True,
        corruption=True,
    ),
    Metric(
        "id_churn",
        "count",
        "lower",
        "id churn",
        CORRUPTION,
        "an item's exact text reappeared under another id",
        watched=True,
        corruption=True,
    ),
    Metric(
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
    Metric(
        "unmatched_todos",
        "count",
        "none",
        "unmatched",
        CORRUPTION,
        "distinct item texts that name no subtask",
    ),
    Metric(
        "lost_history",
        "count",
        "lower",
        "lost history",
        CORRUPTION,
        "a completed item left the list, unasked",
        watched=True,
    ),
    Metric(
        "fake_tool_calls",
        "count",
        "lower",
        "fake calls",
        CALLS,
        "a tool call written as text instead of made",
    ),
    Metric(
        "recovered_tool_calls",
        "count",
        "none",
        "recovered",
        CALLS,
        "text calls the recover/ wrapper turned into real calls",
    ),
    Metric(
        "malformed_tool_calls",
        "count",
        "lower",
        None,
        None,
        "tool calls the harness could not run (unknown tool, bad arguments)",
    ),
    Metric(
        "unsanctioned_deletes",
        "count",
        "lower",
        "unasked deletes",
        CORRUPTION,
        "a call other than a rewrite removed an item, unasked",
    ),
    Metric(
        "unsanctioned_renames",
        "count",
        "lower",
        "unasked renames",
        CORRUPTION,
        "a call other than a rewrite changed an item's text, unasked",
    ),
    Metric(
        "rejected_updates", "count", "none", "rejected", PRICE, "todo updates the backend refused"
    ),
    Metric(
        "cap_refusals",
        "count",
        "none",
        "cap refused",
        PRICE,
        "refused updates whose list would exceed the design's item cap",
    ),
    Metric(
        "blocked_completions",
        "count",
        "none",
        "blocked",
        PRICE,
        "claims of completion the gate refused",
    ),
    Metric("budget_exhausted", "rate", "lower", "out of turns", PRICE, "the turn budget ran out"),
    Metric(
        "gate_exhausted",
        "rate",
        "lower",
        "gate held to end",
        PRICE,
        "the budget ran out on a claim the gate refused",
    ),
    Metric("turns", "cost", "lower", "turns", PRICE, "assistant turns"),
    Metric(
        "todo_tool_calls", "cost", "lower", "todo calls", PRICE, "todo tool calls, reads included"
    ),
    Metric(
        "todo_updates",
        "cost",
        "none",
        None,
        None,
        "todo calls other than reads, accepted or refused",
    ),
    Metric("input_tokens", "cost", "lower", "in tok", PRICE, "prompt tokens, cache hits included"),
    Metric("cache_read_tokens", "cost", "none", None, None, "the cached part of the prompt tokens"),
    Metric("output_tokens", "cost", "lower", "out tok", PRICE, "reply tokens"),
    Metric(
        "todo_output_tokens",
        "cost",
        "lower",
        "todo tok",
        PRICE,
        "the share of reply tokens spent writing todo calls",
        brief=True,
    ),
    Metric(
        "injected_tokens",
        "cost",
        "lower",
        "inject tok",
        PRICE,
        "tokens of the current list the design put into the prompt (L4: each turn's block; a CLI"
        " row's inject hook: each context it added), estimated from characters, each counted once",
    ),
    Metric(
        "cost_usd",
        "cost",
        "lower",
        "cost $",
        PRICE,
        "USD per episode at the price table's rate",
        episode=False,
    ),
    Metric(
        "plan_items", "count", "none", None, None, "deployable gate: items of the plan it tracks"
    ),
    Metric("plan_ticks", "count", "none", None, None, "deployable gate: its ticks"),
    Metric(
        "plan_judged_ticks",
        "count",
        "none",
        None,
        None,
        "deployable gate: ticks the oracle can judge",
    ),
    Metric(
        "plan_true_ticks",
        "count",
        "none",
        None,
        None,
        "deployable gate: judged ticks that were true",
    ),
    Metric(
        "plan_done_items",
        "count",
        "none",
        None,
        None,
        "deployable gate: plan items whose work was done",
    ),
    Metric(
        "plan_missed_ticks",
        "count",
        "none",
        None,
        None,
        "deployable gate: items done that it never ticked",
    ),
    Metric(
        "false_blocks",
        "count",
        "lower",
        None,
        None,
        "deployable gate: claims refused while every subtask was done",
    ),
    Metric(
        "false_block_turns",
        "count",
        "lower",
        None,
        None,
        "deployable gate: turns that followed false blocks",
    ),
    Metric(
        "false_block_tokens",
        "count",
        "lower",
        None,
        None,
        "deployable gate: tokens that followed false blocks",
    ),
    Metric(
        "completion_loop_nudges",
        "count",
        "none",
        None,
        None,
        "CompletionLoop: idle answers refused",
    ),
    Metric("extensions", "count", "none", None, None, "LoopController: turn-budget extensions"),
    Metric(
        "planner_tokens", "count", "none", None, None, "IntentPlanner: the planning call's tokens"
    ),
    Metric("planner_failed", "rate", "lower", None, None, "IntentPlanner: no usable plan"),
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
#: the metrics `todo-bench power` plans a pair of variants on, and `run --until-decided`
#: watches, unless told otherwise
DEFAULT_PAIRED_METRICS = "task_success,dropped_todos"
#: the brief board's columns, in declaration order
BRIEF: tuple[tuple[str, str], ...] = tuple(
    (m.name, m.header) for m in DECLARED if m.brief and m.header is not None
)
CAPTIONS: dict[Table, str] = {
    "outcomes": "Outcomes (per episode)",
    "corruption": "List corruption (per episode)",
    # how the agent made its calls, not what they did to the list: its own table, which keeps
    # the list's columns within a page's width
    "calls": "Tool calls (per episode)",
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
