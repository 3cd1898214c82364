"""The scenario language: all_of rules, glob/count, structured and negative checks, event-triggered
user turns, cancel with undo. Each construct has a case where it must fire and one where it must
not."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from harness.episode.user_turns import UserScript
from harness.suite.checks import run_check
from harness.suite.scenario import OutcomeCheck, Scenario, UserTurn, load_scenario
from harness.suite.tracker import TaskStateTracker
from harness.suite.workspace import Workspace

CHECK: TypeAdapter[OutcomeCheck] = TypeAdapter(OutcomeCheck)
MERGE = load_scenario(Path("scenarios/monthly_merge.yaml"))
CONFIG = load_scenario(Path("scenarios/config_migration.yaml"))


@pytest.fixture
def merge_ws() -> Iterator[Workspace]:
    workspace = Workspace.create(MERGE)
    yield workspace
    workspace.cleanup()


def check(scenario: Scenario, workspace: Workspace, raw: dict[str, Any]) -> bool:
    return run_check(workspace, CHECK.validate_python(raw)).passed


def test_all_of_needs_every_call_in_any_order(merge_ws: Workspace) -> None:
    tracker = TaskStateTracker(MERGE, merge_ws)
    sheet = {"path": "report.xlsx", "sheet": "Jan", "rows": [["a"]]}
    assert tracker.observe("create_excel", sheet, ok=True) == []  # the write alone: no tick
    assert tracker.observe("read_file", {"path": "feb.csv"}, ok=True) == []  # another input
    ticked = tracker.observe("read_file", {"path": "./jan.csv"}, ok=True)
    assert [s.id for s in ticked] == ["jan"]


def test_files_matching_counts_with_a_folder_bound_glob(merge_ws: Workspace) -> None:
    assert check(MERGE, merge_ws, {"kind": "files_matching", "path": "*.csv", "count": 3})
    assert not check(MERGE, merge_ws, {"kind": "files_matching", "path": "*.csv", "count": 2})
    merge_ws.write_file("old/jan.csv", "x")
    assert check(MERGE, merge_ws, {"kind": "files_matching", "path": "*.csv", "count": 3})
    assert check(MERGE, merge_ws, {"kind": "files_matching", "path": "old/*.csv"})
    assert check(MERGE, merge_ws, {"kind": "files_matching", "path": "new/*", "count": 0})
    assert not check(MERGE, merge_ws, {"kind": "files_matching", "path": "new/*"})


def test_structured_data_checks_ignore_key_order_but_not_values() -> None:
    workspace = Workspace.create(CONFIG)
    try:
        workspace.write_file("a.yaml", "b: 1\na: {x: '2'}\n")
        workspace.write_file("a.json", '{"a": {"x": "2"}, "b": 1}')
        value = {"a": {"x": "2"}, "b": 1}
        for path, fmt in (("a.yaml", "yaml"), ("a.json", "json")):
            base = {"kind": "data_equals", "path": path, "format": fmt}
            assert check(CONFIG, workspace, {**base, "value": value})
            assert not check(CONFIG, workspace, {**base, "value": {"a": {"x": 2}, "b": 1}})
            assert check(CONFIG, workspace, {**base, "key": "a.x", "value": "2"})
        ini = {"kind": "data_equals", "path": "settings.ini", "format": "ini"}
        assert check(CONFIG, workspace, {**ini, "key": "server.port", "value": "8080"})
        assert not check(CONFIG, workspace, {**ini, "key": "server.port", "value": 8080})
        workspace.write_file("bad.json", "{not json")
        assert not check(
            CONFIG,
            workspace,
            {"kind": "data_equals", "path": "bad.json", "format": "json", "value": {}},
        )
    finally:
        workspace.cleanup()


def test_xlsx_sheets_cells_and_row_counts(merge_ws: Workspace) -> None:
    merge_ws.create_excel("r.xlsx", rows=[["a", "b"], ["1", "2"]], sheet="Mar")
    merge_ws.create_excel("r.xlsx", rows=[["c"]], sheet="Jan")
    assert check(
        MERGE, merge_ws, {"kind": "xlsx_sheets", "path": "r.xlsx", "sheets": ["Jan", "Mar"]}
    )
    assert not check(MERGE, merge_ws, {"kind": "xlsx_sheets", "path": "r.xlsx", "sheets": ["Jan"]})
    assert not check(MERGE, merge_ws, {"kind": "xlsx_sheets", "path": "r.xlsx", "absent": ["Mar"]})
    assert check(MERGE, merge_ws, {"kind": "xlsx_sheets", "path": "r.xlsx", "absent": ["Feb"]})
    cells = {"kind": "xlsx_cells", "path": "r.xlsx", "sheet": "Mar", "range": "A1:B2"}
    assert check(MERGE, merge_ws, {**cells, "rows": [["a", "b"], ["1", "2"]]})
    assert not check(MERGE, merge_ws, {**cells, "rows": [["a", "b"], ["1", "3"]]})
    assert check(
        MERGE, merge_ws, {"kind": "row_count", "path": "r.xlsx", "sheet": "Mar", "count": 2}
    )
    assert not check(MERGE, merge_ws, {"kind": "row_count", "path": "jan.csv", "count": 2})
    assert check(MERGE, merge_ws, {"kind": "row_count", "path": "jan.csv", "count": 3})


def test_user_turns_fire_on_events_and_not_before() -> None:
    on_subtask = UserTurn.model_validate({"when": {"subtask_done": "mar"}, "message": "m"})
    on_tool = UserTurn.model_validate({"when": {"tool_called": "write_csv"}, "message": "t"})
    script = UserScript([on_subtask, on_tool])
    assert script.due(5, done={"jan"}, called={"write_file"}) == []
    assert script.due(6, done={"jan", "mar"}, called=set()) == [on_subtask]
    assert script.due(7, done=set(), called={"write_csv"}) == [on_tool]
    with pytest.raises(ValueError, match="exactly one of `after_turn` or `when`"):
        UserTurn.model_validate({"message": "never"})


def test_cancelled_work_already_done_keeps_an_undo_box_open(merge_ws: Workspace) -> None:
    tracker = TaskStateTracker(MERGE, merge_ws)
    for step in MERGE.reference[:6]:  # Jan, Feb and Mar all done
        getattr(merge_ws, step.tool)(**step.args)
        tracker.observe(step.tool, step.args, ok=True)
    tracker.cancel("feb", ["no_feb"])
    assert [s.id for s in tracker.pending] == ["undo:feb"]
    assert "[ ] Undo: Add the Feb sheet from feb.csv" in tracker.summary()
    for step in MERGE.reference[6:]:  # the undo steps rebuild the workbook without Feb
        getattr(merge_ws, step.tool)(**step.args)
        tracker.observe(step.tool, step.args, ok=True)
    assert tracker.pending == []


def test_cancel_before_the_work_leaves_nothing_to_undo(merge_ws: Workspace) -> None:
    tracker = TaskStateTracker(MERGE, merge_ws)
    tracker.cancel("feb", ["no_feb"])
    assert "feb" not in {s.id for s in tracker.active}
    assert not any(s.id.startswith("undo:") for s in tracker.pending)
