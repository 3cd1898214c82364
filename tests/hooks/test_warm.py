"""The warm hook server (harness/hooks/warm.py, warm_server.py): the same answers as the
program run cold, each call in its own environment, the server on the path of every call once
it is up, and a fallback to the cold program wherever the warm path cannot be used; the server
never outlives its folder or its idle time."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.hooks.budget import HOOK_BUDGET
from harness.hooks.state import HOOK_STATE
from harness.hooks.warm import RESPAWN, TITLE, WARM, WARM_DIR, stamp
from harness.hooks.warm_server import WARM_IDLE
from tests.helpers import ROOT
from tests.hooks.conftest import Hooks, Reply, todos

FIXES = "textlock,whitelist,inject,gate-heuristic"
PLAN = ("Write src/main.py", "Write tests/test_main.py", "Update README.md")


@pytest.fixture
def folder() -> Iterator[Path]:
    """A short folder for the sockets (a pytest tmp_path can pass the kernel's 107 bytes)."""
    made = Path(tempfile.mkdtemp(prefix="tbw-"))
    yield made
    shutil.rmtree(made, ignore_errors=True)
    _until(lambda: not servers(made, forks=True), "the server ends with its folder")


def servers(folder: Path, forks: bool = False) -> list[int]:
    """The pids of warm servers whose socket is in `folder` (with `forks`, their forks too,
    which share their command line)."""
    found: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if TITLE.encode() in command and any(str(folder).encode() in a for a in command):
            found[int(entry.name)] = parent
    return sorted(pid for pid, parent in found.items() if forks or parent not in found)


def _until(done: Callable[[], bool], what: str, within: float = 15.0) -> None:
    end = time.monotonic() + within
    while not done():
        assert time.monotonic() < end, f"not within {within} s: {what}"
        time.sleep(0.05)


def _up(folder: Path, **env: str) -> int:
    """Start the folder's server by a first call (answered cold, its state and journal aside)
    and wait until it listens; its pid."""
    aside = Hooks(Path(tempfile.mkdtemp(prefix="tbw-up-")), session="warm-up")
    try:
        aside.run(
            FIXES, aside.event("UserPromptSubmit", prompt="hi"), **{WARM_DIR: str(folder)}, **env
        )
        _until(lambda: any(_listening(p) for p in folder.glob("*.sock")), "the server listens")
    finally:
        shutil.rmtree(aside.tmp, ignore_errors=True)
    (pid,) = servers(folder)
    return pid


def _session(hooks: Hooks, **env: str) -> list[Reply]:
    """A session's events through the hook program: the plan recorded and injected, a
    rewording denied, a tool call injected, a claim of done with work left blocked."""
    reworded = todos("Write the src/main.py", *PLAN[1:])
    write = {"file_path": str(hooks.tmp / "src/main.py"), "content": "print(1)\n"}
    events = [
        hooks.todo_write("PostToolUse", todos(*PLAN)),
        hooks.todo_write("PreToolUse", reworded),
        hooks.event("PostToolUse", tool_name="Write", tool_input=write, tool_response={}),
        hooks.event("Stop", stop_hook_active=False, last_assistant_message="All done."),
    ]
    return [hooks.run(FIXES, event, **env) for event in events]


def _kept(hooks: Hooks) -> tuple[list[tuple[str, str, str]], list[bytes]]:
    journal = [(r.event, str(r.action), r.text) for r in hooks.journal()]
    return journal, sorted(p.read_bytes() for p in (hooks.tmp / "state").glob("*.json"))


def test_the_warm_server_answers_as_the_program_run_cold(tmp_path: Path, folder: Path) -> None:
    cold = Hooks(tmp_path / "cold")
    warm = Hooks(tmp_path / "warm")
    for hooks in (cold, warm):
        hooks.tmp.mkdir()
    pid = _up(folder)
    cold_replies = _session(cold, **{WARM: "0"})
    warm_replies = _session(warm, **{WARM_DIR: str(folder)})
    assert [r.answer is not None for r in cold_replies] == [True, True, True, True]
    assert warm_replies == [
        Reply(r.code, _moved(r.answer, cold.tmp, warm.tmp), r.stderr) for r in cold_replies
    ]
    cold_journal, cold_state = _kept(cold)
    warm_journal, warm_state = _kept(warm)
    assert [a for _, a, _ in cold_journal] == ["injected", "denied", "injected", "blocked"]
    assert warm_journal == [
        (e, a, t.replace(str(cold.tmp), str(warm.tmp))) for e, a, t in cold_journal
    ]
    assert warm_state == [
        s.replace(str(cold.tmp).encode(), str(warm.tmp).encode()) for s in cold_state
    ]
    assert servers(folder) == [pid]  # one server took every call
    assert not servers(tmp_path)


def _moved(answer: Any, old: Path, new: Path) -> Any:
    if isinstance(answer, str):
        return answer.replace(str(old), str(new))
    if isinstance(answer, dict):
        return {k: _moved(v, old, new) for k, v in answer.items()}
    if isinstance(answer, list):
        return [_moved(v, old, new) for v in answer]
    return answer


def test_every_call_goes_to_the_server_once_it_is_up(hooks: Hooks, folder: Path) -> None:
    """A stopped server (and its spare) holds the call: the client gives up after the budget
    and its margin, exit 1 (the product lets the call through) with a journal line. A killed
    server leaves its socket behind: the next call is answered cold and starts a server in its
    place."""
    pid = _up(folder)
    # the server listens before it forks its first spare: wait for the spare
    _until(lambda: len(servers(folder, forks=True)) >= 2, "the server forks its spare")
    family = servers(folder, forks=True)  # the server and its spare
    assert pid in family
    for member in family:
        os.kill(member, signal.SIGSTOP)
    try:
        started = time.monotonic()
        reply = hooks.run(FIXES, hooks.todo_write("PostToolUse", todos(*PLAN)),
                          **{WARM_DIR: str(folder), HOOK_BUDGET: "1"})  # fmt: skip
        waited = time.monotonic() - started
        last = hooks.journal()[-1]
    finally:
        for member in family:
            os.kill(member, signal.SIGCONT)
    assert 3.5 < waited < 15
    assert reply.code == 1 and "warm hook server gave no answer within 4 s" in reply.stderr
    assert (last.action, last.session_id, last.event) == ("failed", "s1", "PostToolUse")
    os.kill(pid, signal.SIGKILL)
    _until(lambda: not servers(folder, forks=True), "the killed server and its spare are gone")
    (dead,) = folder.glob("*.sock")
    assert not _listening(dead)
    call = hooks.todo_write("PostToolUse", todos(*PLAN))
    # within a minute of the dead server's start its lock file says "starting": answered cold,
    # no new server (a server that cannot start is tried once a minute, not at every call)
    reply = hooks.run(FIXES, call, **{WARM_DIR: str(folder)})
    assert reply.code == 0 and reply.answer is not None
    time.sleep(2)
    assert not servers(folder, forks=True)
    lock = dead.with_name(dead.name + ".lock")
    os.utime(lock, (time.time() - RESPAWN - 1,) * 2)
    reply = hooks.run(FIXES, call, **{WARM_DIR: str(folder)})
    assert reply.code == 0 and reply.answer is not None
    _until(lambda: len(servers(folder)) == 1 and _listening(dead), "a server in its place")
    assert servers(folder) != [pid]


def test_each_call_runs_in_its_own_environment(tmp_path: Path, folder: Path) -> None:
    hooks = Hooks(tmp_path)
    _up(folder)
    for name in ("one", "two"):
        reply = hooks.run(FIXES, hooks.todo_write("PostToolUse", todos(*PLAN)),
                          **{WARM_DIR: str(folder), HOOK_STATE: str(tmp_path / name)})  # fmt: skip
        assert reply.code == 0
    assert [len(list((tmp_path / n).glob("*.json"))) for n in ("one", "two")] == [1, 1]


@pytest.mark.parametrize("case", ["off", "shared folder", "path too long"])
def test_where_the_warm_path_cannot_be_used_the_call_is_answered_cold(
    hooks: Hooks, folder: Path, case: str
) -> None:
    env = {WARM_DIR: str(folder)}
    if case == "off":
        env[WARM] = "0"
    elif case == "shared folder":
        folder.chmod(0o777)
    else:
        env[WARM_DIR] = str(folder / ("x" * 100))
    reply = hooks.run(FIXES, hooks.todo_write("PostToolUse", todos(*PLAN)), **env)
    assert reply.code == 0 and reply.answer is not None
    time.sleep(1)
    assert not servers(folder) and not list(folder.rglob("*.sock"))


def _listening(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX)
    try:
        probe.connect(str(path))
        return True
    except OSError:
        return False
    finally:
        probe.close()


def test_the_server_ends_when_idle_and_when_its_folder_goes(folder: Path) -> None:
    _up(folder, **{WARM_IDLE: "1"})
    _until(lambda: not servers(folder, forks=True), "the idle server ends", within=10)
    assert not list(folder.glob("*.sock*"))  # its socket and lock removed
    _up(folder)
    shutil.rmtree(folder)
    _until(lambda: not servers(folder, forks=True), "the server ends with its folder", within=10)


def test_a_changed_file_of_the_package_names_another_server(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "sub" / "rules.yaml").write_text("a: 1\n")
    (package / "mod.py").write_text("x = 1\n")
    first = stamp(str(package))
    assert stamp(str(package)) == first
    (package / "sub" / "rules.yaml").write_text("a: 22\n")
    assert stamp(str(package)) != first


def test_a_call_from_a_folder_that_is_gone_is_answered_without_a_traceback(
    hooks: Hooks, folder: Path
) -> None:
    _up(folder)
    gone = hooks.tmp / "gone"
    gone.mkdir()
    payload = json.dumps(hooks.todo_write("PostToolUse", todos(*PLAN)))
    script = f'cd "{gone}" && rmdir "{gone}" && exec "$0" -m harness.hooks "$1"'
    done = subprocess.run(
        ["sh", "-c", script, sys.executable, FIXES],
        input=payload,
        capture_output=True,
        text=True,
        env={**hooks.env, WARM_DIR: str(folder), "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
