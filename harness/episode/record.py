"""The episode record: what the solver leaves in the sample's store for the scorer and for any
reader of the log (pure data; importing it loads no agent loop)."""

from __future__ import annotations

from typing import Any

from inspect_ai.solver import TaskState
from inspect_ai.util import StoreModel
from pydantic import Field

from harness.episode.checks import CheckResult
from harness.episode.ledger import Ledger
from harness.suite.scenario import Scenario

#: the metadata key under which a provider that repaired a reply (`recover/`) says how many tool
#: calls it recovered from the text; the loop counts them in the ledger
RECOVERED = "recovered_tool_calls"


class EpisodeRecord(StoreModel):
    """What the solver leaves for the scorer, in the sample's store (so it is in the log):
    written once, when the episode ends, and enough to score it again from the log alone."""

    ledger: dict[str, Any] = Field(default_factory=dict)
    checks: list[dict[str, Any]] = Field(default_factory=list)
    final_files: list[str] = Field(default_factory=list)
    task_state: dict[str, Any] = Field(default_factory=dict)


def take_record(state: TaskState) -> tuple[Ledger, list[CheckResult], list[str], dict[str, Any]]:
    """The episode record of a sample; an infrastructure error if the solver left none."""
    record = state.store_as(EpisodeRecord)
    if not record.ledger:
        raise RuntimeError(
            f"no episode record for sample {state.sample_id}: the todo_agent solver did not run"
        )
    return (
        Ledger.model_validate(record.ledger),
        [CheckResult.model_validate(c) for c in record.checks],
        list(record.final_files),
        dict(record.task_state),
    )


def scenario_of(state: TaskState) -> Scenario:
    """The scenario a sample runs, from its metadata."""
    return Scenario.model_validate(state.metadata["scenario"])


def task_state_block(snapshot: dict[str, Any], blocked: int) -> str:
    """The per-sample Task State block shown in the score explanation."""
    lines = [f"- [{'x' if s['done'] else ' '}] {s['title']}" for s in snapshot["subtasks"]]
    status = f"{snapshot['done']}/{snapshot['total']} done"
    if blocked:
        status += f"; completion blocked {blocked}x"
    return "\n".join(["Task State:", *lines, status])
