"""Completion rules tick only on successful, matching calls."""

from __future__ import annotations

from pathlib import Path

from harness.matcher import match_subtasks
from harness.suite.scenario import load_scenario
from harness.suite.tracker import TaskStateTracker

EXCEL = load_scenario(Path("scenarios/excel_export.yaml"))
CODE = load_scenario(Path("scenarios/main_and_test.yaml"))


def test_failed_calls_never_tick() -> None:
    tracker = TaskStateTracker(EXCEL)
    assert tracker.observe("list_files", {}, ok=False) == []
    assert tracker.pending == EXCEL.subtasks


def test_right_tool_wrong_path_does_not_tick_save_as() -> None:
    tracker = TaskStateTracker(EXCEL)
    tracker.observe("list_files", {}, ok=True)
    ticked = tracker.observe(
        "create_excel", {"path": "exports/files.xlsx", "from_workspace_files": True}, ok=True
    )
    assert [s.id for s in ticked] == ["excel"]
    assert tracker.summary() == (
        "2/3 done: [x] List the workspace files [x] Create the Excel workbook "
        "[ ] Save it as exports/1.xlsx"
    )
    tracker.observe(
        "create_excel", {"path": "exports/1.xlsx", "from_workspace_files": True}, ok=True
    )
    assert tracker.pending == []


def test_after_constraint_requires_the_earlier_subtask() -> None:
    tracker = TaskStateTracker(CODE)
    assert tracker.observe("read_file", {"path": "main.py"}, ok=True) == []
    tracker.observe("write_file", {"path": "main.py", "content": "x"}, ok=True)
    assert [s.id for s in tracker.observe("read_file", {"path": "main.py"}, ok=True)] == ["verify"]


def test_user_turns_add_and_cancel_subtasks() -> None:
    tracker = TaskStateTracker(CODE)
    tracker.cancel("verify")
    assert [s.id for s in tracker.pending] == ["main", "test"]
    tracker.add("verify")
    assert len(tracker.pending) == 3


def test_todo_text_matching_is_specific() -> None:
    assert [s.id for s in match_subtasks("Write main.py", CODE.subtasks)] == ["main"]
    assert match_subtasks("Write index.py", CODE.subtasks) == []
    assert [s.id for s in match_subtasks("Save it as exports/1.xlsx", EXCEL.subtasks)] == ["save"]
