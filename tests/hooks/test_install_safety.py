"""`todo-bench hooks install / uninstall` on hostile projects: every file it must not touch gets
one line on stderr, exit 2, and the project byte for byte as it was (links still links, nothing
created outside); a link to a settings file is written through and kept; concurrent installs
take turns, and uninstall gives back the user's bytes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.commands import main
from tests.helpers import todo_bench_bounded

PROGRAM = "/opt/venv/bin/todo-bench-hook"
USERS = (
    '{\r\n  "model": "opus",\r\n'
    '  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}\r\n}\r\n'
)


def _tree(root: Path) -> dict[str, object]:
    """Every entry under root: a link's target, a file's bytes and mode, a folder's mode."""
    out: dict[str, object] = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        if path.is_symlink():
            out[key] = ("link", os.readlink(path))
        elif path.is_file():
            out[key] = ("file", path.read_bytes(), path.stat().st_mode)
        else:
            out[key] = ("other", path.stat().st_mode)
    return out


def _refused(project: Path, outside: Path, *words: str) -> None:
    before, elsewhere = _tree(project), _tree(outside)
    for command in ("install", "uninstall"):
        done = todo_bench_bounded(["hooks", command, str(project)], cwd=project)
        if command == "uninstall" and done.returncode == 0:  # nothing of ours to find is fine
            assert "no todo-bench hooks" in done.stdout
            continue
        assert done.returncode == 2, (command, done.stdout, done.stderr)
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
        assert all(word in done.stderr for word in words), done.stderr
        assert _tree(project) == before and _tree(outside) == elsewhere


def _settings(project: Path) -> Path:
    path = project / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    return project, outside


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"", ("not JSON",)),
        (b"{'model': 'opus'}", ("not JSON",)),
        (b"[" * 100_000 + b"]" * 100_000, ("nested deeper than 100 levels",)),
        (b'{"a":' * 150 + b"1" + b"}" * 150, ("nested deeper than 100 levels",)),
        (b'{"model": "' + b"x" * 2_000_000 + b'"}', ("larger than 1,000,000 bytes",)),
        (b'{"model": "\xff"}', ("not UTF-8",)),
        (b"[1, 2]", ("not a JSON object",)),
    ],
    ids=["empty", "not-json", "deep-100000", "deep-150", "huge", "not-utf8", "array"],
)
def test_a_settings_file_that_is_not_settings_is_left_untouched(
    places: tuple[Path, Path], content: bytes, words: tuple[str, ...]
) -> None:
    project, outside = places
    _settings(project).write_bytes(content)
    _refused(project, outside, *words)


def test_a_fifo_is_refused_without_opening_it(places: tuple[Path, Path]) -> None:
    project, outside = places
    os.mkfifo(_settings(project))
    _refused(project, outside, "a named pipe (fifo)")  # 691d616: hung on the read


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null", "/dev/urandom"])
def test_a_link_to_a_device_is_refused(places: tuple[Path, Path], device: str) -> None:
    project, outside = places
    _settings(project).symlink_to(device)
    _refused(project, outside, "a character device")  # 691d616: "installed" /dev/zero


def test_a_dangling_link_is_refused_and_nothing_is_created_where_it_points(
    places: tuple[Path, Path],
) -> None:
    project, outside = places
    _settings(project).symlink_to(outside / "missing.json")
    _refused(project, outside, "does not exist")  # 691d616: created outside/missing.json
    assert not (outside / "missing.json").exists()


def test_a_link_to_a_folder_and_a_claude_file_are_refused(places: tuple[Path, Path]) -> None:
    project, outside = places
    _settings(project).symlink_to(outside)
    _refused(project, outside, "a folder")
    other = places[0].parent / "other"
    other.mkdir()
    (other / ".claude").write_text("not a folder", encoding="utf-8")
    _refused(other, outside, "not a folder")


