"""`todo-bench hooks install / uninstall / show`: a user's own hooks are kept as they are,
install is idempotent, uninstall restores the file byte for byte, and a malformed file (of any
product's) gets one line and is left untouched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.commands import main
from harness.hooks.hosts import HOSTS
from harness.hooks.settings import hooks_for, merged, without_ours

PROGRAM = "/opt/venv/bin/todo-bench-hook"
#: a user's own settings, spaced and ordered their way (CRLF line ends included)
USERS = (
    '{\r\n    "model": "opus",\r\n    "hooks": {\r\n        "PreToolUse": [\r\n'
    '            {"matcher": "TodoWrite", "hooks": [{"type": "command", "command": "mine.sh"}]}\r\n'
    '        ],\r\n        "Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]\r\n'
    "    }\r\n}\r\n"
)


def _command(fixes: str) -> dict[str, object]:
    return {"type": "command", "command": f"{PROGRAM} {fixes}", "timeout": 30}


def test_the_hooks_section_of_each_fix() -> None:
    assert hooks_for(("textlock",), PROGRAM) == {
        "PreToolUse": [{"matcher": "TodoWrite", "hooks": [_command("textlock")]}],
        "PostToolUse": [{"matcher": "TodoWrite", "hooks": [_command("textlock")]}],
    }
    fixes = ("whitelist", "inject", "gate-heuristic")
    command = _command("whitelist,inject,gate-heuristic")
    assert hooks_for(fixes, PROGRAM) == {
        "PreToolUse": [{"matcher": "TodoWrite", "hooks": [command]}],
        "PostToolUse": [{"matcher": "*", "hooks": [command]}],
        "UserPromptSubmit": [{"hooks": [command]}],
        "SessionStart": [{"matcher": "compact", "hooks": [command]}],
        "Stop": [{"hooks": [command]}],
    }


def test_a_merge_keeps_the_users_hooks_first_and_unmerges_to_them() -> None:
    users = json.loads(USERS)
    both = merged(users, ("textlock", "gate-open"), PROGRAM)
    assert both["model"] == "opus"
    assert both["hooks"]["PreToolUse"][0] == users["hooks"]["PreToolUse"][0]
    assert both["hooks"]["Stop"][0] == users["hooks"]["Stop"][0]
    assert both["hooks"]["Stop"][1] == {"hooks": [_command("textlock,gate-open")]}
    assert merged(both, ("textlock", "gate-open"), PROGRAM) == both
    assert without_ours(both) == users
    mixed = json.loads(json.dumps(users))
    mixed["hooks"]["Stop"][0]["hooks"].append(_command("gate-open"))  # ours in a user's group
    assert without_ours(mixed) == users


def _settings(folder: Path) -> Path:
    return folder / ".claude" / "settings.json"


def test_install_and_uninstall_round_trip_byte_for_byte(tmp_path: Path) -> None:
    path = _settings(tmp_path)
    path.parent.mkdir()
    path.write_bytes(USERS.encode("utf-8"))
    args = ["hooks", "install", "--fix", "textlock,inject", "--command", PROGRAM, str(tmp_path)]
    assert main(args) == 0
    installed = path.read_bytes()
    assert json.loads(installed)["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "mine.sh"
    assert main(args) == 0  # idempotent
    assert path.read_bytes() == installed
    assert (
        main(["hooks", "install", "--fix", "whitelist", "--command", PROGRAM, str(tmp_path)]) == 0
    )
    commands = json.dumps(json.loads(path.read_bytes()))
    assert "textlock,inject" not in commands and f"{PROGRAM} whitelist" in commands
    assert main(["hooks", "uninstall", str(tmp_path)]) == 0
    assert path.read_bytes() == USERS.encode("utf-8")
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]


def test_install_into_a_bare_folder_and_uninstall_leaves_it_bare(tmp_path: Path) -> None:
    assert main(["hooks", "install", "--command", PROGRAM, str(tmp_path)]) == 0
    assert set(json.loads(_settings(tmp_path).read_text("utf-8"))["hooks"]) == {
        "PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "Stop",
    }  # fmt: skip
    assert main(["hooks", "uninstall", str(tmp_path)]) == 0
    assert list(tmp_path.iterdir()) == []


def test_uninstall_after_the_user_edited_removes_only_ours(tmp_path: Path) -> None:
    path = _settings(tmp_path)
    path.parent.mkdir()
    path.write_bytes(USERS.encode("utf-8"))
    main(["hooks", "install", "--fix", "inject", "--command", PROGRAM, str(tmp_path)])
    edited = json.loads(path.read_text("utf-8")) | {"theme": "dark"}
    path.write_text(json.dumps(edited), encoding="utf-8")
    assert main(["hooks", "uninstall", str(tmp_path)]) == 0
    assert json.loads(path.read_text("utf-8")) == json.loads(USERS) | {"theme": "dark"}


def _malformed() -> list[tuple[str, str]]:
    """(product, text) pairs: a settings file of the wrong shape for each product's hooks file,
    its own event names where an event is named (a plugin is a file of ours, written whole:
    test_plugin.py refuses a user's file at its path)."""
    cases = []
    for name, host in HOSTS.items():
        if host.kind != "hooks":
            continue
        group = json.dumps({"hooks": {host.wire.events["Stop"]: {"hooks": []}}})
        cases += [(name, text) for text in ("{not json", "[]", '{"hooks": []}', group)]
    return cases


@pytest.mark.parametrize(("product", "text"), _malformed())
def test_a_malformed_settings_file_gets_one_line_and_is_left_untouched(
    tmp_path: Path, product: str, text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / HOSTS[product].config
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    for command in ("install", "uninstall"):
        assert main(["hooks", command, "--product", product, str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "left untouched" in err and str(path) in err
    assert path.read_text("utf-8") == text
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


def test_show_prints_what_install_writes_and_bad_input_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["hooks", "show", "--fix", "textlock", "--command", PROGRAM]) == 0
    assert json.loads(capsys.readouterr().out) == {"hooks": hooks_for(("textlock",), PROGRAM)}
    for args in (
        ["hooks", "show", "--fix", "nope"],
        ["hooks", "show", "--fix", "gate-open,gate-heuristic"],
        ["hooks", "install", "--fix", "gate-oracle", str(tmp_path)],
        ["hooks", "install", str(tmp_path / "missing")],
    ):
        assert main(args) == 2
        assert capsys.readouterr().err.count("\n") == 1
