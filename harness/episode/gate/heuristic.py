"""The deployable TaskStateTracker of the second seed: no oracle.

Its subtasks are the agent's own plan (its first todo list); a plan item is ticked by a
successful tool call that a keyword rule (`heuristic_rules.yaml`, English and Chinese) links to
its text, on one of the files the text names. Where no rule fits, the item stays pending: the
tracker would rather block a correct claim than let a false one through. It never sees the
scenario; `tests/episode/gate/test_heuristic.py` checks that.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness import paths

RULES = Path(__file__).with_name("heuristic_rules.yaml")
#: a file named in a plan item: `1.xlsx`, `exports/report.csv` (ASCII names, in any language)
_FILE = re.compile(r"[A-Za-z0-9_\-./]*[A-Za-z0-9_\-]\.[A-Za-z][A-Za-z0-9]{0,4}\b")
_PATH_ARGS = ("path", "src", "dst")


class KeywordRule(BaseModel):
    """Plan items with one of `keywords` are done by a successful call of one of `tools`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    keywords: list[str] = Field(min_length=1)
    tools: list[str] = Field(min_length=1)
    args: dict[str, Any] = Field(default_factory=dict)
    #: one call covers every file the item names (create_excel from all workspace files)
    covers_files: bool = False

    def fits(self, text: str) -> bool:
        lowered = text.lower()
        for keyword in self.keywords:
            if keyword.isascii():
                if re.search(rf"(?<![a-z0-9]){re.escape(keyword.lower())}s?(?![a-z0-9])", lowered):
                    return True
            elif keyword in text:
                return True
        return False

    def accepts(self, tool: str, args: dict[str, Any]) -> bool:
        return tool in self.tools and all(args.get(k) == v for k, v in self.args.items())


class KeywordTable(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    rules: list[KeywordRule]


@cache
def load_table(path: Path = RULES) -> KeywordTable:
    """A keyword table file; a broken one is a ValueError naming the file and the field."""
    try:
        return KeywordTable.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except OSError as error:
        raise ValueError(f"{path}: cannot read the keyword table ({error.strerror})") from error
    except yaml.YAMLError as error:
        raise ValueError(f"{path}: not YAML ({str(error).splitlines()[0]})") from error
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        raise ValueError(f"{path}: field '{field}': {first['msg']}") from error


def named_files(text: str) -> list[str]:
    """Files a plan item names, as normalised workspace paths."""
    found = []
    for match in _FILE.findall(text):
        try:
            found.append(paths.normalise(match.rstrip(".")))
        except paths.PathRefused:
            continue
    return found


class PlanItem(BaseModel):
    """One subtask of the agent's own plan, as the heuristic tracker holds it."""

    id: str
    text: str
    rules: list[str]
    files: list[str]
    done: bool = False


class HeuristicTracker:
    """Ticks the agent's own plan items by keyword rules; the gate asks it what is pending."""

    def __init__(self, plan: Sequence[str], table: KeywordTable | None = None) -> None:
        self.table = table or load_table()
        self.items = [
            PlanItem(
                id=f"p{i}",
                text=text,
                rules=[r.name for r in self.table.rules if r.fits(text)],
                files=named_files(text),
            )
            for i, text in enumerate(plan, start=1)
        ]
        self._rules = {r.name: r for r in self.table.rules}

    @property
    def pending(self) -> list[PlanItem]:
        return [item for item in self.items if not item.done]

    def observe(self, tool: str, args: dict[str, Any], ok: bool) -> list[PlanItem]:
        """Tick the pending items this call satisfies; return them."""
        if not ok:
            return []
        ticked = []
        for item in self.pending:
            if self._satisfies(item, tool, args):
                item.done = True
                ticked.append(item)
        return ticked

    def _satisfies(self, item: PlanItem, tool: str, args: dict[str, Any]) -> bool:
        for name in item.rules:
            rule = self._rules[name]
            if not rule.accepts(tool, args):
                continue
            if not item.files or rule.covers_files or _names_one_of(args, item.files):
                return True
        return False

    def summary(self) -> str:
        lines = [f"- [{'x' if i.done else ' '}] {i.text}" for i in self.items]
        done = sum(i.done for i in self.items)
        return "\n".join([*lines, f"({done}/{len(self.items)} done)"])

    def snapshot(self) -> dict[str, Any]:
        return {
            "items": [i.model_dump() for i in self.items],
            "done": sum(i.done for i in self.items),
            "total": len(self.items),
        }


def _names_one_of(args: dict[str, Any], files: list[str]) -> bool:
    """A path argument is one of the named files (whole trailing components: `1.xlsx` is
    `exports/1.xlsx`, never `11.xlsx`)."""
    for name in _PATH_ARGS:
        if name not in args:
            continue
        try:
            path = paths.normalise(args[name])
        except paths.PathRefused:
            continue
        if any(path == f or path.endswith("/" + f) or f.endswith("/" + path) for f in files):
            return True
    return False
