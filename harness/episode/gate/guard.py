"""Fake tool call detection: a turn that writes a tool call out instead of making it."""

from __future__ import annotations

import re
from collections.abc import Iterable

_TAGS = re.compile(
    r"<\s*/?\s*(tool_call|function_call|tool_use|invoke)\b|<function=|<\|tool_call", re.I
)
#: argument text that only a call has: key=value, key: value, quotes, JSON
_CALL_ARGS = re.compile(r"=|:|[\"'{\[]")
#: a line that reports what was done ("I called ...", "- write_file(main.py)") is a summary
_REPORTED = re.compile(
    r"\b(called|ran|used|invoked|executed|via|with|using|through|did|done|was|were)\b", re.I
)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


def looks_like_fake_call(text: str, tool_names: Iterable[str]) -> bool:
    """True if `text` spells out a call to one of `tool_names` (JSON, tags, or `name(args)`).

    A mention ("I used list_files") or a summary line ("- write_file(main.py)", "1. list_files()")
    is not a fake call. `name(args)` counts when the line does not report it ("I called ...")
    and either its arguments look like a call's (`key=value`, quotes, JSON) or it stands alone
    on a line that is not a list item (optionally in backticks).
    """
    if not text.strip():
        return False
    if _TAGS.search(text):
        return True
    names = "|".join(re.escape(n) for n in sorted(set(tool_names), key=len, reverse=True))
    if not names:
        return False
    json_call = re.compile(
        rf"[\"'](?:name|function|tool|tool_name)[\"']\s*:\s*[\"']({names})[\"']", re.I
    )
    if json_call.search(text):
        return True
    # llama.cpp's function-calling prompt format, emitted as text when parsing fails
    if re.search(rf"(?<![\w.])functions\.({names})\b", text):
        return True
    for match in re.finditer(rf"(?<![\w.])({names})\s*\(((?:[^()]|\([^()]*\))*)\)", text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        line_end = text.find("\n", match.end())
        line = text[line_start : line_end if line_end >= 0 else len(text)]
        before = text[line_start : match.start()]
        after = text[match.end() : line_end if line_end >= 0 else len(text)]
        if _REPORTED.search(before):
            continue
        if _CALL_ARGS.search(match.group(2)):
            return True
        alone = before.strip() in ("", "`") and after.strip() in ("", "`", ";")
        if alone and not _LIST_ITEM.match(line):
            return True
    return False
