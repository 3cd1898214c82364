"""The seed's workspace tools in a CLI's terms (harness/suite/cli_tools.py)."""

from __future__ import annotations

from harness.suite.cli_tools import (
    from_cli,
    helper_command,
    helper_runs,
    to_cli,
    workspace_note,
    workspace_root,
)

ROOT = "/tmp/ws-1"


def test_the_workspace_root_is_read_back_from_the_note() -> None:
    assert workspace_root("You are an agent.\n" + workspace_note(ROOT)) == ROOT
    assert workspace_root("You are an agent. Working directory: /elsewhere") is None


def test_text_files_go_through_the_cli_s_own_tools_and_back() -> None:
    write = ("write_file", {"path": "src/a.py", "content": "x = 1\n"})
    assert to_cli(write, ROOT) == ("Write", {"file_path": f"{ROOT}/src/a.py", "content": "x = 1\n"})
    assert from_cli(to_cli(write, ROOT), ROOT) == write
    read = ("read_file", {"path": "main.py"})
    assert from_cli(to_cli(read, ROOT), ROOT) == read
    assert from_cli(("Edit", {"file_path": f"{ROOT}/main.py"}), ROOT) == (
        "write_file",
        {"path": "main.py"},
    )


def test_other_tools_run_the_helper_and_are_not_read_as_native_calls() -> None:
    name, args = to_cli(("create_excel", {"path": "a.xlsx", "rows": [["it's"]]}), ROOT)
    assert name == "Bash" and args["command"] == helper_command(
        "create_excel", {"path": "a.xlsx", "rows": [["it's"]]}
    )
    assert from_cli((name, args), ROOT) is None
    assert helper_runs((name, args)) == 1
    # an .xlsx is read by the helper (the CLI's Read shows bytes)
    assert to_cli(("read_file", {"path": "a.xlsx"}), ROOT)[0] == "Bash"


def test_helper_runs_are_counted_only_where_the_command_runs_the_helper() -> None:
    chained = "todo-bench-tool list_files '{}' && todo-bench-tool delete_file '{\"path\": \"a\"}'"
    assert helper_runs(("Bash", {"command": chained})) == 2
    assert helper_runs(("Bash", {"command": "ls -la"})) == 0
    assert helper_runs(("Bash", {"command": "echo my-todo-bench-tool x"})) == 0
    assert helper_runs(("Write", {"command": "todo-bench-tool list_files"})) == 0


def test_a_path_outside_the_workspace_is_not_a_workspace_call() -> None:
    assert from_cli(("Write", {"file_path": "/etc/passwd", "content": ""}), ROOT) is None
    assert from_cli(("Bash", {"command": "ls"}), ROOT) is None
