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
