"""The simulated agent reads what a Claude Code hook says where the product shows it (sim v4):
the L4 list a hook adds as a `<system-reminder>` to any tool result or user message, and a Stop
hook's refusal, which the product wraps as `Stop hook blocking error from command: ...`
(harness/models/sim/observing.py). Each reader has a case where it must act and one where it
must not."""

from __future__ import annotations

import json
import random

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
)
from inspect_ai.tool import ToolCall

from harness.episode.prompts import GATE_BLOCKED, INJECTED_LIST
from harness.models.sim.memory import Memory
from harness.models.sim.policy import SimPolicy
from harness.models.sim.profiles import load_profile
from harness.suite.scenario import load_scenarios, select
from harness.todo.base import TodoItem, render

SCENARIO = select(load_scenarios(), "main_and_test")[0]
REMEMBERED = [TodoItem(id="1", text="Write main.py", status="in_progress")]
SHOWN = [
    TodoItem(id="1", text="Write main.py", status="completed"),
    TodoItem(id="2", text="Write test.py", status="pending"),
    TodoItem(id="3", text="Verify by reading main.py back", status="pending"),
]
TOOLS = {"Bash", "TodoWrite", "todo"}


def _policy(memory: Memory) -> SimPolicy:
    return SimPolicy(load_profile("sloppy"), memory, random.Random(0))


def _after_bash(answer: str) -> list[ChatMessage]:
    call = ToolCall(id="c1", function="Bash", arguments={"command": "ls"}, type="function")
    return [
        ChatMessageSystem(content="You are Claude Code."),
        ChatMessageUser(content=SCENARIO.prompt),
        ChatMessageAssistant(content="", tool_calls=[call]),
        ChatMessageTool(content=answer, tool_call_id="c1", function="Bash"),
    ]


def _reminder(text: str) -> str:
    return f"<system-reminder>\n{text}\n</system-reminder>"


def test_a_hook_s_list_after_a_workspace_tool_is_read_as_the_loop_s_l4() -> None:
    memory = Memory(scenario=SCENARIO, seen=list(REMEMBERED), forgotten={"1"}, lost=True)
    context = "PostToolUse:Bash hook additional context: " + INJECTED_LIST.format(
        rendered=render(SHOWN)
    )
    _policy(memory).observe(_after_bash(f"main.py\n\n{_reminder(context)}"), "", TOOLS)
    assert memory.seen == SHOWN and memory.forgotten == set() and not memory.lost


def test_a_list_shown_without_the_injection_s_words_is_not_read_as_one() -> None:
    memory = Memory(scenario=SCENARIO, seen=list(REMEMBERED))
    _policy(memory).observe(_after_bash(f"main.py\n\n{render(SHOWN)}"), "", TOOLS)
    assert memory.seen == REMEMBERED


def test_a_hook_s_list_after_a_compaction_is_read_in_the_resumed_session() -> None:
    """After `/compact` the product starts over: no assistant message yet, the hook's list in
    a user message (SessionStart `compact`)."""
    memory = Memory(scenario=SCENARIO, seen=list(REMEMBERED), forgotten={"1"}, lost=True)
    context = "SessionStart:compact hook additional context: " + INJECTED_LIST.format(
        rendered=render(SHOWN)
    )
    messages: list[ChatMessage] = [
        ChatMessageSystem(content="You are Claude Code."),
        ChatMessageUser(content=f"The summary.\n{_reminder(context)}"),
        ChatMessageUser(content="Continue with the task."),
    ]
    _policy(memory).observe(messages, "", TOOLS)
    assert memory.seen == SHOWN and memory.forgotten == set()


def _after_claim(user: str) -> list[ChatMessage]:
    return [
        ChatMessageUser(content=SCENARIO.prompt),
        ChatMessageAssistant(content="All done."),
        ChatMessageUser(content=user),
    ]


def test_a_stop_hook_s_refusal_inside_a_reminder_sends_the_agent_back_to_work() -> None:
    memory = Memory(scenario=SCENARIO, seen=list(SHOWN), work_done={"main", "test"})
    refusal = GATE_BLOCKED.format(state="[x] Write main.py\n[ ] Write test.py")
    wrapped = _reminder(
        f'Stop hook blocking error from command: "python -m harness.hooks": {refusal}'
    )
    _policy(memory).observe(_after_claim(wrapped), "", TOOLS)
    assert memory.forced == {"test"} and memory.work_done == {"main"}


