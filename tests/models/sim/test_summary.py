"""The simulated agent answers a shipping CLI's compaction request (Claude Code's `/compact`)
with a summary: what compaction costs it is drawn then, at its profile's `forget` rate, as when
the harness's loop compacts, and the summary carries the task, its workspace and the list it
still recalls (harness/models/sim/observing.py). Through the real Claude Code, the record of
the items it forgot equals the counts: tests/agents/test_real_cli.py."""

from __future__ import annotations

import random

import pytest
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageUser

from harness.models.sim.memory import Memory
from harness.models.sim.policy import SimPolicy
from harness.models.sim.profiles import load_profile
from harness.suite.scenario import load_scenarios, select
from harness.todo.base import TodoItem
from harness.todo.dialects import asks_for_summary

SCENARIO = select(load_scenarios(), "main_and_test")[0]
ITEMS = [
    TodoItem(id="1", text="Write main.py", status="completed"),
    TodoItem(id="2", text="Write test.py", status="pending"),
]


@pytest.mark.parametrize(
    ("last", "asks"),
    [
        (ChatMessageUser(content="Write a summary in <analysis> and <summary> tags."), True),
        (ChatMessageUser(content="Please summarise what you did."), False),
        (ChatMessageUser(content="Only a <summary> tag."), False),
        (ChatMessageAssistant(content="<analysis> and <summary>"), False),
        # Codex CLI's and OpenCode's own compactions, in their words
        (ChatMessageUser(content="You are performing a CONTEXT CHECKPOINT COMPACTION."), True),
        (ChatMessageUser(content="Here is the conversation so far:\n\n<conversation>\n"), True),
        (ChatMessageUser(content="Here is the conversation so far: it went well."), False),
    ],
)
def test_a_compaction_request_is_a_last_user_message_in_a_product_s_words(
    last: ChatMessage, asks: bool
) -> None:
    assert asks_for_summary([ChatMessageUser(content="the task"), last]) is asks


@pytest.mark.parametrize(("forget", "kept"), [(0.0, ["1", "2"]), (1.0, [])])
def test_the_summary_keeps_what_the_agent_still_recalls(forget: float, kept: list[str]) -> None:
    memory = Memory(scenario=SCENARIO, seen=list(ITEMS), history_seen=12)
    policy = SimPolicy(load_profile("sloppy", {"forget": forget}), memory, random.Random(0))
    summary = policy.summarise("The workspace is /tmp/w")
    assert summary.startswith("<analysis>") and "<summary>" in summary
    assert SCENARIO.prompt in summary and "The workspace is /tmp/w" in summary
    assert [i.id for i in policy.memory_list()] == kept
    for item in ITEMS:
        assert (f"#{item.id}: {item.text}" in summary) is (item.id in kept)
    assert memory.lost and memory.history_seen == 0  # the shorter history next is this one
