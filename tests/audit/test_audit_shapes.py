"""`todo-bench audit` on the shapes real session logs take (fixtures written here, in each
product's format; no real session's text): Task ids from the product's answers, lists resumed
or shared, attachments beside typed text, new-task resets, surprising JSON, cut-off files, and
batches that name a folder twice or hold files that are no sessions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.audit import expand, main, run_audit
from harness.audit.model import SessionAudit


def jsonl(path: Path, records: list[dict[str, Any]], cut: str = "") -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + cut, encoding="utf-8")
    return path


def user(text: str) -> dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": text}}


def call(use_id: str, name: str, **args: Any) -> dict[str, Any]:
    block = {"type": "tool_use", "id": use_id, "name": name, "input": args}
    return {"type": "assistant", "message": {"role": "assistant", "content": [block]}}


def calls(*blocks: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    content = [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in blocks]
    return {"type": "assistant", "message": {"role": "assistant", "content": content}}


def result(use_id: Any, text: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": use_id, "content": text}
    record: dict[str, Any] = {"type": "user", "message": {"role": "user", "content": [block]}}
    if extra is not None:
        record["toolUseResult"] = extra
    return record


def one(path: Path) -> SessionAudit:
    (session,) = run_audit([path]).sessions
    assert session.error is None, session.error
    return session


def categories(session: SessionAudit) -> list[list[str]]:
    return [sorted(c.category for c in t.changes) for t in session.transitions]


# -- Claude Code tasks: the product's ids ---------------------------------------------------


def test_task_ids_come_from_the_products_answers_in_any_order(tmp_path: Path) -> None:
    records = [
        user("Plan and do it."),
        calls(*((f"c{n}", "TaskCreate", {"subject": s}) for n, s in enumerate("ABCD"))),
        # the answers come back in another order than the calls
        result("c0", "Task #2 created successfully: A", {"task": {"id": "2", "subject": "A"}}),
        result("c1", "Task #1 created successfully: B", {"task": {"id": "1", "subject": "B"}}),
        result("c2", "Task #4 created successfully: C"),
        result("c3", "Task #3 created successfully: D"),
        call("u1", "TaskUpdate", taskId="2", status="completed"),
        result("u1", "Updated task #2 status", {"success": True, "taskId": "2"}),
        call("u2", "TaskUpdate", taskId="3", status="in_progress"),
        result("u2", "Updated task #3 status", {"success": True, "taskId": "3"}),
    ]
    session = one(jsonl(tmp_path / "s.jsonl", records))
    assert session.todo_calls == 6
    # one plan of four, then two status changes: nothing lost, reworded or invented
    assert categories(session) == [[], []]
    assert session.counts["dropped_total"] == session.counts["reworded_total"] == 0


def test_a_resumed_task_list_is_read_from_the_products_list(tmp_path: Path) -> None:
    listing = "#1 [completed] Write the parser\n#2 [pending] Write the tests [blocked by #1]"
    records = [
        user("Continue."),
        call("l1", "TaskList"),
        result("l1", listing),
        call("u1", "TaskUpdate", taskId="2", status="in_progress"),
        result("u1", "Updated task #2 status", {"success": True, "taskId": "2"}),
        call("u2", "TaskUpdate", taskId="1", status="deleted"),
        result("u2", "Updated task #1 deleted", {"success": True, "taskId": "1"}),
        call("u3", "TaskUpdate", taskId="9", status="completed"),
        result(
            "u3", "Task not found", {"success": False, "taskId": "9", "error": "Task not found"}
        ),
        call("u4", "TaskUpdate", taskId="7", status="completed"),
        result(
            "u4",
            "Updated task #7 status",
            {"success": True, "statusChange": {"from": "in_progress", "to": "completed"}},
        ),
    ]
    session = one(jsonl(tmp_path / "s.jsonl", records))
    assert session.todo_calls == 5
    assert categories(session) == [[], ["completed_removed"], []]
    assert (session.counts["task_not_found"], session.counts["unknown_task"]) == (1, 1)


def test_a_shared_list_learns_a_teammates_tasks_from_a_listing(tmp_path: Path) -> None:
    records = [
        user("Take the next task."),
        call("c1", "TaskCreate", subject="Mine"),
        result("c1", "Task #5 created successfully: Mine", {"task": {"id": "5"}}),
        call("l1", "TaskList"),
        result(
            "l1",
            "",
            {
                "tasks": [
                    {"id": "4", "subject": "Theirs", "status": "in_progress"},
                    {"id": "5", "subject": "Mine", "status": "pending"},
                ]
            },
        ),
        call("u1", "TaskUpdate", taskId="5", status="completed"),
        result("u1", "Updated task #5 status", {"success": True}),
    ]
    session = one(jsonl(tmp_path / "s.jsonl", records))
    assert categories(session) == [[]]  # the teammate's task is no "added"


# -- text lists: resets are not rewordings ---------------------------------------------------


def todo_write(use_id: str, *items: tuple[str, str]) -> dict[str, Any]:
    todos = [{"content": t, "status": s, "activeForm": t} for t, s in items]
    return call(use_id, "TodoWrite", todos=todos)


def test_a_new_task_is_a_reset_not_a_rewording_with_a_regression(tmp_path: Path) -> None:
    records = [
        user("Review the docs."),
        todo_write(
            "t1",
            ("Review the install section", "in_progress"),
            ("Review the usage section", "pending"),
        ),
        todo_write(
            "t2",
            ("Review the install section", "completed"),
            ("Review the usage section", "completed"),
        ),
        user("Now update them."),
        todo_write(
            "t3", ("Update the install section", "pending"), ("Update the usage section", "pending")
        ),
    ]
    session = one(jsonl(tmp_path / "s.jsonl", records))
    assert categories(session) == [[], ["added", "added", "completed_removed", "completed_removed"]]
    assert session.transitions[1].reset and session.counts["status_regressions_total"] == 0


def test_rewordings_pair_by_best_total_not_list_order(tmp_path: Path) -> None:
    records = [
        user("Go."),
        todo_write("t1", ("Write the parser tests", "pending"), ("Write the parser", "pending")),
        # greedy in list order would pair "Write the parser tests" with "Write the parser code"
        todo_write("t2", ("Write the parser code", "pending"), ("Write parser tests", "pending")),
    ]
    session = one(jsonl(tmp_path / "s.jsonl", records))
    pairs = {(c.text, c.detail) for t in session.transitions for c in t.changes}
    assert pairs == {
        ("Write the parser tests", "Write parser tests"),
        ("Write the parser", "Write the parser code"),
    }


def test_an_undone_item_in_a_continuing_list_is_a_status_regression(tmp_path: Path) -> None:
    records = [
        user("Go."),
        todo_write("t1", ("Run the tests", "completed"), ("Fix the bug", "in_progress")),
        todo_write("t2", ("Run the tests", "pending"), ("Fix the bug", "in_progress")),
    ]
    assert categories(one(jsonl(tmp_path / "s.jsonl", records))) == [["status_regressions"]]


# -- OpenCode: typed text beside an attachment ----------------------------------------------


def opencode_lines(path: Path, user_parts: list[dict[str, Any]]) -> Path:
    def todos(*items: tuple[str, str]) -> dict[str, Any]:
        state = {"input": {"todos": [{"content": t, "status": s, "id": t} for t, s in items]}}
        return {
            "info": {"role": "assistant"},
            "parts": [{"type": "tool", "tool": "todowrite", "state": state}],
        }

    return jsonl(
        path,
        [
            {"info": {"id": "ses_x"}},
            {"info": {"role": "user"}, "parts": [{"type": "text", "text": "Fix the build."}]},
            todos(("Fix the build", "completed")),
            {"info": {"role": "user"}, "parts": user_parts},
            todos(("Write the release notes", "pending")),
        ],
    )


def test_typed_text_with_an_attachment_is_a_user_turn(tmp_path: Path) -> None:
    parts: list[dict[str, Any]] = [
        {"type": "text", "text": "New task: release notes, see @CHANGES.md"},
        {"type": "text", "text": "<file contents>", "synthetic": True},
    ]
    session = one(opencode_lines(tmp_path / "s.jsonl", parts))
    assert session.format == "opencode"
    assert session.transitions[0].sanctioned and session.counts["added_unsanctioned"] == 0
    # a message that is only synthetic is no user turn
    only_synthetic = one(opencode_lines(tmp_path / "t.jsonl", parts[1:]))
    assert not only_synthetic.transitions[0].sanctioned


# -- surprising files --------------------------------------------------------------------------


def test_valid_json_of_unexpected_shapes_is_read_without_a_traceback(tmp_path: Path) -> None:
    odd_opencode = jsonl(
        tmp_path / "o.jsonl",
        [
            {"info": {"id": "ses_y"}},
            {
                "info": {"role": "assistant"},
                "parts": [{"type": "tool", "tool": "todowrite", "state": "done"}],
            },
            {"info": "not an object", "parts": "nor this"},
        ],
    )
    odd_claude = jsonl(
        tmp_path / "c.jsonl",
        [user("Go."), call("c1", "TaskCreate", subject="A"), result(["c1"], "Task #1 created")],
    )
    plan = {"plan": [{"step": "Do it", "status": "pending"}]}
    odd_codex = jsonl(
        tmp_path / "x.jsonl",
        [
            {"type": "session_meta", "payload": {"id": "r"}},
            {
                "type": "response_item",
                "payload": {"type": "function_call", "name": "update_plan", "arguments": plan},
            },
        ],
    )
    report = run_audit([odd_opencode, odd_claude, odd_codex])
    assert [s.error for s in report.sessions] == [None, None, None]
    assert report.sessions[2].todo_calls == 1


def test_a_cut_off_last_line_loses_that_line_only(tmp_path: Path) -> None:
    records = [
        user("Go."),
        todo_write("t1", ("A", "pending")),
        todo_write("t2", ("A", "completed")),
    ]
    session = one(jsonl(tmp_path / "s.jsonl", records, cut='{"type": "assistant", "mess'))
    assert session.todo_calls == 2 and session.notes == ["line 4, the last, is cut off: left out"]
    broken = jsonl(
        tmp_path / "b.jsonl", records[:1], cut='{"broken\n' + json.dumps(records[1]) + "\n"
    )
    (bad,) = run_audit([broken]).sessions
    assert bad.error is not None and bad.error.startswith("line 2 is not JSON")


def test_a_batch_names_each_file_once_and_passes_over_what_is_no_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    session = jsonl(folder / "s.jsonl", [user("Go."), todo_write("t1", ("A", "pending"))])
    for name in ("logs.json", "eval-set.json", "s.lists.json"):
        (folder / name).write_text("{}" if name != "s.lists.json" else "[]", encoding="utf-8")
    (tmp_path / "empty").mkdir()
    problems: list[str] = []
    found = expand([str(folder), str(session), str(tmp_path / "empty")], problems)
    assert found == [session.resolve()]
    assert problems == [f"{tmp_path / 'empty'}: a folder with no session log"]
    assert main([str(folder), str(tmp_path / "empty")], "md") == 0
    captured = capsys.readouterr()
    assert "a folder with no session log" in captured.err and "skipped" not in captured.err


# -- counterfactual replay ---------------------------------------------------------------------


def test_each_design_meets_real_changes_as_its_rules_say(tmp_path: Path) -> None:
    from harness.audit.replay import run_replay
    from harness.todo.variants import parse_variants

    records = [
        user("Go."),
        todo_write(
            "t1",
            ("Write the parser", "in_progress"),
            ("Write the tests", "pending"),
            ("Update the docs", "pending"),
        ),
        # unasked: "Update the docs" dropped
        todo_write("t2", ("Write the parser", "completed"), ("Write the tests", "in_progress")),
        # unasked: a rewording
        todo_write(
            "t3", ("Write the parser", "completed"), ("Write the unit tests", "in_progress")
        ),
        user("Also add a changelog entry."),
        # asked: an addition
        todo_write(
            "t4",
            ("Write the parser", "completed"),
            ("Write the unit tests", "in_progress"),
            ("Add a changelog entry", "pending"),
        ),
    ]
    path = jsonl(tmp_path / "s.jsonl", records)
    report = run_replay(
        [path], parse_variants("L0-rewrite,L1-textlock,L2-whitelist,L3-granular,cc-tasks")
    )
    got = {
        d.design: (
            d.caught["dropped"],
            d.caught["reworded"],
            d.explicit["dropped"],
            d.explicit["reworded"],
            d.friction,
        )
        for d in report.designs
    }
    assert got == {
        "L0-rewrite": (0, 0, 0, 0, 0),  # takes every list as sent
        "L1-textlock": (0, 1, 0, 0, 0),  # refuses the rewording only
        "L2-whitelist": (1, 1, 0, 0, 1),  # refuses the drop, the rewording, and the asked addition
        "L3-granular": (0, 0, 1, 1, 0),  # each change needs its own call: none by omission
        "cc-tasks": (0, 0, 1, 1, 0),
    }
    assert all(
        d.transitions == 3 and d.unsanctioned == {"dropped": 1, "reworded": 1}
        for d in report.designs
    )


def test_a_list_longer_than_the_cap_is_counted(tmp_path: Path) -> None:
    from harness.audit.replay import run_replay
    from harness.todo.variants import parse_variants

    many = [(f"Step {n}", "pending") for n in range(25)]
    records = [
        user("Go."),
        todo_write("t1", *many),
        todo_write("t2", ("Step 0", "in_progress"), *many[1:]),
    ]
    report = run_replay(
        [jsonl(tmp_path / "s.jsonl", records)], parse_variants("L0-rewrite,L0-rewrite+uncapped")
    )
    assert [(d.over_cap, d.rejected) for d in report.designs] == [(1, 1), (0, 0)]


def test_the_replay_command_writes_its_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from harness.commands import main

    path = jsonl(
        tmp_path / "s.jsonl",
        [user("Go."), todo_write("t1", ("A", "pending")), todo_write("t2", ("A", "completed"))],
    )
    assert (
        main(["replay", str(path), "--variants", "L0-rewrite", "--out", str(tmp_path / "r.md")])
        == 0
    )
    assert "| L0-rewrite" in capsys.readouterr().out and (tmp_path / "r.md").is_file()
