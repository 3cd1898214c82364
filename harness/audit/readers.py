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

from harness.audit.model import Compaction, Event, Item, TodoState, UserMessage


class AuditError(Exception):
    """A file the audit cannot read; the message says why in one line."""


Session = tuple[str, Iterable[Event]]


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise AuditError(f"line {number} is not JSON: {error.msg}") from error
            if isinstance(record, dict):
                yield record


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

_TASK_ID = re.compile(r"Task #(\w+)")
_NOT_TYPED = ("<command-", "<local-command", "Caveat:", "<system-reminder>")


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


def _claude_code(path: Path) -> Iterator[Event]:
    """Claude Code events; consecutive `TaskCreate` calls are one list update (a plan made
    one task at a time is still one plan)."""
    burst: TodoState | None = None
    for event in _claude_code_calls(path):
        if isinstance(event, TodoState) and event.tool == "TaskCreate":
            calls = burst.calls + 1 if burst else 1
            burst = event.model_copy(update={"calls": calls})
            continue
        if burst is not None and not (isinstance(event, _Quiet)):
            yield burst
            burst = None
        if not isinstance(event, _Quiet):
            yield event
    if burst is not None:
        yield burst


class _Quiet:
    """A tool result: nothing for the audit, and no end to a burst of creates."""


def _claude_code_calls(path: Path) -> Iterator[Event | _Quiet]:
    tasks: dict[str, Item] = {}  # the id-based task list, replayed
    pending: dict[str, str] = {}  # TaskCreate call id -> key given until its result names one
    for record in _lines(path):
        kind = record.get("type")
        raw_message = record.get("message")
        message: dict[str, Any] = raw_message if isinstance(raw_message, dict) else {}
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
                for block in content:
                    if isinstance(block, dict) and block.get("tool_use_id") in pending:
                        given = pending.pop(block["tool_use_id"])
                        named = _TASK_ID.search(json.dumps(block.get("content", "")))
                        if named and named.group(1) != given and given in tasks:
                            # the product's own id, once its result tells it
                            tasks = {
                                (named.group(1) if k == given else k): v.model_copy(
                                    update={"key": named.group(1) if k == given else k}
                                )
                                for k, v in tasks.items()
                            }
            continue
        if kind != "assistant":
            continue
        for block in message.get("content") or []:
            if not isinstance(block, dict) or block.get("type") != "tool_use":
                continue
            name, args = block.get("name"), block.get("input") or {}
            if name == "TodoWrite":
                todos = args.get("todos") if isinstance(args, dict) else None
                yield TodoState(tool="TodoWrite", items=_items(todos, "content"))
            elif name == "TaskCreate" and isinstance(args, dict):
                numeric = [int(k) for k in tasks if k.isdigit()]
                key = str(max(numeric, default=0) + 1)
                pending[str(block.get("id"))] = key
                tasks[key] = Item(key=key, text=str(args.get("subject", "")), status="pending")
                yield TodoState(tool="TaskCreate", items=list(tasks.values()), keyed=True)
            elif name == "TaskUpdate" and isinstance(args, dict):
                key = str(args.get("taskId", ""))
                if key not in tasks:
                    continue
                if args.get("status") == "deleted":
                    del tasks[key]
                else:
                    update = {"text": args.get("subject"), "status": args.get("status")}
                    tasks[key] = tasks[key].model_copy(
                        update={k: str(v) for k, v in update.items() if v}
                    )
                yield TodoState(tool="TaskUpdate", items=list(tasks.values()), keyed=True)
            elif name in ("TaskList", "TaskGet"):
                yield TodoState(tool=name, items=list(tasks.values()), keyed=True)


# -- Codex CLI -----------------------------------------------------------------------------


def _codex(path: Path) -> Iterator[Event]:
    last_user = None
    for record in _lines(path):
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
            try:
                arguments = json.loads(payload.get("arguments") or "{}")
            except json.JSONDecodeError:
                continue  # the product refused it too: no list was recorded
            plan = arguments.get("plan") if isinstance(arguments, dict) else None
            yield TodoState(tool="update_plan", items=_items(plan, "step"))
            last_user = None


# -- OpenCode ------------------------------------------------------------------------------


def _opencode(path: Path) -> Iterator[Event]:
    data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    for message in data.get("messages", []):
        if not isinstance(message, dict):
            continue
        info = message.get("info") or {}
        parts = [p for p in message.get("parts") or [] if isinstance(p, dict)]
        if info.get("summary") is True or any(p.get("type") == "compaction" for p in parts):
            yield Compaction()
            continue
        if info.get("role") == "user":
            text = "\n".join(str(p.get("text", "")) for p in parts if p.get("type") == "text")
            if text.strip() and not any(p.get("synthetic") for p in parts):
                yield UserMessage(text=text.strip())
            continue
        for part in parts:
            if part.get("type") != "tool" or part.get("tool") != "todowrite":
                continue
            todos = ((part.get("state") or {}).get("input") or {}).get("todos")
            yield TodoState(tool="todowrite", items=_items(todos, "content"))


# -- todo-bench's own inspect logs ----------------------------------------------------------


def _inspect(path: Path) -> list[Session]:
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(str(path))
    except Exception as error:  # inspect raises several types for a file that is not a log
        raise AuditError(f"not a readable inspect log: {error}") from error
    from harness.agent import EpisodeRecord

    sessions: list[Session] = []
    for sample in log.samples or []:
        # the episode record is in the sample store; logs made before 2026-12 kept a copy of
        # the ledger in the score metadata instead
        score = (sample.scores or {}).get("todo_scorer")
        ledger = sample.store_as(EpisodeRecord).ledger or (
            (score.metadata or {}).get("ledger") if score else None
        )
        if not ledger:
            continue
        sessions.append((f"{sample.id}#{sample.epoch}", list(_ledger_events(ledger))))
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
