"""How an episode ends: the agent's final message classified, so only a claim can be a false one.

A final message (an assistant turn with no tool call) is one of:
- `gave_up`: it admits the work is not (all) done or cannot be done ("I could not ...",
  "test.py is missing", "I was unable to ...", "not finished");
- `asked_user`: it hands a question back to the user (its last sentence is a question) and
  neither claims completion nor admits failure;
- `claimed_done`: anything else, hedged or not ("Done.", "I think everything is in place").
  An agent that stops calling tools without asking or admitting anything has handed the task
  back as finished. A question after a claim ("All done. Anything else?") is still a claim.
An admission of failure wins over a claim ("main.py is written but I could not create
test.py" is `gave_up`), and an admission that ends on a question is `asked_user`.
The episode-level reasons `budget_exhausted` and `gate_exhausted` are set by the loop.
"""

from __future__ import annotations

import re
from typing import Literal

Ending = Literal["claimed_done", "gave_up", "asked_user"]

_FAILURE = re.compile(
    r"\b("
    r"could\s*n[o']t|couldn't|cannot|can't|can\s+not|unable\s+to|not\s+able\s+to|"
    r"was\s*n[o']t\s+able|wasn't\s+able|failed\s+to|fails\s+to|did\s*n[o']t\s+(?:manage|get\s+to|"
    r"finish|complete|succeed)|didn't\s+(?:manage|get\s+to|finish|complete|succeed)|"
    r"(?:is|are|was|were)\s+(?:still\s+)?(?:missing|not\s+found|absent)|no\s+such\s+file|"
    r"does\s*n[o']t\s+exist|doesn't\s+exist|gave\s+up|giving\s+up|give\s+up|stuck|"
    r"not\s+(?:yet\s+)?(?:finished|complete|completed|done|possible)|impossible|"
    r"(?:remains?|left)\s+(?:unfinished|incomplete|undone|to\s+do)|incomplete|unfinished|"
    r"ran\s+out\s+of|out\s+of\s+(?:turns|time|budget)|"
    r"only\s+(?:partially|partly)|partially\s+(?:done|complete|completed|finished)|"
    r"not\s+all|i\s+apologi[sz]e|i(?:\s+am|'m)\s+sorry|sorry,?\s+(?:but\s+)?i"
    r")\b",
    re.IGNORECASE,
)
# a denial of failure is not an admission of it ("nothing failed", "no errors")
_NEGATED = re.compile(
    r"\bnothing\s+(?:is\s+)?(?:left|remains)\b|"
    r"\b(?:could\s*n[o']t|couldn't|can't)\s+(?:be\s+)?(?:happier|easier|simpler|"
    r"find\s+(?:any|a\s+single)\s+(?:problem|issue|error)s?)\b",
    re.IGNORECASE,
)
_CLAIM = re.compile(
    r"\b(done|complete|completed|finished|all\s+set|created|wrote|written|saved|exported|"
    r"renamed|moved|deleted|updated|generated|in\s+place|ready|accomplished|success(?:fully)?)\b",
    re.IGNORECASE,
)


def _sentences(text: str) -> list[str]:
    """Sentences and list items, stripped of markdown decoration."""
    out: list[str] = []
    for line in text.strip().splitlines():
        line = line.strip(" \t*_`>#-")
        out.extend(p.strip() for p in re.split(r"(?<=[.!?])\s+", line) if p.strip())
    return out


def classify_ending(text: str) -> Ending:
    """Classify an agent's final message (see the module docstring)."""
    sentences = _sentences(text)
    if not sentences:
        return "claimed_done"
    asks = sentences[-1].endswith("?")
    if _FAILURE.search(_NEGATED.sub("", text)):
        return "asked_user" if asks else "gave_up"
    statements = " ".join(s for s in sentences if not s.endswith("?"))
    if asks and not _CLAIM.search(statements):
        return "asked_user"
    return "claimed_done"
