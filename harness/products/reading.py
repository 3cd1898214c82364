"""Reading a product's own records: JSONL streamed a line at a time (a file of any size in
constant memory beyond the current line), and the surprising shapes real logs hold."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from harness.products.session_record import Event, Item, TodoState


class RecordError(Exception):
    """A file no reader can read; the message says why in one line."""


def as_dict(value: Any) -> dict[str, Any]:
    """The value if it is a JSON object, else an empty one (logs hold surprising shapes)."""
    return value if isinstance(value, dict) else {}


def lines(path: Path, notes: list[str] | None = None) -> Iterator[dict[str, Any]]:
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
                        raise RecordError(f"line {number} is not JSON: {error.msg}") from error
                    if notes is not None:
                        notes.append(f"line {number}, the last, is cut off: left out")
                    return
                if isinstance(record, dict):
                    yield record
            line = following


def items(entries: Any, text_key: str) -> list[Item]:
    """A product's whole-list entries as items (entries that are not objects are skipped)."""
    if not isinstance(entries, list):
        return []
    return [
        Item(text=str(e.get(text_key, "")), status=str(e.get("status", "")))
        for e in entries
        if isinstance(e, dict)
    ]


class Quiet:
    """A tool result: nothing for the audit, and no end to a burst of creates."""


def bursts(events: Iterable[Event | Quiet], tools: tuple[str, ...]) -> Iterator[Event]:
    """Consecutive states of a creating tool as one update (quiet results in between): a plan
    made one item at a time is still one plan."""
    burst: TodoState | None = None
    for event in events:
        if isinstance(event, TodoState) and event.tool in tools:
            calls = burst.calls + event.calls if burst else event.calls
            burst = event.model_copy(update={"calls": calls})
            continue
        if isinstance(event, Quiet):
            continue
        if burst is not None:
            yield burst
            burst = None
        yield event
    if burst is not None:
        yield burst
