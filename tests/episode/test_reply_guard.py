"""The reply guard: a tool call nested past the bound or holding a lone surrogate goes back to
the model as a tool error, the episode goes on and is scored, and the repair is in the ledger.

Before the guard, each case below ended the sample's log as `error` (issue #39): a pending
ToolEvent that failed to validate, or a log that could not be encoded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai.event import InfoEvent, ModelEvent, ToolEvent
from inspect_ai.log import EvalSample, list_eval_logs, read_eval_log
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageTool,
    ContentText,
    ModelCall,
    ModelOutput,
    ModelUsage,
)
from inspect_ai.tool import ToolCall, ToolInfo
from pydantic import BaseModel

from harness.episode import prompts
from harness.episode.record import EpisodeRecord
from harness.episode.reply_guard import (
    CUT,
    MAX_DEPTH,
    Repairs,
    fix_text,
    guard_output,
    guard_reply,
    refusal,
    tolerate_deep_responses,
)
from tests.scripted import run_episode, scores_of, turn, turns_so_far


def nest(levels: int, leaf: Any = "x") -> Any:
    """`leaf` inside `levels` lists: a value `levels` deep, as inspect counts depth."""
    value = leaf
    for _ in range(levels):
        value = [value]
    return value


def depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    return 0


def reply(*calls: ToolCall, text: str = "") -> ChatMessageAssistant:
    return ChatMessageAssistant(content=text, tool_calls=list(calls) or None)


def call(function: str, arguments: dict[str, Any], id: str = "c1") -> ToolCall:
    return ToolCall(id=id, function=function, arguments=arguments)


# -- the guard itself ---------------------------------------------------------------------


def test_a_normal_reply_is_the_same_object() -> None:
    items = [{"id": "1", "text": "Write the résumé 写", "status": "pending"}]
    message = reply(call("todo", {"items": items}), text="Planning — ok")
    guarded, repairs = guard_reply(message)
    assert guarded is message and repairs == []
    output = ModelOutput(choices=[ChatCompletionChoice(message=message)], completion="x")
    same, repairs = guard_output(output)
    assert same is output and repairs == []


def test_lone_surrogates_become_replacement_characters_and_pairs_are_joined() -> None:
    assert fix_text("a\ud800b\udfff") == "a\ufffdb\ufffd"
    assert fix_text("\ud83d\ude00") == "\U0001f600"
    plain = "résumé"
    assert fix_text(plain) is plain


def test_the_bound_is_inspects_count_of_levels() -> None:
    at_bound = call("write_file", {"path": "a.md", "content": nest(MAX_DEPTH - 1)})
    assert depth(at_bound.arguments) == MAX_DEPTH
    message = reply(at_bound)
    guarded, repairs = guard_reply(message)
    assert guarded is message and repairs == []
    past = call("write_file", {"path": "a.md", "content": nest(MAX_DEPTH)})
    guarded, repairs = guard_reply(reply(past))
    assert [(r.call_id, r.tool, r.surrogates, r.cuts) for r in repairs] == [
        ("c1", "write_file", 0, 1)
    ]
    (cut,) = guarded.tool_calls or []
    assert depth(cut.arguments) == MAX_DEPTH
    assert cut.arguments["content"] == nest(MAX_DEPTH - 1, CUT)
    assert cut.parse_error == refusal("write_file", Repairs(cuts=1))
    assert past.parse_error is None  # the reply it came from is not changed


def test_every_part_of_a_call_and_of_the_reply_is_guarded() -> None:
    hostile = ToolCall(
        id="c\ud800", function="write\udc00file", arguments={"k\ud800": ["v\ud800", {"w": 1}]}
    )
    fine = call("list_files", {}, id="c2")
    message = ChatMessageAssistant(
        content=[ContentText(text="Working \udfff")],
        tool_calls=[hostile, fine],
        metadata={"note": nest(300)},
    )
    guarded, repairs = guard_reply(message)
    assert [(r.call_id, r.tool, r.surrogates, r.cuts) for r in repairs] == [
        ("c\ufffd", "write\ufffdfile", 4, 0),
        ("", "", 1, 1),
    ]
    first, second = guarded.tool_calls or []
    assert first.arguments == {"k\ufffd": ["v\ufffd", {"w": 1}]} and first.parse_error
    assert second is fine
    guarded.model_dump_json()  # what the log writes now encodes


def test_shared_and_cyclic_values_are_walked_in_bounded_time() -> None:
    """Never in decoded JSON, but a Python provider can build them: the walk stays linear."""
    shared: list[Any] = ["x"]
    for _ in range(200):  # 2**200 paths through one chain of shared lists
        shared = [shared, shared]
    loop: list[Any] = ["\ud800"]
    loop.append(loop)
    guarded, repairs = guard_reply(reply(call("todo", {"a": shared, "b": loop})))
    # counted per path here (each level of the cycle is a copy): exact only for trees
    (repair,) = repairs
    assert repair.surrogates >= 1 and repair.cuts >= 2
    (cut,) = guarded.tool_calls or []
    assert depth(cut.arguments["b"]) == MAX_DEPTH - 1  # the cycle, cut at the bound
    ToolCall(id="c", function="todo", arguments={"b": cut.arguments["b"]})  # validates


class Deep(BaseModel):
    input: dict[str, Any]


def test_a_provider_records_a_reply_too_deep_for_pydantic_cut_at_the_bound() -> None:
    tolerate_deep_responses()
    tolerate_deep_responses()  # installed once
    record = ModelCall(request={})
    record.set_response(Deep(input={"content": nest(400)}))
    response = record.response or {}
    assert depth(response) == MAX_DEPTH
    record.set_response({"content": [{"text": "fine"}]})
    assert record.response == {"content": [{"text": "fine"}]}


# -- through the real loop (mockllm) ------------------------------------------------------

DEEP_TODO = ("todo", {"items": [{"id": nest(300), "text": "List files", "status": "pending"}]})
DEEP_FILE = ("write_file", {"path": "notes.md", "content": nest(300)})
AT_BOUND = ("write_file", {"path": "bound.md", "content": nest(MAX_DEPTH - 1)})
SURROGATE_FILE = ("write_file", {"path": "a.md", "content": "caf\ud800"})
SURROGATE_KEY = ("write_file", {"path": "b.md", "content": "x", "k\ud800": 1})
SURROGATE_NAME = ("write\ud800file", {"path": "c.md", "content": "x"})
EXPORT = ("create_excel", {"path": "exports/1.xlsx", "from_workspace_files": True})


def repairs_of(sample: EvalSample) -> list[tuple[int, str, str, int, int]]:
    events = sample.store_as(EpisodeRecord).ledger_data()["events"]
    return [
        (e["turn"], e["call_id"], e["tool"], e["surrogates"], e["cuts"])
        for e in events
        if e["kind"] == "repair"
    ]


def tool_errors(sample: EvalSample) -> list[tuple[str, str, str]]:
    """(call id, error type, message) of every tool error the model was sent, in order."""
    return [
        (str(m.tool_call_id), m.error.type, m.error.message)
        for m in sample.messages
        if isinstance(m, ChatMessageTool) and m.error is not None
    ]


def read_back(log_dir: Path) -> EvalSample:
    """The sample as the log file on disk holds it."""
    (info,) = list_eval_logs(str(log_dir))
    log = read_eval_log(info)
    assert log.status == "success" and log.samples
    return log.samples[0]


@pytest.mark.slow
def test_deep_and_surrogate_calls_are_tool_errors_and_the_episode_is_scored(
    tmp_path: Path,
) -> None:
    sample = run_episode(
        [
            turn(DEEP_TODO, DEEP_FILE),
            turn(SURROGATE_FILE, SURROGATE_KEY, SURROGATE_NAME, text="Working \udc00 on it"),
            turn(AT_BOUND),
            turn(EXPORT),
            turn(text="All done."),
        ],
        tmp_path,
        "excel_export",
        "L0-rewrite",
    )
    name = "write\ufffdfile"
    assert repairs_of(sample) == [
        (1, "call_0_todo", "todo", 0, 1),
        (1, "call_1_write_file", "write_file", 0, 1),
        (2, "call_0_write_file", "write_file", 1, 0),
        (2, "call_1_write_file", "write_file", 1, 0),
        (2, f"call_2_{name}", name, 2, 0),  # its id carried the name
        (2, "", "", 1, 0),  # the reply's text
    ]
    cut, surrogate = Repairs(cuts=1), Repairs(surrogates=1)
    errors = tool_errors(sample)
    assert errors[:5] == [
        ("call_0_todo", "parsing", refusal("todo", cut)),
        ("call_1_write_file", "parsing", refusal("write_file", cut)),
        ("call_0_write_file", "parsing", refusal("write_file", surrogate)),
        ("call_1_write_file", "parsing", refusal("write_file", surrogate)),
        (f"call_2_{name}", "parsing", refusal(name, Repairs(surrogates=2))),
    ]
    # at the bound the call is not the guard's: inspect refuses a list for a string itself
    ((call_id, kind, message),) = errors[5:]
    assert (call_id, kind) == ("call_0_write_file", "parsing")
    assert "was not run" not in message, message
    found = scores_of(sample)
    assert found["malformed_tool_calls"] == 6
    assert found["task_success"] == 1 and found["false_completion"] == 0
    assert found["turns"] == 5 and found["todo_tool_calls"] == 1
    assert found["rejected_updates"] == 0  # the todo call never reached the store
    record = sample.store_as(EpisodeRecord)
    assert not {"notes.md", "a.md", "b.md", "c.md", "bound.md"} & set(record.final_files)
    # the repaired reply is what the model saw again and what the log holds
    replies = [m for m in sample.messages if isinstance(m, ChatMessageAssistant)]
    assert replies[1].text == "Working \ufffd on it"
    deep = (replies[0].tool_calls or [])[1]
    assert deep.arguments["content"] == nest(MAX_DEPTH - 1, CUT)
    logged = read_back(tmp_path)
    models = [e for e in logged.events if isinstance(e, ModelEvent)]
    assert models[1].output.message.text == "Working \ufffd on it"
    tools = [e for e in logged.events if isinstance(e, ToolEvent)]
    assert [t.error.type for t in tools if t.error].count("parsing") == 6
    infos = [e for e in logged.events if isinstance(e, InfoEvent) and e.source == "reply_guard"]
    assert len(infos) == 2
    findings = sample.scores["todo_scorer"].metadata["findings"]  # type: ignore[index]
    assert [f for f in findings if f.startswith("repaired")][0] == (
        "repaired: turn 1 call call_0_todo to todo, refused: 0 string(s) with surrogates,"
        " 1 value(s) cut past the nesting bound"
    )
    assert sum(f.startswith("repaired") for f in findings) == 6


@pytest.mark.slow
@pytest.mark.parametrize(
    ("variant", "hostile", "good", "expected"),
    [
        (
            "cc-tasks",
            ("TaskCreate", {"subject": "List files", "description": "list \ud800 them"}),
            ("TaskCreate", {"subject": "List files", "description": "list them"}),
            Repairs(surrogates=1),
        ),
        (
            "codex-plan",
            ("update_plan", {"plan": [{"step": "List \udc00 files", "status": "pending"}]}),
            ("update_plan", {"plan": [{"step": "List files", "status": "pending"}]}),
            Repairs(surrogates=1),
        ),
        (
            "cc-todowrite",
            ("TodoWrite", {"todos": [{"content": nest(300), "status": "pending"}]}),
            (
                "TodoWrite",
                {"todos": [{"content": "List files", "status": "pending", "activeForm": "x"}]},
            ),
            Repairs(cuts=1),
        ),
        (
            "inspect-todo_write",
            ("todo_write", {"todos": [{"content": "List \ud800", "status": "pending"}]}),
            ("todo_write", {"todos": [{"content": "List files", "status": "pending"}]}),
            Repairs(surrogates=1),
        ),
        (
            "L3-granular",
            ("add_todo", {"text": nest(300)}),
            ("add_todo", {"text": "List files"}),
            Repairs(cuts=1),
        ),
    ],
)
def test_every_designs_todo_tools_are_guarded(
    variant: str,
    hostile: tuple[str, dict[str, Any]],
    good: tuple[str, dict[str, Any]],
    expected: Repairs,
    tmp_path: Path,
) -> None:
    sample = run_episode(
        [turn(hostile), turn(good), turn(EXPORT), turn(text="All done.")],
        tmp_path,
        "excel_export",
        variant,
    )
    name = hostile[0]
    assert repairs_of(sample) == [(1, f"call_0_{name}", name, expected.surrogates, expected.cuts)]
    assert tool_errors(sample) == [(f"call_0_{name}", "parsing", refusal(name, expected))]
    events = sample.store_as(EpisodeRecord).ledger_data()["events"]
    # the refused call never reached the store: the one todo event is the good call's
    todo = [(e["turn"], e["accepted"], e["before"]) for e in events if e["kind"] == "todo"]
    assert todo == [(2, True, [])]
    found = scores_of(sample)
    assert found["malformed_tool_calls"] == 1 and found["task_success"] == 1


@pytest.mark.slow
def test_a_planner_reply_with_a_surrogate_is_repaired_and_counted(tmp_path: Path) -> None:
    def agent(input: list[ChatMessage], tools: list[ToolInfo]) -> ModelOutput:
        if input[0].text == prompts.PLANNER:
            output = ModelOutput.from_content(
                model="mockllm", content='{"subtasks": ["Create the Excel \ud800 workbook"]}'
            )
            output.usage = ModelUsage(input_tokens=40, output_tokens=15, total_tokens=55)
            return output
        return turn(EXPORT) if turns_so_far(input) == 0 else turn(text="All done.")

    sample = run_episode(agent, tmp_path, "excel_export", "L4-inject+heuristic+planner")
    assert repairs_of(sample) == [(0, "", "", 1, 0)]
    events = sample.store_as(EpisodeRecord).ledger_data()["events"]
    (plan,) = [e for e in events if e["kind"] == "plan"]
    assert plan["items"] == ["Create the Excel \ufffd workbook"]
    assert scores_of(sample)["task_success"] == 1
