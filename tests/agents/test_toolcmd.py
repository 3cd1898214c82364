"""`todo-bench-tool`: the seed's workspace tools as a command in a CLI's shell."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.agents.toolcmd import JOURNAL, main


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    monkeypatch.chdir(root)
    monkeypatch.setenv(JOURNAL, str(tmp_path / "journal.jsonl"))
    return root


def _journal(workspace: Path) -> list[dict[str, object]]:
    lines = (workspace.parent / "journal.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_a_tool_runs_on_the_working_directory_and_is_journaled(workspace: Path) -> None:
    assert (
        main(["create_excel", json.dumps({"path": "x/1.xlsx", "from_workspace_files": True})]) == 0
    )
    assert (workspace / "x" / "1.xlsx").is_file()
    assert main(["list_files"]) == 0
    entries = _journal(workspace)
    assert [(e["tool"], e["ok"]) for e in entries] == [("create_excel", True), ("list_files", True)]
    assert entries[1]["result"] == "a.txt\nx/1.xlsx"


def test_a_path_leaving_the_workspace_is_refused_and_journaled(workspace: Path) -> None:
    assert main(["write_file", json.dumps({"path": "../out.txt", "content": "x"})]) == 1
    assert not (workspace.parent / "out.txt").exists()
    assert _journal(workspace)[0]["ok"] is False


@pytest.mark.parametrize("raw", ["{not json", "[1, 2]"])
def test_bad_arguments_are_a_failed_call(workspace: Path, raw: str) -> None:
    assert main(["read_file", raw]) == 1
    assert _journal(workspace)[0]["ok"] is False


def test_an_unknown_tool_is_a_usage_error_and_not_journaled(workspace: Path) -> None:
    assert main(["format_disk", "{}"]) == 2
    assert not (workspace.parent / "journal.jsonl").exists()


def test_a_products_own_folder_is_not_the_tasks_work(workspace: Path) -> None:
    """The hooks or plugin `hooks install` put in the project (`.opencode/plugins/...`,
    `.claude/settings.json`) are left out of the listing and of a workbook of the workspace's
    files: with them, every hook row failed excel_export (9 rows, not 4)."""
    for own in (".opencode/plugins/todo-bench.js", ".claude/settings.json"):
        (workspace / own).parent.mkdir(parents=True, exist_ok=True)
        (workspace / own).write_text("{}")
    (workspace / ".github").mkdir()
    (workspace / ".github" / "ci.yml").write_text("on: push\n")  # a folder no product keeps
    assert main(["list_files"]) == 0
    args = {"path": "x/1.xlsx", "from_workspace_files": True}
    assert main(["create_excel", json.dumps(args)]) == 0
    listed, wrote = _journal(workspace)
    assert listed["result"] == ".github/ci.yml\na.txt"
    assert wrote["result"] == "Wrote sheet 'Sheet1' with 3 rows to x/1.xlsx."
