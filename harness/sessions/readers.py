"""Session-log readers: each turns one product's log into todo states, user messages and
compactions. JSONL logs are streamed line by line, so a file of any size is read in constant
memory beyond the current list.

Formats (detected from the file, not its name):
- `claude-code`: Claude Code session JSONL; `TodoWrite` full-list calls and the id-based
  `TaskCreate` / `TaskUpdate` (`TaskList` / `TaskGet` are reads); compaction is a
  `compact_boundary` system line or a user line marked `isCompactSummary`.
- `codex`: Codex CLI rollout JSONL; `update_plan` function calls (`plan: [{step, status}]`);
  compaction is a `compacted` line.
- `opencode`: an OpenCode session export (JSON: `info` and `messages[].parts[]`); `todowrite`
  tool parts; a summary message marks a compaction.
- `inspect`: todo-bench's own inspect `.eval` logs (one session per sample), read from the
  harness's ledger.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from harness.sessions.events import Compaction, Event, Item, Note, TaskIssue, TodoState, UserMessage


class AuditError(Exception):
    """A file the audit cannot read; the message says why in one line."""


Session = tuple[str, Iterable[Event]]


def _lines(path: Path, notes: list[str] | None = None) -> Iterator[dict[str, Any]]:
    """The JSON objects of a JSONL file, one line at a time. A last line that is cut off (a
    session still being written) is left out with a note; a broken line elsewhere is an error."""
    with path.open(encoding="utf-8", errors="replace") as handle:
        number, line = 0, handle.readline()
        while line:
            number += 1
            following = handle.readline()
            if line.strip():
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as error:
                    if following or line.endswith("\n"):
                        raise AuditError(f"line {number} is not JSON: {error.msg}") from error
                    if notes is not None:
                        notes.append(f"line {number}, the last, is cut off: left out")
                    return
                if isinstance(record, dict):
                    yield record
            line = following


def _items(entries: Any, text_key: str) -> list[Item]:
    """A product's whole-list entries as items (entries that are not objects are skipped)."""
    if not isinstance(entries, list):
        return []
    return [
        Item(text=str(e.get(text_key, "")), status=str(e.get("status", "")))
        for e in entries
        if isinstance(e, dict)
    ]


def detect(path: Path) -> str:
    """The format of a session log, or AuditError saying why it is none of them."""
    if path.suffix == ".eval":
        return "inspect"
    if not path.is_file():
        raise AuditError("not a file")
    if path.suffix == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
        except json.JSONDecodeError as error:
            raise AuditError(f"not JSON: {error.msg}") from error
        if isinstance(data, dict) and isinstance(data.get("messages"), list):
            return "opencode"
        raise AuditError("a JSON file that is not an OpenCode session export")
    for count, record in enumerate(_lines(path)):
        if count == 0 and isinstance(record.get("info"), dict) and "type" not in record:
            return "opencode"  # an export saved one object per line
        if "payload" in record and record.get("type") in (
            "session_meta",
            "response_item",
            "event_msg",
            "turn_context",
            "compacted",
        ):
            return "codex"
        if record.get("type") in ("user", "assistant", "summary", "system") and (
            "message" in record or "sessionId" in record or "summary" in record
        ):
            return "claude-code"
        if count >= 20:
            break
    raise AuditError("not a Claude Code, Codex or OpenCode session, nor an inspect log")


def read(path: Path) -> tuple[str, list[Session]]:
    """The format and the sessions of one file (their events are read lazily)."""
    fmt = detect(path)
    if fmt == "claude-code":
        return fmt, [(path.stem, _claude_code(path))]
    if fmt == "codex":
        return fmt, [(path.stem, _codex(path))]
    if fmt == "opencode":
        return fmt, [(path.stem, _opencode(path))]
    return fmt, _inspect(path)


# -- Claude Code ---------------------------------------------------------------------------

_NOT_TYPED = ("<command-", "<local-command", "Caveat:", "<system-reminder>")
_CREATED = re.compile(r"Task #(\w+) created")
_LISTED = re.compile(r"^#(\w+) \[(\w+)\] (.*?)(?: \[blocked by [^\]]*\])?(?: \([^)]*\))?$")
_GOT = re.compile(r"^Task #(\w+): (.*)$")
_GOT_STATUS = re.compile(r"^Status: (\w+)", re.MULTILINE)
_NOT_FOUND = re.compile(r"not found", re.IGNORECASE)
_TASK_TOOLS = ("TaskCreate", "TaskUpdate", "TaskList", "TaskGet")


def _dict(value: Any) -> dict[str, Any]:
    """The value if it is a JSON object, else an empty one (logs hold surprising shapes)."""
    return value if isinstance(value, dict) else {}


