"""Run the hook program as Claude Code does: a process, the event's JSON on stdin."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from harness.agents.binaries import AgentMissing, binary
from harness.commands import main
from harness.episode.prompts import INJECTED_LIST
from harness.hooks.hosts import HOSTS, Host
from harness.hooks.journal import HOOK_JOURNAL, HookRecord
from harness.hooks.listlock import refusal
from harness.hooks.state import HOOK_STATE, HookState, apply_list
from harness.products.product import CliProduct
from harness.todo.base import render


@dataclass
class Reply:
    code: int
    answer: dict[str, Any] | None
    stderr: str


@dataclass
class Hooks:
    """The hook program in one session, with its state folder and journal in tmp_path."""

    tmp: Path
    session: str = "s1"
    #: the product the hook program is told it runs in (None: the default, Claude Code)
    product: str | None = None

    @property
    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            HOOK_STATE: str(self.tmp / "state"),
            HOOK_JOURNAL: str(self.tmp / "journal.jsonl"),
        }

    def run(self, fixes: str, payload: dict[str, Any] | str, **env: str) -> Reply:
        text = payload if isinstance(payload, str) else json.dumps(payload)
        named = [] if self.product is None else ["--product", self.product]
        done = subprocess.run(
            [sys.executable, "-m", "harness.hooks", *named, fixes],
            input=text,
            capture_output=True,
            text=True,
            env={**self.env, **env},
            timeout=60,
            check=False,
        )
        answer = json.loads(done.stdout) if done.stdout.strip() else None
        return Reply(done.returncode, answer, done.stderr)

    def event(self, event: str, **fields: Any) -> dict[str, Any]:
        return {
            "session_id": self.session,
            "transcript_path": "",
            "cwd": str(self.tmp),
            "hook_event_name": event,
            **fields,
        }

    def todo_write(self, event: str, todos: list[dict[str, str]]) -> dict[str, Any]:
        return self.event(event, tool_name="TodoWrite", tool_input={"todos": todos})

    def journal(self) -> list[HookRecord]:
        path = self.tmp / "journal.jsonl"
        if not path.is_file():
            return []
        lines = path.read_text(encoding="utf-8").splitlines()
        return [HookRecord.model_validate_json(line) for line in lines]


def todos(*texts: str, done: tuple[str, ...] = ()) -> list[dict[str, str]]:
    """A TodoWrite list: the texts, those in `done` completed, the rest pending."""
    return [
        {"content": t, "status": "completed" if t in done else "pending", "activeForm": t}
        for t in texts
    ]


def denial(reason: str) -> dict[str, object]:
    """PreToolUse's deny, as both products' docs write it (the wire under test, by hand)."""
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }


@pytest.fixture
def hooks(tmp_path: Path) -> Hooks:
    return Hooks(tmp_path)


def real_cli(product: CliProduct) -> list[pytest.MarkDecorator]:
    """The marks of a test of the real CLI outside any benchmark: heavy, skipped (saying why)
    where the pinned binary is not installed."""
    marks = [pytest.mark.heavy]
    try:
        binary(product)
    except AgentMissing as missing:
        marks.append(pytest.mark.skip(reason=f"{missing} (CI runs make agents first)"))
    return marks


def round_trip(
    tmp: Path, product: str, users: str, fixes: str, program: str
) -> tuple[dict[str, Any], str]:
    """`hooks install --product PRODUCT` over a user's own hooks file `users`, twice (the second
    a no-op), then uninstall (the file restored byte for byte, nothing else left in the
    product's folder, and no other product's folder made); what the install wrote, and what it
    printed."""
    path = tmp / HOSTS[product].config
    path.parent.mkdir()
    path.write_bytes(users.encode("utf-8"))
    args = ["hooks", "install", "--product", product, "--fix", fixes, "--command", program,
            str(tmp)]  # fmt: skip
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(args) == 0
    installed = json.loads(path.read_bytes())
    before = path.read_bytes()
    assert main(args) == 0  # idempotent
    assert path.read_bytes() == before
    others = {h.config.split("/")[0] for h in HOSTS.values()} - {
        HOSTS[product].config.split("/")[0]
    }
    assert not any((tmp / folder).exists() for folder in others)
    assert main(["hooks", "uninstall", "--product", product, str(tmp)]) == 0
    assert path.read_bytes() == users.encode("utf-8")
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]
    return installed, out.getvalue()


def verdicts(host: Host, planned: object, dropped: object, kept: object) -> tuple[str, str, str]:
    """What the rule code computes here in-process from the lists of the scripts in
    `test_real_*.py`: the whitelist's reason for the dropping rewrite, and the injected list
    after the plan and after the kept list."""
    state = HookState(session_id="expected")
    apply_list(state, host, planned)
    reason = refusal(state, ("whitelist",), host, dropped)
    assert reason is not None and "missing ids: #2 'Write b.md'" in reason
    planned_list = INJECTED_LIST.format(rendered=render(state.items))
    apply_list(state, host, kept)
    return reason, planned_list, INJECTED_LIST.format(rendered=render(state.items))


def counted(records: list[HookRecord], host: Host, planned: object, dropped: object) -> str:
    """The journal of a real binary's run of the scripts in `test_real_*.py` (plan, a call,
    a dropping rewrite, a claim, the kept list): two injections, the denial, the blocked claim
    and an injection, each as the rule code computes it (`verdicts`); the denial's reason."""
    reason, planned_list, _ = verdicts(host, planned, dropped, planned)
    assert [r.action for r in records] == ["injected", "injected", "denied", "blocked", "injected"]
    assert [r.event for r in records] == [
        "PostToolUse", "PostToolUse", "PreToolUse", "Stop", "PostToolUse"
    ]  # fmt: skip
    assert (records[2].tool, records[2].text) == (host.tool, reason)
    assert records[0].text == records[1].text == planned_list
    return reason
