"""`todo-bench hooks plugin DIR`: the fixes as a Claude Code plugin in a one-plugin marketplace,
its hooks the very section `hooks install` merges (one rule code, one program); written only
into an empty or new folder. The real binary (`make agents`) validates it and installs it with
its own plugin commands (heavy)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.agents.binaries import AgentMissing, binary
from harness.commands import main
from harness.hooks.claude_plugin import MARKETPLACE, PLUGIN, plugin_files
from harness.hooks.settings import hooks_for
from harness.products.catalog import PRODUCTS

FIXES = ("whitelist", "inject", "gate-open")


def _read(path: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_the_plugin_s_hooks_are_the_section_hooks_install_merges(tmp_path: Path) -> None:
    folder = tmp_path / "plugin"
    args = ["hooks", "plugin", "--fix", ",".join(FIXES), "--command", "todo-bench-hook"]
    assert main([*args, str(folder)]) == 0
    hooks = _read(folder / PLUGIN / "hooks" / "hooks.json")
    assert hooks["hooks"] == hooks_for(FIXES, "todo-bench-hook")
    assert _read(folder / PLUGIN / ".claude-plugin" / "plugin.json")["name"] == PLUGIN
    market = json.loads((folder / ".claude-plugin" / "marketplace.json").read_text())
    assert market["name"] == MARKETPLACE
    assert [(p["name"], p["source"]) for p in market["plugins"]] == [(PLUGIN, f"./{PLUGIN}")]
    written = {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}
    assert written == set(plugin_files(FIXES, None, "0"))


@pytest.mark.parametrize("kind", ["a user's file inside", "a file", "a link"])
def test_a_folder_that_is_not_empty_is_refused_in_one_line_and_left_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    folder = tmp_path / "plugin"
    if kind == "a user's file inside":
        folder.mkdir()
        (folder / "notes.md").write_text("mine", encoding="utf-8")
    elif kind == "a file":
        folder.write_text("mine", encoding="utf-8")
    else:
        (tmp_path / "elsewhere").mkdir()
        folder.symlink_to(tmp_path / "elsewhere")
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    assert main(["hooks", "plugin", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nothing written" in err, err
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before


def test_a_benchmark_only_fix_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["hooks", "plugin", "--fix", "gate-oracle", str(tmp_path / "p")]) == 2
    assert "benchmark episodes only" in capsys.readouterr().err
    assert not (tmp_path / "p").exists()


@pytest.mark.heavy
def test_the_real_claude_code_installs_the_plugin_and_its_hooks_refuse_and_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`claude plugin validate`, `plugin marketplace add` and `plugin install` of the pinned
    binary, offline, in a HOME of the test's own; the installed plugin is listed enabled; then a
    session in a project with no hooks of its own meets the plugin's: the dropping TodoWrite is
    denied, the list injected, the early stop blocked, as with `hooks install` (the same script
    as tests/hooks/test_real_claude_code.py)."""
    try:
        claude = binary(PRODUCTS["cli/claude-code-todowrite"])
    except AgentMissing as missing:
        pytest.skip(f"{missing} (CI runs make agents first)")
    folder = tmp_path / "plugin"
    program = str(Path(sys.executable).parent / "todo-bench-hook")
    args = ["hooks", "plugin", "--fix", ",".join(FIXES), "--command", program]
    assert main([*args, str(folder)]) == 0
    env = {**os.environ, "HOME": str(tmp_path / "home")}
    (tmp_path / "home").mkdir()

    project = tmp_path / "project"
    project.mkdir()

    def claude_says(*args: str) -> str:
        done = subprocess.run(
            [str(claude), "plugin", *args],
            capture_output=True, text=True, env=env, timeout=120, cwd=project,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout + done.stderr

    for checked in (folder, folder / PLUGIN):
        assert "Validation passed" in claude_says("validate", str(checked))
    # in the project's scope: inspect-swe, which runs the session below, writes the user's
    # settings file afresh (its key helper), and a user-scope plugin's entry would go with it
    claude_says("marketplace", "add", "--scope", "project", str(folder))
    claude_says("install", "--scope", "project", f"{PLUGIN}@{MARKETPLACE}")
    listed = claude_says("list")
    assert f"{PLUGIN}@{MARKETPLACE}" in listed
    # its block: the id, then Version, Scope, Status lines
    block = listed.split(f"{PLUGIN}@{MARKETPLACE}", 1)[1].split("❯", 1)[0]
    assert "Status: ✔ enabled" in block, listed
    from tests.hooks.test_real_claude_code import meets_the_fixes

    meets_the_fixes(tmp_path, project, tmp_path / "home", monkeypatch)
