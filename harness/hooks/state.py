"""What the hooks keep between events of one session, in a file per session under
`TODO_BENCH_HOOK_STATE` (default `~/.local/state/todo-bench/hooks`): the last accepted list of the
product's todo tool (TodoWrite, update_plan, write_todos) with the ids the identity rule gave it,
the gates' ticks, and the gate's refusals in a row.

Events of a session can run at once (parallel tool calls), so a hook holds the session's lock
from reading the state to writing it back; the file is replaced atomically. A session with no
state file yet reads its accepted todo calls back from the product's transcript, so hooks
installed mid-session still know the list.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, Field

from harness.hooks.hosts import Host
from harness.todo.base import TodoItem, TodoRejected

#: the environment variable naming the folder of the state files
HOOK_STATE = "TODO_BENCH_HOOK_STATE"


class HookState(BaseModel):
    """One session's state (see the module docstring)."""

    session_id: str
    #: the last accepted todo list, with ids from the identity rule (`harness/todo/identity.py`)
    items: list[TodoItem] = Field(default_factory=list)
    next_id: int = 1
    #: gate-heuristic: the agent's first non-empty list, and which of its items are ticked
    plan: list[str] | None = None
    plan_done: list[bool] = Field(default_factory=list)
    #: gate-oracle: the scenario tracker's done subtasks and met parts of `all_of` rules
    oracle_done: list[str] = Field(default_factory=list)
    oracle_met: list[tuple[str, int, int]] = Field(default_factory=list)
    #: lines of the helper command's journal already observed (benchmark episodes)
    helper_lines: int = 0
    #: the gate's refusals since the agent last stopped (bounded), and in the whole session
    blocks_in_row: int = 0
    blocks: int = 0
    #: Gemini CLI's AfterAgent: the `prompt_response` the gate judged last (it grows over the
    #: prompt: each stop is judged by the text it added, `stop_gate.added_text`)
    judged_response: str = ""


def state_dir() -> Path:
    named = os.environ.get(HOOK_STATE)
    if named:
        return Path(named)
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "todo-bench" / "hooks"


def _file_name(session_id: str) -> str:
    """A file name for a session id: the id itself when it is plain, else its hash."""
    if re.fullmatch(r"[A-Za-z0-9_-]{1,100}", session_id):
        return session_id
    return hashlib.sha256(session_id.encode("utf-8")).hexdigest()


def apply_list(state: HookState, host: Host, entries: object) -> None:
    """Take an accepted todo call's list into the state: the product's own rules and the
    identity rule, as the product's design applies them (`cc-todowrite`, `codex-plan`;
    TodoRejected if the list is malformed)."""
    (spec,) = (s for s in host.store().tool_specs() if s.name == host.tool)
    store = host.store()(None)
    # the design's store, loaded with the state: its next free id is what the state keeps
    store.items, store._next_id = list(state.items), state.next_id
    spec.run(store, {host.dialect.key: entries})
    state.items, state.next_id = store.items, store._next_id


def _from_transcript(session_id: str, transcript: str, host: Host) -> HookState:
    """A state rebuilt from the accepted todo calls of the product's session record."""
    state = HookState(session_id=session_id)
    path = Path(transcript) if transcript else None
    if path is None or not path.is_file():
        return state
    for call in host.calls(path):
        if call.tool == host.tool and call.result is not None and not call.refused:
            with contextlib.suppress(TodoRejected):
                apply_list(state, host, call.args.get(host.dialect.key))
    return state


@contextlib.contextmanager
def session_state(session_id: str, host: Host, transcript: str = "") -> Iterator[HookState]:
    """The session's state, locked for the block and written back after it (not on error)."""
    folder = state_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{_file_name(session_id)}.json"
    with open(path.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if path.is_file():
            state = HookState.model_validate_json(path.read_text(encoding="utf-8"))
        else:
            state = _from_transcript(session_id, transcript, host)
        yield state
        scratch = path.with_suffix(f".{os.getpid()}.tmp")
        scratch.write_text(state.model_dump_json(), encoding="utf-8")
        os.replace(scratch, path)
