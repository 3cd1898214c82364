"""An honest scripted agent: it reads its inputs through the tools and computes its outputs.

Unlike the simulated agent, it never replays a scenario's reference calls: each program below is
what a careful person would do given only the prompt, the tool results and the user's messages.
A scenario whose inputs are missing, or whose checks disagree with its prompt, fails here.
"""

from __future__ import annotations

import configparser
import csv
import io
import json
import re
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

import yaml
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageTool,
    ChatMessageUser,
    ModelOutput,
)
from inspect_ai.tool import ToolInfo

from tests.scripted import turn

Call = tuple[str, dict[str, Any]]


@dataclass
class Reply:
    """What the agent learns after a call: the tool result and any new user message."""

    result: str = ""
    user: str = ""


Program = Generator[Call | None, Reply, None]  # None: "I am done" (the user may answer)


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def excel_export() -> Program:
    listing = yield ("list_files", {})
    files = [f for f in _lines(listing.result) if f != "exports/1.xlsx"]
    yield ("create_excel", {"path": "exports/1.xlsx", "rows": [["file"], *[[f] for f in files]]})
    yield None


def rename_chain() -> Program:
    log = []
    for old, new in (("a.txt", "b.txt"), ("b.txt", "c.txt"), ("c.txt", "final.txt")):
        reply = yield ("rename_file", {"src": old, "dst": new})
        if reply.result.startswith("Renamed"):
            log.append(f"{old} -> {new}")
    yield ("write_file", {"path": "log.md", "content": "\n".join(log) + "\n"})
    yield None


def near_duplicates() -> Program:
    listing = yield ("list_files", {})
    files = _lines(listing.result)
    if "report_v1.csv" in files:
        yield ("rename_file", {"src": "report_v1.csv", "dst": "archive/report_v1.csv"})
    if "report_v2.csv" in files:
        yield ("rename_file", {"src": "report_v2.csv", "dst": "report_latest.csv"})
    if "report-v1.csv" in files:
        yield ("delete_file", {"path": "report-v1.csv"})
    yield None


def main_and_test() -> Program:
    yield ("write_file", {"path": "main.py", "content": "def add(a, b):\n    return a + b\n"})
    test = "from main import add\n\nassert add(2, 3) == 5\n"
    yield ("write_file", {"path": "test.py", "content": test})
    reply = yield ("read_file", {"path": "main.py"})
    assert "return a + b" in reply.result
    yield None


def sales_summary() -> Program:
    reply = yield ("read_file", {"path": "sales.csv"})
    rows = list(csv.reader(io.StringIO(reply.result)))
    header, data = rows[0], rows[1:]
    totals: dict[str, int] = {}
    for category, amount in data:
        totals[category] = totals.get(category, 0) + int(amount)
    table = [["category", "total"], *[[c, str(totals[c])] for c in sorted(totals)]]
    yield ("create_excel", {"path": "summary.xlsx", "sheet": "Totals", "rows": table})
    yield ("create_excel", {"path": "summary.xlsx", "sheet": "Data", "rows": [header, *data]})
    yield None


def user_adds_csv() -> Program:
    heard = ""
    for name in ("intro", "setup", "usage"):
        page = {"path": f"docs/{name}.md", "content": f"# {name.title()}\n"}
        heard += (yield ("write_file", page)).user
    while "index" not in heard:
        heard += (yield None).user
    listing = yield ("list_files", {})
    docs = sorted(f.removeprefix("docs/") for f in _lines(listing.result) if f.endswith(".md"))
    yield ("write_csv", {"path": "docs/index.csv", "rows": [["doc"], *[[d] for d in docs]]})
    yield None


def user_cancels() -> Program:
    skipped = False
    written = []
    for name, title in (
        ("CHANGELOG", "Changelog"),
        ("CONTRIBUTING", "Contributing"),
        ("NOTICE", "Notice"),
        ("README", "Readme"),
    ):
        if name == "README" and skipped:
            continue
        reply = yield ("write_file", {"path": f"{name}.md", "content": f"# {title}\n"})
        written.append(name)
        skipped = skipped or "Skip the README" in reply.user
    if "README" in written and skipped:
        yield ("delete_file", {"path": "README.md"})  # undo work the user no longer wants
    yield None


def user_renames() -> Program:
    heard = ""
    for text in ("Write api.md", "Write guide.md", "Write faq.md"):
        heard += (yield ("add_todo", {"text": text})).user
    renamed = False
    for position, name in enumerate(("api", "guide", "faq"), start=1):
        if not renamed and "'Write API docs'" in heard:
            heard += (yield ("rename_todo", {"id": "1", "new_text": "Write API docs"})).user
            renamed = True
        title = name.upper() if name in ("api", "faq") else name.title()
        heard += (yield ("write_file", {"path": f"{name}.md", "content": f"# {title}\n"})).user
        heard += (yield ("update_todo_status", {"id": str(position), "status": "completed"})).user
    yield None


def uppercase_notes() -> Program:
    listing = yield ("list_files", {})
    for note in [f for f in _lines(listing.result) if f.startswith("notes/")]:
        reply = yield ("read_file", {"path": note})
        target = "out/" + note.removeprefix("notes/")
        yield ("write_file", {"path": target, "content": reply.result.upper()})
    yield None


def config_migration() -> Program:
    reply = yield ("read_file", {"path": "settings.ini"})
    heard = reply.user
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(reply.result)
    data = {section: dict(parser[section]) for section in parser.sections()}
    heard += (yield ("write_file", {"path": "settings.yaml", "content": yaml.safe_dump(data)})).user
    heard += (yield ("delete_file", {"path": "settings.ini"})).user
    while "db.json" not in heard:
        heard += (yield None).user
    yield ("write_file", {"path": "db.json", "content": json.dumps(data["database"]) + "\n"})
    yield None