def _user_text(content: Any) -> str | None:
    """Text the person typed, from a user line's content (None for tool results and meta)."""
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return None
        text = "\n".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    else:
        return None
    text = text.strip()
    return text if text and not text.startswith(_NOT_TYPED) else None


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, list):
        return "\n".join(str(_dict(c).get("text", "")) for c in content)
    return "" if content is None else str(content)


def _claude_code(path: Path) -> Iterator[Event]:
    """Claude Code events; consecutive `TaskCreate` results are one list update (a plan made
    one task at a time is still one plan)."""
    return _bursts(_claude_code_calls(path), ("TaskCreate",))


class _Quiet:
    """A tool result: nothing for the audit, and no end to a burst of creates."""


def _bursts(events: Iterable[Event | _Quiet], tools: tuple[str, ...]) -> Iterator[Event]:
    """Consecutive states of a creating tool as one update (quiet results in between)."""
    burst: TodoState | None = None
    for event in events:
        if isinstance(event, TodoState) and event.tool in tools:
            calls = burst.calls + event.calls if burst else event.calls
            burst = event.model_copy(update={"calls": calls})
            continue
        if isinstance(event, _Quiet):
            continue
        if burst is not None:
            yield burst
            burst = None
        yield event
    if burst is not None:
        yield burst


class _TaskReplay:
    """Claude Code's id-based task list, replayed from the calls and the product's answers.

    Ids are the product's: a created task gets the id its result names (`Task #N created`,
    `toolUseResult.task.id`), whatever order results come in. `TaskList` and `TaskGet` answers
    resynchronise the list (a list made before this log, or shared by an agent team). An update
    the product refused ("Task not found") and an update to a task this log never saw are
    reported as their own issues, never skipped silently.
    """

    def __init__(self) -> None:
        self.tasks: dict[str, Item] = {}
        self.calls: dict[str, tuple[str, dict[str, Any]]] = {}  # tool_use id -> call

    def unanswered(self) -> Iterator[TaskIssue]:
        """The calls whose answers never came (a session cut off, a reduced log)."""
        for name, args in self.calls.values():
            yield TaskIssue(issue="no_result", key=str(args.get("taskId", "")) if name else "")
        self.calls.clear()

    def state(self, tool: str, calls: int = 1) -> TodoState:
        return TodoState(tool=tool, items=list(self.tasks.values()), keyed=True, calls=calls)

    def call(self, block: dict[str, Any]) -> None:
        self.calls[str(block.get("id"))] = (str(block.get("name")), _dict(block.get("input")))

    def answer(self, block: dict[str, Any], extra: dict[str, Any]) -> Iterator[Event]:
        """The events one tool result settles (`extra`: the line's `toolUseResult`)."""
        use_id = block.get("tool_use_id")
        call = self.calls.pop(use_id, None) if isinstance(use_id, str) else None
        if call is None:
            return
        name, args = call
        text = _result_text(block)
        refused = block.get("is_error") is True or extra.get("success") is False
        key = str(args.get("taskId", "")).lstrip("#")
        if refused and not (name != "TaskCreate" and _NOT_FOUND.search(text + str(extra))):
            yield TaskIssue(issue="call_failed", key=key)
            return
        if name == "TaskCreate":
            task = _dict(extra.get("task"))
            named = task.get("id") or (_CREATED.search(text) or [None, None])[1]
            if named is None:
                yield TaskIssue(issue="call_failed", key="")
                return
            key = str(named)
            subject = str(args.get("subject") or task.get("subject") or "")
            self.tasks[key] = Item(key=key, text=subject, status="pending")
            yield self.state("TaskCreate")
        elif name == "TaskUpdate":
            yield from self._update(args, text, extra, refused)
        elif name == "TaskList":
            self._sync_list(extra, text)
            yield self.state("TaskList")
        elif name == "TaskGet":
            if _NOT_FOUND.search(text) and not extra.get("task"):
                yield TaskIssue(issue="task_not_found", key=str(args.get("taskId", "")))
                return
            self._sync_one(extra, text)
            yield self.state("TaskGet")

    def _update(
        self, args: dict[str, Any], text: str, extra: dict[str, Any], refused: bool
    ) -> Iterator[Event]:
        key = str(args.get("taskId", "")).lstrip("#")
        if refused or (_NOT_FOUND.search(text) and not extra.get("success")):
            yield TaskIssue(issue="task_not_found", key=key)
            return
        change = _dict(extra.get("statusChange"))
        if key not in self.tasks:
            # a task made before this log or by a teammate: known from here on, as it was
            yield TaskIssue(issue="unknown_task", key=key, calls=0)
            before = str(change.get("from") or args.get("status") or "pending")
            self.tasks[key] = Item(key=key, text=f"#{key}", status=before)
            yield self.state("TaskGet", calls=0)  # known as it was, before this call
        status = args.get("status")
        if status == "deleted":
            del self.tasks[key]
        else:
            update = {"text": args.get("subject"), "status": status}
            self.tasks[key] = self.tasks[key].model_copy(
                update={k: str(v) for k, v in update.items() if isinstance(v, str) and v}
            )
        yield self.state("TaskUpdate")

    def _sync_list(self, extra: dict[str, Any], text: str) -> None:
        listed = extra.get("tasks")
        entries: list[tuple[str, str, str]] = []
        if isinstance(listed, list):
            for task in map(_dict, listed):
                if task.get("id") is not None:
                    entries.append(
                        (str(task["id"]), str(task.get("subject", "")), str(task.get("status", "")))
                    )
        else:
            for line in text.splitlines():
                found = _LISTED.match(line.strip())
                if found:
                    key, status, subject = found.groups()
                    entries.append((key, subject, status))
        # a list may leave out finished tasks: it adds and corrects, it does not remove
        for key, subject, status in entries:
            self.tasks[key] = Item(key=key, text=subject, status=status or "pending")

    def _sync_one(self, extra: dict[str, Any], text: str) -> None:
        task = _dict(extra.get("task"))
        if task.get("id") is not None:
            key, subject, status = str(task["id"]), str(task.get("subject", "")), task.get("status")
        else:
            got = _GOT.match(text.splitlines()[0] if text else "")
            if got is None:
                return
            key, subject = got.groups()
            found = _GOT_STATUS.search(text)
            status = found.group(1) if found else None
        old = self.tasks.get(key)
        self.tasks[key] = Item(
            key=key, text=subject, status=str(status or (old.status if old else "pending"))
        )


