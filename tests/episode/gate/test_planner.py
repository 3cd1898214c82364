"""IntentPlanner (+planner): the reply parser (where it must accept and where it must refuse), and
the call through the real loop: its plan feeds the deployable gate, its tokens are counted, a
reply that does not parse leaves the gate the agent's first todo list, and it sees only the
request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import ChatMessage, ChatMessageSystem, ModelOutput, ModelUsage
from inspect_ai.tool import ToolInfo

from harness.episode import prompts
from harness.episode.gate.planner import CONFIG, SCHEMA_NAME, parse_plan
from harness.episode.record import EpisodeRecord
from harness.todo.variants import Variant
from tests.scripted import run_episode, scores_of, turn, turns_so_far

MAIN = "def add(a, b):\n    return a + b\n"


@pytest.mark.parametrize(
    ("reply", "plan"),
    [
        ('{"subtasks": ["Write main.py", "Write test.py"]}', ["Write main.py", "Write test.py"]),
        ('```json\n{"subtasks": ["  写 main.py "]}\n```', ["写 main.py"]),
        ('Here is the plan:\n{"subtasks": ["a"]}\nGood luck.', ["a"]),
    ],
)
def test_a_plan_reply_parses(reply: str, plan: list[str]) -> None:
    assert parse_plan(reply).subtasks == plan


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("I will write main.py first.", "no JSON object"),
        ('{"subtasks": []}', "subtasks"),
        ('{"subtasks": "Write main.py"}', "subtasks"),
        ('{"subtasks": ["ok", ""]}', "subtasks.1"),
        ('{"subtasks": ["ok"], "extra": 1}', "extra"),
        ('{"subtasks": ["ok"', "no JSON object"),
    ],
)
def test_a_bad_plan_reply_is_one_line(reply: str, message: str) -> None:
    with pytest.raises(ValueError) as error:
        parse_plan(reply)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_the_planner_asks_for_structured_output() -> None:
    schema = CONFIG.response_schema
    assert schema is not None and schema.name == SCHEMA_NAME
    assert schema.json_schema.properties and "subtasks" in schema.json_schema.properties


def test_planner_needs_the_gate_it_feeds() -> None:
    with pytest.raises(ValueError, match="add \\+heuristic"):
        Variant.parse("L4-inject+planner")
    variant = Variant.parse("L4-inject+planner+heuristic+loop-controller")
    assert variant.label == "L4-inject+heuristic+planner+loop-controller"


def _planned(reply: str, seen: list[list[ChatMessage]]) -> Any:
    """A planner reply, then an agent that writes its own (other) list, does the work, claims."""

    def agent(input: list[ChatMessage], tools: list[ToolInfo]) -> ModelOutput:
        if isinstance(input[0], ChatMessageSystem) and input[0].text == prompts.PLANNER:
            seen.append(input)
            output = ModelOutput.from_content(model="mockllm", content=reply)
            output.usage = ModelUsage(input_tokens=40, output_tokens=15, total_tokens=55)
            return output
        step = turns_so_far(input)
        if step == 0:
            return turn(("add_todo", {"text": "Do everything"}))
        if step == 1:
            return turn(("write_file", {"path": "main.py", "content": MAIN}))
        return turn(text="All done.")

    return agent


@pytest.mark.slow
def test_the_planners_plan_feeds_the_gate_and_its_tokens_count(tmp_path: Path) -> None:
    seen: list[list[ChatMessage]] = []
    reply = '{"subtasks": ["Write main.py", "Verify main.py"]}'
    sample = run_episode(
        _planned(reply, seen), tmp_path, "main_and_test", "L4-inject+heuristic+planner"
    )
    events = sample.store_as(EpisodeRecord).ledger_data()["events"]
    plans = [e for e in events if e["kind"] == "plan"]
    assert plans == [
        {
            "kind": "plan",
            "turn": 0,
            "items": ["Write main.py", "Verify main.py"],
            "source": "planner",
        }
    ]
    ticks = [e["items"] for e in events if e["kind"] == "plan_tick"]
    assert ticks == [["Write main.py"]]  # the write; "Verify main.py" is never done
    claims = [e for e in events if e["kind"] == "claim"]
    assert claims and all(c["blocked"] and c["reason"] == "subtasks_pending" for c in claims)
    scores = scores_of(sample)
    assert scores["planner_tokens"] == 55 and scores["planner_failed"] == 0
    turns = [e for e in events if e["kind"] == "assistant"]
    assert scores["input_tokens"] == 40 + sum(t["input_tokens"] for t in turns)
    assert scores["output_tokens"] == 15 + sum(t["output_tokens"] for t in turns)
    assert scores["turns"] == len(turns)  # the planner call is not a turn
    # it saw the planner prompt and the request, nothing of the scenario's subtasks
    (planner_input,) = seen
    assert [m.role for m in planner_input] == ["system", "user"]
    assert "Write test.py" not in planner_input[0].text + planner_input[1].text


@pytest.mark.slow
def test_a_plan_reply_that_does_not_parse_leaves_the_agents_list(tmp_path: Path) -> None:
    sample = run_episode(
        _planned("Sure! First I will look around.", []),
        tmp_path,
        "main_and_test",
        "L4-inject+heuristic+planner",
    )
    events = sample.store_as(EpisodeRecord).ledger_data()["events"]
    (planner,) = [e for e in events if e["kind"] == "planner"]
    assert planner["items"] == [] and planner["error"] == "no JSON object in the reply"
    plans = [e for e in events if e["kind"] == "plan"]
    assert [(p["source"], p["items"]) for p in plans] == [("todo_list", ["Do everything"])]
    assert scores_of(sample)["planner_failed"] == 1


@pytest.mark.slow
def test_without_planner_no_planner_call(tmp_path: Path) -> None:
    seen: list[list[ChatMessage]] = []
    sample = run_episode(
        _planned('{"subtasks": ["x"]}', seen), tmp_path, "main_and_test", "L4-inject+heuristic"
    )
    assert seen == []
    assert scores_of(sample)["planner_tokens"] == 0
