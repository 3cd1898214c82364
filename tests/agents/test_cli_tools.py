"""The seed's workspace tools in a CLI's terms (harness/suite/cli_tools.py)."""

from __future__ import annotations

import pytest

from harness.suite.cli_tools import (
    from_cli,
    helper_command,
    helper_runs,
    to_cli,
    workspace_note,
    workspace_root,
)

ROOT = "/tmp/ws-1"
#: the tools each CLI offers that matter here
CLAUDE = {"Write", "Read", "Edit", "Bash", "TodoWrite"}
CODEX = {"exec_command", "write_stdin", "update_plan"}
OPENCODE = {"bash", "read", "write", "edit", "glob", "grep", "todowrite"}
GEMINI = {
    "run_shell_command",
    "read_file",
    "write_file",
    "replace",
    "list_directory",
    "write_todos",
}


def test_the_workspace_root_is_read_back_from_the_note() -> None:
    assert workspace_root("You are an agent.\n" + workspace_note(ROOT)) == ROOT
    assert workspace_root("You are an agent. Working directory: /elsewhere") is None


def test_text_files_go_through_the_cli_s_own_tools_and_back() -> None:
    write = ("write_file", {"path": "src/a.py", "content": "x = 1\n"})
    assert to_cli(write, ROOT, CLAUDE) == (
        "Write",
        {"file_path": f"{ROOT}/src/a.py", "content": "x = 1\n"},
    )
    assert from_cli(to_cli(write, ROOT, CLAUDE), ROOT) == write
    read = ("read_file", {"path": "main.py"})
    assert from_cli(to_cli(read, ROOT, CLAUDE), ROOT) == read
    assert from_cli(("Edit", {"file_path": f"{ROOT}/main.py"}), ROOT) == (
        "write_file",
        {"path": "main.py"},
    )


def test_other_tools_run_the_helper_and_are_not_read_as_native_calls() -> None:
    name, args = to_cli(("create_excel", {"path": "a.xlsx", "rows": [["it's"]]}), ROOT, CLAUDE)
    assert name == "Bash" and args["command"] == helper_command(
        "create_excel", {"path": "a.xlsx", "rows": [["it's"]]}
    )
    assert from_cli((name, args), ROOT) is None
    assert helper_runs((name, args)) == 1
    # an .xlsx is read by the helper (the CLI's Read shows bytes)
    assert to_cli(("read_file", {"path": "a.xlsx"}), ROOT, CLAUDE)[0] == "Bash"


def test_through_codex_every_seed_call_is_the_helper_in_its_exec_command() -> None:
    for call in (
        ("write_file", {"path": "src/a.py", "content": "x = 1\n"}),
        ("read_file", {"path": "main.py"}),
        ("create_excel", {"path": "a.xlsx", "rows": [["it's"]]}),
    ):
        name, args = to_cli(call, ROOT, CODEX)
        assert (name, args) == ("exec_command", {"cmd": helper_command(*call)})
        assert helper_runs((name, args)) == 1
        assert from_cli((name, args), ROOT) is None  # taken from the helper's journal instead
    assert helper_runs(("exec_command", {"cmd": "ls -la"})) == 0
    assert helper_runs(("exec_command", {"command": "todo-bench-tool list_files '{}'"})) == 0


def test_a_cli_without_a_shell_tool_cannot_run_the_helper() -> None:
    with pytest.raises(ValueError, match="no shell tool"):
        to_cli(("list_files", {}), ROOT, {"update_plan"})


def test_helper_runs_are_counted_only_where_the_command_runs_the_helper() -> None:
    chained = "todo-bench-tool list_files '{}' && todo-bench-tool delete_file '{\"path\": \"a\"}'"
    assert helper_runs(("Bash", {"command": chained})) == 2
    assert helper_runs(("Bash", {"command": "ls -la"})) == 0
    assert helper_runs(("Bash", {"command": "echo my-todo-bench-tool x"})) == 0
    assert helper_runs(("Write", {"command": "todo-bench-tool list_files"})) == 0


def test_a_path_outside_the_workspace_is_not_a_workspace_call() -> None:
    assert from_cli(("Write", {"file_path": "/etc/passwd", "content": ""}), ROOT) is None
    assert from_cli(("Bash", {"command": "ls"}), ROOT) is None


def test_through_opencode_text_files_go_through_its_write_and_read_and_the_rest_its_bash() -> None:
    write = ("write_file", {"path": "src/a.py", "content": "x = 1\n"})
    assert to_cli(write, ROOT, OPENCODE) == (
        "write",
        {"filePath": f"{ROOT}/src/a.py", "content": "x = 1\n"},
    )
    assert from_cli(to_cli(write, ROOT, OPENCODE), ROOT) == write
    read = ("read_file", {"path": "main.py"})
    assert from_cli(to_cli(read, ROOT, OPENCODE), ROOT) == read
    assert from_cli(("edit", {"filePath": f"{ROOT}/main.py"}), ROOT) == (
        "write_file",
        {"path": "main.py"},
    )
    excel = ("create_excel", {"path": "a.xlsx", "rows": [["x"]]})
    name, args = to_cli(excel, ROOT, OPENCODE)
    assert (name, args) == ("bash", {"command": helper_command(*excel)})
    assert helper_runs((name, args)) == 1 and from_cli((name, args), ROOT) is None


def test_through_gemini_cli_its_own_write_file_and_read_file_take_the_seed_s_names() -> None:
    """Gemini CLI's file tools bear the seed's names with other arguments (`file_path`, an
    absolute path): a seed call goes to them in the product's terms, and back."""
    write = ("write_file", {"path": "main.py", "content": "x = 1\n"})
    assert to_cli(write, ROOT, GEMINI) == (
        "write_file",
        {"file_path": f"{ROOT}/main.py", "content": "x = 1\n"},
    )
    assert from_cli(to_cli(write, ROOT, GEMINI), ROOT) == write
    read = ("read_file", {"path": "main.py"})
    assert to_cli(read, ROOT, GEMINI) == ("read_file", {"file_path": f"{ROOT}/main.py"})
    assert from_cli(to_cli(read, ROOT, GEMINI), ROOT) == read
    assert from_cli(("replace", {"file_path": f"{ROOT}/main.py"}), ROOT) == (
        "write_file",
        {"path": "main.py"},
    )
    name, args = to_cli(("rename_file", {"src": "a", "dst": "b"}), ROOT, GEMINI)
    assert name == "run_shell_command" and helper_runs((name, args)) == 1


def test_the_workspace_note_describes_every_workspace_tool_from_its_schema(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The CLI prompt's list of helper tools is generated from the tools' declarations: a tool
    added there is in the note, each with its parameters (alternatives joined by `|`)."""
    from harness.suite import cli_tools, workspace_tools

    note = workspace_note(ROOT)
    assert "create_excel {path, rows | from_workspace_files, sheet}" in note
    assert all(f"{spec.name} {{" in note for spec in workspace_tools.SPECS)
    extra = workspace_tools.WorkspaceToolSpec("touch_file", "Make an empty file.", {"path": "P."},
                                              workspace_tools.SPECS[0].signature)  # fmt: skip
    monkeypatch.setattr(cli_tools, "SPECS", (*workspace_tools.SPECS, extra))
    assert "write_csv {path, rows}, touch_file {path}. Paths" in cli_tools.workspace_note(ROOT)