def _claude_code_calls(path: Path) -> Iterator[Event | _Quiet]:
    replay = _TaskReplay()
    notes: list[str] = []
    for record in _lines(path, notes):
        kind = record.get("type")
        message = _dict(record.get("message"))
        if kind == "system" and record.get("subtype") == "compact_boundary":
            yield Compaction()
            continue
        if kind == "user":
            if record.get("isCompactSummary"):
                yield Compaction()
                continue
            if record.get("isMeta"):
                continue
            content = message.get("content")
            text = _user_text(content)
            if text is not None:
                yield UserMessage(text=text)
            elif isinstance(content, list):
                yield _Quiet()
                results = [
                    b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"
                ]
                extra = _dict(record.get("toolUseResult")) if len(results) == 1 else {}
                for block in results:
                    yield from replay.answer(block, extra)
            continue
        if kind != "assistant":
            continue
        for block in message.get("content") or []:
            if not isinstance(block, dict) or block.get("type") != "tool_use":
                continue
            name, args = block.get("name"), _dict(block.get("input"))
            if name == "TodoWrite":
                yield TodoState(tool="TodoWrite", items=_items(args.get("todos"), "content"))
            elif name in _TASK_TOOLS:
                replay.call(block)
    yield from replay.unanswered()
    yield from (Note(text=note) for note in notes)


# -- Codex CLI -----------------------------------------------------------------------------


def _codex(path: Path) -> Iterator[Event]:
    last_user = None
    notes: list[str] = []
    for record in _lines(path, notes):
        kind, payload = record.get("type"), record.get("payload")
        if kind == "compacted" or (
            isinstance(payload, dict) and payload.get("type") == "context_compacted"
        ):
            yield Compaction()
            continue
        if not isinstance(payload, dict):
            continue
        text = None
        if kind == "event_msg" and payload.get("type") == "user_message":
            text = str(payload.get("message", "")).strip()
        elif payload.get("type") == "message" and payload.get("role") == "user":
            parts = payload.get("content") or []
            text = "\n".join(str(p.get("text", "")) for p in parts if isinstance(p, dict)).strip()
            if text.startswith("<"):  # environment context and instructions, not typed
                text = None
        if text:
            if text != last_user:  # a rollout records a typed message twice
                yield UserMessage(text=text)
            last_user = text
            continue
        if payload.get("type") == "function_call" and payload.get("name") == "update_plan":
            raw = payload.get("arguments")
            try:
                arguments = raw if isinstance(raw, dict) else json.loads(str(raw or "{}"))
            except json.JSONDecodeError:
                continue  # the product refused it too: no list was recorded
            plan = arguments.get("plan") if isinstance(arguments, dict) else None
            yield TodoState(tool="update_plan", items=_items(plan, "step"))
            last_user = None
    yield from (Note(text=note) for note in notes)


