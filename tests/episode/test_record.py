"""The episode record in the sample store: the ledger is kept as one JSON text, and a record
from a log made before that (the ledger as a JSON object) still reads the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log
from inspect_ai.util import Store

from harness.episode.ledger import Ledger, TodoEvent
from harness.episode.record import EpisodeRecord
from harness.todo.base import TodoItem


def _ledger() -> Ledger:
    item = TodoItem(id="1", text="Read the sales data", status="completed")
    ledger = Ledger(scenario="excel_export", variant="L0-rewrite", end_reason="claimed_done")
    ledger.events.append(
        TodoEvent(
            turn=1, call_id="c1", tool="todo", args={}, accepted=True, before=[], after=[item]
        )
    )
    return ledger


def test_the_ledger_is_one_text_and_reads_back_exactly() -> None:
    store = Store()
    record = EpisodeRecord(store=store)
    record.ledger_json = _ledger().model_dump_json()
    assert isinstance(store.get("EpisodeRecord:ledger_json"), str)
    assert store.get("EpisodeRecord:ledger") in (None, {})
    assert record.take_ledger() == _ledger()
    assert record.ledger_data() == json.loads(_ledger().model_dump_json())


def test_a_record_from_an_older_log_reads_the_same() -> None:
    old = Store({"EpisodeRecord:ledger": _ledger().model_dump(mode="json")})
    record = EpisodeRecord(store=old)
    assert record.take_ledger() == _ledger()
    assert record.ledger_data() == _ledger().model_dump(mode="json")


def test_no_record_is_no_ledger() -> None:
    record = EpisodeRecord(store=Store())
    assert record.take_ledger() is None and record.ledger_data() == {}


@pytest.mark.slow
def test_a_run_writes_the_text_form(tmp_path: Path) -> None:
    from harness.cli import main

    args = ["run", "--out", str(tmp_path / "r"), "--display", "none", "--model", "sim/oracle"]
    args += ["--variants", "L3-granular", "--scenarios", "excel_export", "--epochs", "1"]
    assert main(args + ["--workers", "1"]) == 0
    (path,) = (tmp_path / "r" / "logs").rglob("*.eval")
    (sample,) = read_eval_log(str(path)).samples or []
    assert isinstance(sample.store["EpisodeRecord:ledger_json"], str)
    ledger = sample.store_as(EpisodeRecord).take_ledger()
    assert ledger is not None and ledger.scenario == "excel_export" and ledger.events


def test_a_samples_scenario_copies_as_itself_and_logs_as_its_json(tmp_path: Path) -> None:
    import copy

    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelName
    from inspect_ai.solver import TaskState

    from harness.episode.record import scenario_of
    from harness.run.task import build_task

    task = build_task("L0-rewrite", scenarios="excel_export")
    sample = next(iter(task.dataset))
    assert sample.metadata is not None
    held = sample.metadata["scenario"]
    # inspect deep-copies a sample's metadata per epoch and per declared metric
    copied = copy.deepcopy(sample.metadata)
    assert copied["scenario"] is held and copied["tags"] == held.tags
    state = TaskState(ModelName("sim/oracle"), sample.id or "", 0, "", [], metadata=copied)
    assert scenario_of(state) is held
    # the log keeps the scenario's JSON; read back (`inspect score`), it validates to the same
    [log] = inspect_eval(task, model="sim/oracle", log_dir=str(tmp_path), display="none")
    assert log.samples is not None
    logged = read_eval_log(log.location).samples[0].metadata["scenario"]  # type: ignore[index]
    assert isinstance(logged, dict) and logged["id"] == "excel_export"
    state.metadata = {"scenario": logged}
    assert scenario_of(state) == held


def test_a_deep_copy_with_an_update_leaves_the_shared_scenario_alone() -> None:
    """A scenario deep-copies as itself and the parse cache shares it: pydantic must not write
    an update into that "copy" (it copies shallowly first when updating; guard the day it
    does not)."""
    from harness.suite.scenario import load_scenario

    shared = load_scenario(Path("scenarios/excel_export.yaml"))
    capped = shared.model_copy(update={"max_turns": 3}, deep=True)
    assert capped.max_turns == 3 and shared.max_turns != 3
    assert load_scenario(Path("scenarios/excel_export.yaml")).max_turns == shared.max_turns
