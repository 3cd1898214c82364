"""The episode record in the sample store: the ledger is kept as one JSON text, and a record
from a log made before that (the ledger as a JSON object) still reads the same."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from inspect_ai.log import read_eval_log
from inspect_ai.util import Store

from harness._inspect_private import store_keys
from harness.episode.ledger import Ledger, TodoEvent
from harness.episode.record import EpisodeRecord, take_record
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
    from harness.commands import main

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


def _state(store: Store) -> Any:
    """A TaskState stand-in: `take_record` reads the store, the sample id and `store_as`."""
    return SimpleNamespace(store=store, sample_id="s", store_as=lambda model: model(store=store))


def test_the_scorer_reads_the_store_as_a_bound_record_would() -> None:
    store = Store()
    record = EpisodeRecord(store=store)
    record.ledger_json = _ledger().model_dump_json()
    record.checks = [{"kind": "exists", "path": "a.py", "passed": True, "detail": "ok"}]
    record.final_files, record.task_state = ["a.py"], {"k": 1}
    assert store_keys(EpisodeRecord)["checks"] == "EpisodeRecord:checks"
    ledger, checks, files, task_state = take_record(_state(store))
    assert (ledger, files, task_state) == (_ledger(), ["a.py"], {"k": 1})
    assert [c.model_dump() for c in checks] == record.checks


def test_a_store_named_otherwise_is_read_through_the_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Were inspect to name a StoreModel's keys otherwise, the direct read finds none of them
    and the record is read by binding the model, as before: the same values."""
    store = Store()
    record = EpisodeRecord(store=store)
    record.ledger_json = _ledger().model_dump_json()
    renamed = {name: f"elsewhere:{name}" for name in store_keys(EpisodeRecord)}
    monkeypatch.setattr("harness.episode.record.store_keys", lambda model: renamed)
    assert take_record(_state(store))[0] == _ledger()


def test_a_sample_without_a_record_is_an_infrastructure_error() -> None:
    with pytest.raises(RuntimeError, match="no episode record for sample s"):
        take_record(_state(Store()))
