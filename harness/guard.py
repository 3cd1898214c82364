"""Fake tool call detection: a turn that writes a tool call out instead of making it."""

from __future__ import annotations

import re
from collections.abc import Iterable

_TAGS = re.compile(
    r"<\s*/?\s*(tool_call|function_call|tool_use|invoke)\b|<function=|<\|tool_call", re.I
)


def looks_like_fake_call(text: str, tool_names: Iterable[str]) -> bool:
    """True if `text` spells out a call to one of `tool_names` (JSON, tags, or `name(args)`).

    A sentence that only mentions a tool ("I used list_files") is not a fake call.
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
    for match in re.finditer(rf"(?<![\w.])({names})\s*\(([^()]*)\)", text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        prefix = text[line_start : match.start()].strip()
        at_line_start = prefix in ("", "`", "-", "*", ">") or re.fullmatch(r"\d+[.)]", prefix)
        if at_line_start or match.group(2).strip():
            return True
    return False