def test_a_read_only_file_or_project_is_left_as_it_is(places: tuple[Path, Path]) -> None:
    project, outside = places
    path = _settings(project)
    path.write_bytes(USERS.encode("utf-8"))
    path.chmod(0o444)
    _refused(project, outside, "read-only")
    bare = project.parent / "bare"
    bare.mkdir()
    bare.chmod(0o555)
    try:
        _refused(bare, outside, "read-only")
    finally:
        bare.chmod(0o755)


def test_a_broken_install_record_is_one_line(places: tuple[Path, Path]) -> None:
    project, outside = places
    path = _settings(project)
    path.write_bytes(USERS.encode("utf-8"))
    (path.parent / "todo-bench-hooks.json").write_text('{"original": 3}', encoding="utf-8")
    _refused(project, outside, "not a todo-bench install record")


def test_surrogates_install_and_uninstall_to_the_same_bytes(places: tuple[Path, Path]) -> None:
    project, _ = places
    path = _settings(project)
    users = '{"model": "\\ud800 lone", "note": "caf\u00e9"}\n'
    path.write_text(users, encoding="utf-8")
    assert main(["hooks", "install", "--command", PROGRAM, str(project)]) == 0
    assert json.loads(path.read_text(encoding="utf-8"))["model"] == "\ud800 lone"
    assert main(["hooks", "uninstall", str(project)]) == 0
    assert path.read_text(encoding="utf-8") == users


def test_a_link_to_a_file_outside_is_written_through_and_kept(
    places: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    project, outside = places
    real = outside / "settings.json"
    real.write_bytes(USERS.encode("utf-8"))
    link = _settings(project)
    link.symlink_to(real)
    assert main(["hooks", "install", "--command", PROGRAM, str(project)]) == 0
    assert f"the file changed is {real}, outside the project" in capsys.readouterr().out
    assert link.is_symlink() and "todo-bench-hook" in real.read_text(encoding="utf-8")
    assert main(["hooks", "uninstall", str(project)]) == 0
    # 691d616 deleted the user's link on uninstall
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_bytes() == USERS.encode("utf-8")


def test_uninstall_keeps_a_link_the_user_put_in_place_of_a_created_file(
    places: tuple[Path, Path],
) -> None:
    project, outside = places
    assert main(["hooks", "install", "--command", PROGRAM, str(project)]) == 0
    path = project / ".claude" / "settings.json"
    real = outside / "mine.json"
    real.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(real)
    assert main(["hooks", "uninstall", str(project)]) == 0
    assert path.is_symlink() and json.loads(real.read_text(encoding="utf-8")) == {}


def _concurrent(project: Path, path: Path, trials: int) -> None:
    code = "import sys; from harness.commands import main; sys.exit(main(sys.argv[1:]))"
    for trial in range(trials):
        path.write_bytes(USERS.encode("utf-8"))
        installs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    code,
                    "hooks",
                    "install",
                    "--command",
                    PROGRAM,
                    "--fix",
                    fixes,
                    str(project),
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )  # fmt: skip
            for fixes in ["textlock", "whitelist,inject", "gate-open", "inject"] * 2
        ]
        for process in installs:
            out, err = process.communicate(timeout=120)
            assert process.returncode == 0 and err == "", (trial, out, err)
        settings = json.loads(path.read_text(encoding="utf-8"))  # valid JSON every time
        assert settings["hooks"]["Stop"][0] == json.loads(USERS)["hooks"]["Stop"][0]
        done = todo_bench_bounded(["hooks", "uninstall", str(project)], cwd=project)
        assert done.returncode == 0 and "restored as it was" in done.stdout, (trial, done)
        assert path.read_bytes() == USERS.encode("utf-8")
        assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]


def test_eight_installs_at_once_take_turns(places: tuple[Path, Path]) -> None:
    project, _ = places
    _concurrent(project, _settings(project), 1)


@pytest.mark.heavy
def test_eight_installs_at_once_six_times(places: tuple[Path, Path]) -> None:
    """Six trials in CI (about 4 s each); 20 by hand on 2026-12-06 (docs/robustness.md)."""
    project, _ = places
    _concurrent(project, _settings(project), 6)
