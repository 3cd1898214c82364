"""Session-log readers: each turns one product's log into todo states, user messages and
compactions. The products' own formats are parsed by their modules (`harness/products/`); this
module recognises which a file is and reads todo-bench's own inspect logs.

Formats (detected from the file, not its name):
- `claude-code`: Claude Code session JSONL (`harness/products/shipped/claude_code.py`).
- `codex`: Codex CLI rollout JSONL (`harness/products/shipped/codex.py`).
- `opencode`: an OpenCode session export (JSON: `info` and `messages[].parts[]`;
  `harness/products/shipped/opencode.py`).
- `gemini-cli`: Gemini CLI's chat JSONL (`harness/products/shipped/gemini_cli.py`).
- `inspect`: todo-bench's own inspect `.eval` logs (one session per sample), read from the
  harness's ledger.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from harness.products.catalog import FORMATS, TASK_TOOLS
from harness.products.reading import RecordError, bursts, lines
from harness.products.session_record import Compaction, Event, Item, TodoState, UserMessage
from harness.products.shipped import opencode

Session = tuple[str, Iterable[Event]]
_BY_NAME = {f.name: f for f in FORMATS}


def detect(path: Path) -> str:
    """The format of a session log, or RecordError saying why it is none of them."""
    if path.suffix == ".eval":
        return "inspect"
    if not path.is_file():
        raise RecordError("not a file")
    if path.suffix == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
        except json.JSONDecodeError as error:
            raise RecordError(f"not JSON: {error.msg}") from error
        if opencode.recognises_export(data):
            return opencode.CLI
        raise RecordError("a JSON file that is not an OpenCode session export")
    for count, record in enumerate(lines(path)):
        for fmt in FORMATS:
            # an OpenCode export saved one object per line opens with its `info`
            if fmt.recognises(record) and (count == 0 or fmt.name != opencode.CLI):
                return fmt.name
        if count >= 20:
            break
    known = ", ".join(f.name for f in FORMATS)
    raise RecordError(f"not a session record of any product ({known}), nor an inspect log")


def read(path: Path) -> tuple[str, list[Session]]:
    """The format and the sessions of one file (their events are read lazily)."""
    fmt = detect(path)
    if fmt in _BY_NAME:
        return fmt, [(path.stem, _BY_NAME[fmt].events(path))]
    return fmt, _inspect(path)


# -- todo-bench's own inspect logs ----------------------------------------------------------


def _inspect(path: Path) -> list[Session]:
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(str(path))
    except Exception as error:  # inspect raises several types for a file that is not a log
        raise RecordError(f"not a readable inspect log: {error}") from error
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
        events = bursts(_ledger_events(ledger), ("add_todo", *(t.create for t in TASK_TOOLS)))
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
    if fmt not in _BY_NAME:
        return None
    records: Iterable[Any] = (
        opencode.final_records(path) if path.suffix == ".json" else lines(path, [])
    )
    last: str | None = None
    for record in records:
        if not isinstance(record, dict):
            continue
        if "_cut" in record:
            last = None  # omitted lines may have held a later reply
            continue
        last = _BY_NAME[fmt].final_text(record) or last
    return last
