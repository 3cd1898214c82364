"""How the simulated agent reads lists and misremembers todo text."""

from __future__ import annotations

import re

from harness.suite.scenario import Scenario, Subtask
from harness.todo.base import TodoItem

_LINE = re.compile(r"^\[( |>|x)\] #(\S+): (.*)$")
_STATUS = {" ": "pending", ">": "in_progress", "x": "completed"}
_SYNONYMS = {
    "Write": "Create",
    "Create": "Make",
    "Rename": "Move",
    "Move": "Relocate",
    "Delete": "Remove",
    "List": "Show",
    "Save": "Store",
    "Read": "Open",
    "Export": "Dump",
    "Uppercase": "Capitalise",
    "Verify": "Check",
}
INVENTED_TEXT = "Tidy up afterwards"


def parse_rendered(text: str) -> list[TodoItem] | None:
    """The last rendered list in `text` (as tool results and injection show it), if any."""
    blocks: list[list[TodoItem]] = []
    current: list[TodoItem] = []
    for line in text.splitlines():
        match = _LINE.match(line.strip())
        if match:
            current.append(
                TodoItem.model_validate(
                    {
                        "id": match.group(2),
                        "text": match.group(3),
                        "status": _STATUS[match.group(1)],
                    }
                )
            )
        elif line.strip().startswith("(") and line.strip().endswith("completed)") or current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    if "No todos." in text and not blocks:
        return []
    return blocks[-1] if blocks else None


def generic_mutation(title: str) -> str:
    """A wording drift that keeps the meaning: swap the first verb."""
    first, _, rest = title.partition(" ")
    if first in _SYNONYMS:
        return f"{_SYNONYMS[first]} {rest}".strip()
    return f"{title} (step)"


def mutations(subtask: Subtask, scenario: Scenario) -> list[tuple[str, tuple[str, str] | None]]:
    """Candidate drifted texts for a subtask: near-duplicate confusions first, then wording."""
    out: list[tuple[str, tuple[str, str] | None]] = []
    for original, confused in scenario.confusions.items():
        if original in subtask.title:
            out.append((subtask.title.replace(original, confused, 1), (original, confused)))
    out.append((generic_mutation(subtask.title), None))
    return out


def resolve(
    text: str, scenario: Scenario, renamed: dict[str, str]
) -> tuple[Subtask, tuple[str, str] | None] | None:
    """Which subtask the agent believes a todo text is, and any confusion it carries."""
    for subtask in scenario.subtasks:
        if text in (subtask.title, renamed.get(subtask.id)):
            return subtask, None
    for subtask in scenario.subtasks:
        for candidate, confusion in mutations(subtask, scenario):
            if text == candidate:
                return subtask, confusion
    return None
