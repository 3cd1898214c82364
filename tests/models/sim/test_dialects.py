"""The simulated agent reads a product's conversation in the seed's terms (`seed_view`)."""

from __future__ import annotations

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageTool, ChatMessageUser
from inspect_ai.tool import ToolCall

from harness.todo.dialects import seed_view


def _call(call_id: str, function: str, arguments: dict[str, str]) -> ToolCall:
    return ToolCall(id=call_id, function=function, arguments=arguments, type="function")


def test_product_calls_and_answers_are_read_in_the_seeds_terms() -> None:
    product = _call("p1", "TaskCreate", {"subject": "Export", "description": "Export"})
    conversation: list[ChatMessage] = [
        ChatMessageUser(content="Do it."),
        ChatMessageAssistant(content="", tool_calls=[product]),
        ChatMessageTool(
            content="Task #1 created successfully: Export", tool_call_id="p1", function="TaskCreate"
        ),
    ]
    seen = seed_view(conversation, {"p1": ("add_todo", {"text": "Export"})})
    assistant, answer = seen[1], seen[2]
    assert isinstance(assistant, ChatMessageAssistant) and assistant.tool_calls
    assert (assistant.tool_calls[0].function, assistant.tool_calls[0].arguments) == (
        "add_todo",
        {"text": "Export"},
    )
    assert isinstance(answer, ChatMessageTool)
    assert (answer.function, answer.text) == ("add_todo", "Added #1: Export")
    # what the agent reads is a copy: the conversation itself is left as it was
    assert conversation[1].tool_calls == [product]  # type: ignore[union-attr]
    assert conversation[2].text == "Task #1 created successfully: Export"


def test_messages_without_product_calls_are_read_as_they_are() -> None:
    seed_call = _call("s1", "add_todo", {"text": "Export"})
    conversation: list[ChatMessage] = [
        ChatMessageUser(content="Do it."),
        ChatMessageAssistant(content="", tool_calls=[seed_call]),
        ChatMessageTool(content="Added #1: Export", tool_call_id="s1", function="add_todo"),
    ]
    # another message's product call does not make these copies (a copy per turn per message)
    seen = seed_view(conversation, {"p9": ("add_todo", {"text": "Other"})})
    assert all(a is b for a, b in zip(seen, conversation, strict=True))


def test_a_created_answer_with_a_line_after_it_is_read_by_its_first() -> None:
    """The pinned Claude Code may add lines after `Task #N created successfully: S` (its bundle,
    where the app keeps statuses): the agent still reads the id and the subject."""
    product = _call("p1", "TaskCreate", {"subject": "Export", "description": "Export"})
    answer = "Task #4 created successfully: Export\nStatuses are kept by the app."
    conversation: list[ChatMessage] = [
        ChatMessageUser(content="Do it."),
        ChatMessageAssistant(content="", tool_calls=[product]),
        ChatMessageTool(content=answer, tool_call_id="p1", function="TaskCreate"),
    ]
    seen = seed_view(conversation, {"p1": ("add_todo", {"text": "Export"})})
    assert seen[2].text == "Added #4: Export"