def monthly_merge() -> Program:
    heard = ""
    sheets: dict[str, list[list[str]]] = {}
    for month in ("Jan", "Feb", "Mar"):
        if month == "Feb" and "Drop February" in heard:
            continue
        reply = yield ("read_file", {"path": f"{month.lower()}.csv"})
        heard += reply.user
        sheets[month] = list(csv.reader(io.StringIO(reply.result)))
        args = {"path": "report.xlsx", "sheet": month, "rows": sheets[month]}
        heard += (yield ("create_excel", args)).user
    while "Drop February" not in heard:
        heard += (yield None).user
    if "Feb" in sheets:  # the tools cannot remove one sheet: rebuild the workbook without it
        yield ("delete_file", {"path": "report.xlsx"})
        for month in ("Jan", "Mar"):
            yield ("create_excel", {"path": "report.xlsx", "sheet": month, "rows": sheets[month]})
    yield None


def copy_in_capitals(prompt: str) -> Program:
    """The generated per-file family: copy the files the prompt names in capitals, leaving
    hyphenated decoys alone, and follow the user's additions and cancellations."""
    last = re.search(r"\.\.\. in/(\S+)\.txt", prompt)
    assert last, prompt
    heard = ""
    listing = yield ("list_files", {})
    heard += listing.user
    stems = sorted(
        f.removeprefix("in/").removesuffix(".txt")
        for f in _lines(listing.result)
        if f.startswith("in/") and "-" not in f
    )
    queue = [stem for stem in stems if stem <= last.group(1)]
    copied: list[str] = []
    while True:
        for stem in stems:  # a file the user asked for since
            if f"Also copy in/{stem}.txt" in heard and stem not in queue and stem not in copied:
                queue.append(stem)
        for stem in list(copied):  # a copy the user no longer wants
            if f"Skip {stem}.txt" in heard:
                copied.remove(stem)
                heard += (yield ("delete_file", {"path": f"out/{stem}.txt"})).user
        queue = [stem for stem in queue if f"Skip {stem}.txt" not in heard]
        if not queue:
            heard += (yield None).user
            asked = any(f"Also copy in/{s}.txt" in heard and s not in copied for s in stems)
            if not asked and not any(f"Skip {s}.txt" in heard for s in copied):
                return
            continue
        stem = queue.pop(0)
        reply = yield ("read_file", {"path": f"in/{stem}.txt"})
        heard += reply.user
        page = {"path": f"out/{stem}.txt", "content": reply.result.upper()}
        heard += (yield ("write_file", page)).user
        copied.append(stem)


def long_rename_chain(prompt: str) -> Program:
    last = re.search(r"up to (stage_\d+\.txt)", prompt)
    assert last, prompt
    listing = yield ("list_files", {})
    current = next(f for f in _lines(listing.result) if f.startswith("stage_"))
    log = []
    while current != last.group(1):
        number = int(current.removeprefix("stage_").removesuffix(".txt"))
        target = f"stage_{number + 1:03d}.txt"
        reply = yield ("rename_file", {"src": current, "dst": target})
        if not reply.result.startswith("Renamed"):
            break
        log.append(f"{current} -> {target}")
        current = target
    yield ("write_file", {"path": "log.md", "content": "\n".join(log) + "\n"})
    yield None


#: the program for each scenario id, given the episode's prompt
PROGRAMS: dict[str, Callable[[str], Program]] = {
    "config_migration": lambda _: config_migration(),
    "monthly_merge": lambda _: monthly_merge(),
    "excel_export": lambda _: excel_export(),
    "rename_chain": lambda _: rename_chain(),
    "near_duplicates": lambda _: near_duplicates(),
    "main_and_test": lambda _: main_and_test(),
    "sales_summary": lambda _: sales_summary(),
    "user_adds_csv": lambda _: user_adds_csv(),
    "user_cancels": lambda _: user_cancels(),
    "user_renames": lambda _: user_renames(),
    "long_list": lambda _: uppercase_notes(),
    "compaction": lambda _: uppercase_notes(),
}


def program_for(scenario_id: str) -> Callable[[str], Program]:
    """Generated families share one program per family."""
    if scenario_id.startswith(("hard_notes_", "field_lists_")):  # both per_file families
        return copy_in_capitals
    if scenario_id.startswith("hard_chain_"):
        return long_rename_chain
    return PROGRAMS[scenario_id]


class HonestAgent:
    """Drives one program per episode as a mockllm script."""

    def __init__(self, pick: Callable[[str], str]) -> None:
        self.pick = pick  # prompt -> program name (the person choosing what to do)
        self.running: dict[str, tuple[Program, int]] = {}

    def __call__(self, messages: list[ChatMessage], tools: list[ToolInfo]) -> ModelOutput:
        prompt = next(m.text for m in messages if isinstance(m, ChatMessageUser))
        last = max(
            (i for i, m in enumerate(messages) if isinstance(m, ChatMessageAssistant)), default=-1
        )
        news = messages[last + 1 :]
        reply = Reply(
            result="\n".join(m.text for m in news if isinstance(m, ChatMessageTool)),
            user="\n".join(m.text for m in news if isinstance(m, ChatMessageUser))
            if last >= 0
            else "",
        )
        if prompt not in self.running:
            program = program_for(self.pick(prompt))(prompt)
            self.running[prompt] = (program, 0)
            call = next(program)
        else:
            program, _ = self.running[prompt]
            try:
                call = program.send(reply)
            except StopIteration:
                call = None
        return turn(call) if call is not None else turn(text="Done.")
