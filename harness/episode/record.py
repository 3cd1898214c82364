"""The episode record: what the solver leaves in the sample's store for the scorer and for any
reader of the log (pure data; importing it loads no agent loop)."""

from __future__ import annotations

import json
from typing import Any

from inspect_ai.solver import TaskState
from inspect_ai.util import StoreModel
from pydantic import Field

from harness._inspect_private import store_keys
from harness.episode.ledger import Ledger
from harness.suite.checks import CheckResult
from harness.suite.scenario import Scenario

#: the metadata key under which a provider that repaired a reply (`recover/`) says how many tool
#: calls it recovered from the text; the loop counts them in the ledger
RECOVERED = "recovered_tool_calls"


class EpisodeRecord(StoreModel):
    """What the solver leaves for the scorer, in the sample's store (so it is in the log):
    written once, when the episode ends, and enough to score it again from the log alone.

    The ledger is kept as one JSON text (`ledger_json`): inspect serialises, diffs and walks a
    sample's store several times (state and store events, condensing the log), at a cost that
    grows with the number of JSON values in it, and one text is one value (a 3-epoch run's
    store diffing went from 0.28 to 0.05 s of CPU). Logs made before 2026-12-03 hold the ledger
    as a JSON object (`ledger`); `ledger_data` reads either."""

    ledger_json: str = ""
    ledger: dict[str, Any] = Field(default_factory=dict)
    checks: list[dict[str, Any]] = Field(default_factory=list)
    final_files: list[str] = Field(default_factory=list)
    task_state: dict[str, Any] = Field(default_factory=dict)

    def ledger_data(self) -> dict[str, Any]:
        """The ledger as a JSON object, from either form ({} if the solver left none)."""
        if self.ledger_json:
            data: dict[str, Any] = json.loads(self.ledger_json)
            return data
        return dict(self.ledger)

    def take_ledger(self) -> Ledger | None:
        """The ledger, from either form (None if the solver left none)."""
        return _ledger_of(self.ledger_json, self.ledger)


def _ledger_of(ledger_json: str, ledger: dict[str, Any]) -> Ledger | None:
    """The ledger from the record's text form, or its object form in a log made before."""
    if ledger_json:
        return Ledger.model_validate_json(ledger_json)
    return Ledger.model_validate(ledger) if ledger else None


#: the record's fields the scorer reads
_DATA = ("ledger_json", "ledger", "checks", "final_files", "task_state")


def take_record(state: TaskState) -> tuple[Ledger, list[CheckResult], list[str], dict[str, Any]]:
    """The episode record of a sample; an infrastructure error if the solver left none."""
    store, keys = state.store, store_keys(EpisodeRecord)
    if all(name in keys and keys[name] in store for name in _DATA):
        # read from the store as it is: binding the StoreModel builds a pydantic TypeAdapter per
        # field on every read (about 4 M instructions per episode) to copy the same values
        ledger = _ledger_of(store.get(keys["ledger_json"]), store.get(keys["ledger"]))
        checks, files, task_state = (store.get(keys[name]) for name in _DATA[2:])
    else:  # no record: binding the model writes its defaults into the store, as it always did
        record = state.store_as(EpisodeRecord)
        ledger = record.take_ledger()
        checks, files, task_state = record.checks, record.final_files, record.task_state
    if ledger is None:
        raise RuntimeError(
            f"no episode record for sample {state.sample_id}: the todo_agent solver did not run"
        )
    return (
        ledger,
        [CheckResult.model_validate(c) for c in checks],
        list(files),
        dict(task_state),
    )


def scenario_of(state: TaskState) -> Scenario:
    """The scenario a sample runs, from its metadata (the scenario in a run, its JSON in a log
    read back for `inspect score`)."""
    held = state.metadata["scenario"]
    return held if isinstance(held, Scenario) else Scenario.model_validate(held)


def task_state_block(snapshot: dict[str, Any], blocked: int) -> str:
    """The per-sample Task State block shown in the score explanation."""
    lines = [f"- [{'x' if s['done'] else ' '}] {s['title']}" for s in snapshot["subtasks"]]
    status = f"{snapshot['done']}/{snapshot['total']} done"
    if blocked:
        status += f"; completion blocked {blocked}x"
    return "\n".join(["Task State:", *lines, status])