def test_a_reminder_without_a_refusal_sends_no_one_back() -> None:
    memory = Memory(scenario=SCENARIO, seen=list(SHOWN), work_done={"main", "test"})
    _policy(memory).observe(_after_claim(_reminder("[ ] Write test.py")), "", TOOLS)
    assert memory.forced == set() and memory.work_done == {"main", "test"}


def _with_developer_message(text: str) -> tuple[list[ChatMessage], str]:
    """Codex CLI adds a hook's context as a developer message after the call's answer, which
    inspect's bridge hands the model as a system message (inspect_ai's responses bridge); the
    provider reads every system message as the system text (harness/models/sim/provider.py)."""
    messages = [*_after_bash("main.py"), ChatMessageSystem(content=text)]
    system = "\n".join(m.text for m in messages if isinstance(m, ChatMessageSystem))
    return messages, system


def test_codex_s_developer_message_with_the_list_is_read_as_the_loop_s_l4() -> None:
    memory = Memory(scenario=SCENARIO, seen=list(REMEMBERED), forgotten={"1"}, lost=True)
    messages, system = _with_developer_message(INJECTED_LIST.format(rendered=render(SHOWN)))
    _policy(memory).observe(messages, system, {"shell", "update_plan"})
    assert memory.seen == SHOWN and memory.forgotten == set() and not memory.lost


def test_a_developer_message_without_a_list_changes_nothing() -> None:
    memory = Memory(scenario=SCENARIO, seen=list(REMEMBERED), forgotten={"1"}, lost=True)
    messages, system = _with_developer_message("Approvals are never asked for.")
    _policy(memory).observe(messages, system, {"shell", "update_plan"})
    assert memory.seen == REMEMBERED and memory.forgotten == {"1"} and memory.lost


def test_opencode_s_list_appended_to_a_call_s_result_is_read() -> None:
    """OpenCode's plugin appends the hook's context to the call's output, with no reminder
    around it."""
    memory = Memory(scenario=SCENARIO, seen=list(REMEMBERED), forgotten={"1"}, lost=True)
    context = INJECTED_LIST.format(rendered=render(SHOWN))
    _policy(memory).observe(_after_bash(f"main.py\n\n{context}"), "", TOOLS)
    assert memory.seen == SHOWN and memory.forgotten == set() and not memory.lost


def _hook_context(text: str) -> str:
    """Gemini CLI's AfterTool context as the model reads it: appended to the call's output, its
    `<` and `>` escaped, in `<hook_context>` (tests/hooks/test_real_gemini_cli.py)."""
    escaped = text.replace("<", "&lt;").replace(">", "&gt;")
    return f"<hook_context>{escaped}</hook_context>"


#: a list with an item in progress: its marker `[>]` is what Gemini CLI escapes
WORKING = [SHOWN[0], SHOWN[1].model_copy(update={"status": "in_progress"}), SHOWN[2]]


def test_gemini_cli_s_escaped_hook_context_is_read_as_the_loop_s_l4() -> None:
    """Through inspect's bridge the call's response reaches the model as JSON."""
    memory = Memory(scenario=SCENARIO, seen=list(REMEMBERED), forgotten={"1"}, lost=True)
    context = _hook_context(INJECTED_LIST.format(rendered=render(WORKING)))
    assert "[&gt;]" in context
    response = json.dumps({"output": f"main.py\n\n{context}"})
    _policy(memory).observe(_after_bash(response), "", TOOLS)
    assert memory.seen == WORKING and memory.forgotten == set() and not memory.lost


def test_gemini_cli_s_hook_context_beside_a_refused_stop_is_read() -> None:
    """After a refused stop Gemini CLI sends the refusal as the next prompt and the hook's
    context as a text part of its own (BeforeAgent): a user message, no JSON."""
    memory = Memory(scenario=SCENARIO, seen=list(REMEMBERED), forgotten={"1"}, lost=True)
    context = _hook_context(INJECTED_LIST.format(rendered=render(WORKING)))
    _policy(memory).observe(_after_claim(context), "", TOOLS)
    assert memory.seen == WORKING and memory.forgotten == set()


def test_an_item_s_own_escape_outside_gemini_cli_s_context_is_its_text() -> None:
    """Only Gemini CLI's `<hook_context>` is unescaped: an item whose text holds `&gt;` keeps
    it where the list is shown as written (OpenCode's appended output)."""
    own = [TodoItem(id="1", text="Map a &gt; b", status="pending")]
    memory = Memory(scenario=SCENARIO, seen=list(REMEMBERED))
    context = INJECTED_LIST.format(rendered=render(own))
    _policy(memory).observe(_after_bash(f"main.py\n\n{context}"), "", TOOLS)
    assert memory.seen == own