# -- OpenCode ------------------------------------------------------------------------------


def _opencode(path: Path) -> Iterator[Event]:
    """An OpenCode export: one JSON document, or one object per line (`info`, then each
    message)."""
    notes: list[str] = []
    if path.suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
        messages = data.get("messages", [])
    else:
        messages = (r for r in _lines(path, notes) if "parts" in r)
    for message in messages:
        if not isinstance(message, dict):
            continue
        info = _dict(message.get("info"))
        parts = [p for p in message.get("parts") or [] if isinstance(p, dict)]
        if info.get("summary") is True or any(p.get("type") == "compaction" for p in parts):
            yield Compaction()
            continue
        if info.get("role") == "user":
            # what the person typed; an attachment (`@file`) adds synthetic parts beside it
            text = "\n".join(
                str(p.get("text", ""))
                for p in parts
                if p.get("type") == "text" and not p.get("synthetic")
            )
            if text.strip():
                yield UserMessage(text=text.strip())
            continue
        for part in parts:
            if part.get("type") != "tool" or part.get("tool") != "todowrite":
                continue
            todos = _dict(_dict(part.get("state")).get("input")).get("todos")
            yield TodoState(tool="todowrite", items=_items(todos, "content"))
    yield from (Note(text=note) for note in notes)


# -- todo-bench's own inspect logs ----------------------------------------------------------


def _inspect(path: Path) -> list[Session]:
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(str(path))
    except Exception as error:  # inspect raises several types for a file that is not a log
        raise AuditError(f"not a readable inspect log: {error}") from error
    from harness.episode.record import EpisodeRecord

    sessions: list[Session] = []
    for sample in log.samples or []:
        # the episode record is in the sample store; logs made before 2026-12 kept a copy of
        # the ledger in the score metadata instead
        score = (sample.scores or {}).get("todo_scorer")
        ledger = sample.store_as(EpisodeRecord).ledger_data() or (
            (score.metadata or {}).get("ledger") if score else None
        )
        if not ledger:
            continue
        # a plan created one item at a time (add_todo, TaskCreate) is one plan, as in Claude Code
        events = _bursts(_ledger_events(ledger), ("add_todo", "TaskCreate"))
        sessions.append((f"{sample.id}#{sample.epoch}", list(events)))
    return sessions


def _ledger_events(ledger: dict[str, Any]) -> Iterator[Event]:
    for event in ledger.get("events", []):
        kind = event.get("kind")
        if kind == "user":
            yield UserMessage(text=f"{event.get('action')} {event.get('subtask') or ''}".strip())
        elif kind == "compaction":
            yield Compaction()
        elif kind == "todo" and event.get("accepted"):
            keyed = event.get("tool") != "todo"
            yield TodoState(
                tool=str(event.get("tool")),
                keyed=keyed,
                items=[
                    Item(key=str(i["id"]), text=str(i["text"]), status=str(i["status"]))
                    for i in event.get("after", [])
                ],
            )


# -- how a session ended ------------------------------------------------------------------


def final_reply(path: Path) -> str | None:
    """The agent's last text message in a session log, or None where the log does not hold it
    (a reduced file keeps todo calls, results and user turns, not the agent's prose)."""
    fmt = detect(path)
    last: str | None = None
    if fmt == "inspect":
        return None
    records = (
        json.loads(path.read_text(encoding="utf-8", errors="replace")).get("messages", [])
        if path.suffix == ".json"
        else _lines(path, [])
    )
    for record in records:
        if not isinstance(record, dict):
            continue
        if "_cut" in record:
            last = None  # omitted lines may have held a later reply
            continue
        if fmt == "claude-code" and record.get("type") == "assistant":
            blocks = _dict(record.get("message")).get("content")
            texts = [
                str(_dict(b).get("text", ""))
                for b in blocks or []
                if _dict(b).get("type") == "text"
            ]
            last = "\n".join(t for t in texts if t.strip()) or last
        elif fmt == "codex":
            payload = _dict(record.get("payload"))
            if payload.get("type") == "message" and payload.get("role") == "assistant":
                parts = payload.get("content") or []
                last = "\n".join(str(_dict(p).get("text", "")) for p in parts).strip() or last
        elif fmt == "opencode" and _dict(record.get("info")).get("role") == "assistant":
            parts = [_dict(p) for p in record.get("parts") or []]
            text = "\n".join(str(p.get("text", "")) for p in parts if p.get("type") == "text")
            last = text.strip() or last
    return last
