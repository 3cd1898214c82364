"""The completion gate on the product's `Stop` (Claude Code's, Codex CLI's; Gemini CLI's
AfterAgent): a final message that claims the work is done is refused while the gate's tracker has
pending items, by the harness's own verdict (`harness/episode/gate/verdict.py`: only a claim is
gated; an admission of failure or a question to the user goes through). Three trackers:

- `gate-heuristic`: the second seed's deployable tracker (`HeuristicTracker`): the agent's first
  non-empty todo list is the plan, an item ticked by a successful call the keyword table
  links to it (the product's calls read as the seed's by `observe.py`);
- `gate-open`: the agent's own list: every item not completed is pending;
- `gate-oracle` (benchmark only): the scenario's subtasks (`TaskStateTracker`), judged from the
  calls and the workspace (the session's `cwd`); `TODO_BENCH_HOOK_SCENARIO` names a scenario
  file (JSON as `Scenario.model_dump_json()` writes it, or the scenario's YAML).

Refusals are bounded: at most `TODO_BENCH_HOOK_MAX_BLOCKS` (default 3) in a row. A stop with
`stop_hook_active` false is a new attempt and starts the count again; one with it true continues
a chain this or another Stop hook began, and is let through once the bound is spent (and
journaled as `let_through`), so the gate never holds the agent in a loop.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from harness.hooks.fixes import FIXES
from harness.hooks.hosts import Host
from harness.hooks.observe import seed_calls
from harness.hooks.protocol import HookInput
from harness.hooks.state import HookState
from harness.todo.base import TodoItem, render

if TYPE_CHECKING:
    from harness.episode.gate.heuristic import HeuristicTracker
    from harness.episode.gate.verdict import GateState, Refusal
    from harness.suite.scenario import Scenario
    from harness.suite.tracker import TaskStateTracker

MAX_BLOCKS = "TODO_BENCH_HOOK_MAX_BLOCKS"
DEFAULT_MAX_BLOCKS = 3
SCENARIO = "TODO_BENCH_HOOK_SCENARIO"
#: characters of a final message the gate reads: its start and its end, where a claim, an
#: admission or a question stands; the classifier's regular expressions grow with the text
#: (a 20 MB message took 97 s), and a long middle is the work's output, not the verdict
READ_HEAD, READ_TAIL = 2_000, 8_000


def readable(text: str) -> str:
    """The part of a final message the gate judges: all of it up to 10,000 characters, else
    the first 2,000 and the last 8,000 as two paragraphs."""
    if len(text) <= READ_HEAD + READ_TAIL:
        return text
    return f"{text[:READ_HEAD]}\n\n{text[-READ_TAIL:]}"


class OpenItems:
    """gate-open's tracker: the agent's own list, every item not completed pending."""

    def __init__(self, items: Sequence[TodoItem]) -> None:
        self.items = list(items)

    @property
    def pending(self) -> list[TodoItem]:
        return [item for item in self.items if item.status != "completed"]

    def summary(self) -> str:
        return render(self.items)


def chosen(fixes: tuple[str, ...]) -> str | None:
    return next((name for name in fixes if FIXES[name].gate), None)


def max_blocks() -> int:
    return int(os.environ.get(MAX_BLOCKS) or DEFAULT_MAX_BLOCKS)


@cache
def scenario() -> Scenario:
    from harness.suite.scenario import Scenario, load_scenario

    named = os.environ.get(SCENARIO)
    if not named:
        raise ValueError(f"gate-oracle needs {SCENARIO} (a scenario file)")
    path = Path(named)
    if path.suffix == ".json":
        return Scenario.model_validate_json(path.read_text(encoding="utf-8"))
    return load_scenario(path)


def _heuristic(state: HookState) -> HeuristicTracker | None:
    from harness.episode.gate.heuristic import HeuristicTracker

    if state.plan is None:
        return None
    tracker = HeuristicTracker(state.plan)
    for item, done in zip(tracker.items, state.plan_done, strict=True):
        item.done = done
    return tracker


def _oracle(state: HookState, cwd: str) -> TaskStateTracker:
    from harness.suite.tracker import TaskStateTracker
    from harness.suite.workspace import Workspace

    tracker = TaskStateTracker(scenario(), Workspace(Path(cwd)))
    tracker.done = set(state.oracle_done)
    tracker.met = {(s, r, p) for s, r, p in state.oracle_met}
    return tracker


def observe(state: HookState, fixes: tuple[str, ...], payload: HookInput) -> None:
    """A successful tool call (`PostToolUse`): deploy the plan, tick the gate's tracker."""
    gate = chosen(fixes)
    if gate == "gate-heuristic" and state.plan is None and state.items:
        state.plan = [item.text for item in state.items]
        state.plan_done = [False] * len(state.plan)
    if gate not in ("gate-heuristic", "gate-oracle"):
        return
    calls = seed_calls(state, payload.tool_name, payload.tool_input, payload.cwd)
    if gate == "gate-heuristic":
        heuristic = _heuristic(state)
        if heuristic is None:
            return
        for tool, args, ok in calls:
            heuristic.observe(tool, args, ok)
        state.plan_done = [item.done for item in heuristic.items]
        return
    oracle = _oracle(state, payload.cwd)
    for tool, args, ok in calls:
        oracle.observe(tool, args, ok)
    state.oracle_done, state.oracle_met = sorted(oracle.done), sorted(oracle.met)


def _tracker(gate: str, state: HookState, cwd: str) -> GateState | None:
    if gate == "gate-open":
        return OpenItems(state.items) if state.items else None
    if gate == "gate-heuristic":
        return _heuristic(state)
    return _oracle(state, cwd)


def review(
    state: HookState, fixes: tuple[str, ...], host: Host, payload: HookInput
) -> Refusal | None:
    """The gate's refusal of this stop, or None (no gate chosen, or the message passes)."""
    from harness.episode.ending import classify_ending
    from harness.episode.gate import verdict

    gate = chosen(fixes)
    if gate is None:
        return None
    text = readable(added_text(state.judged_response, payload))
    if payload.prompt_response is not None:  # Gemini CLI: the next stop adds to this one
        state.judged_response = payload.prompt_response
    tracker = _tracker(gate, state, payload.cwd)
    # the fake-call guard: the product's tools a final message might spell out
    return verdict.review(text, classify_ending(text), tracker, list(host.tool_names))


def added_text(judged: str, payload: HookInput) -> str:
    """The text this stop adds. Claude Code and Codex CLI send the last message; Gemini CLI's
    `prompt_response` holds every answer since the prompt, a refused stop's among them, so a
    later stop is judged by what follows `judged`, the text judged last: a fake call refused
    once was otherwise read again at every stop after it, and refused until the turns ran out."""
    text = payload.final_message
    if payload.last_assistant_message or payload.prompt_response is None:
        return text
    return text[len(judged) :].lstrip() if judged and text.startswith(judged) else text


def withdraw(state: HookState) -> bool:
    """Take back the last refusal (its text was no stop): it no longer counts against the
    bound; False when there is none to take back."""
    if state.blocks == 0:
        return False
    state.blocks -= 1
    state.blocks_in_row = max(0, state.blocks_in_row - 1)
    return True


def spend(state: HookState, stop_hook_active: bool) -> bool:
    """Count one refusal against the bound; False when the bound is already spent."""
    if not stop_hook_active:
        state.blocks_in_row = 0
    if state.blocks_in_row >= max_blocks():
        return False
    state.blocks_in_row += 1
    state.blocks += 1
    return True
