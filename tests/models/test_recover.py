"""The `recover/` provider's parser: which text becomes a tool call, and how."""

from __future__ import annotations

from inspect_ai.model import ChatMessageAssistant
from inspect_ai.tool import ToolCall, ToolInfo, ToolParams

from harness.episode.record import RECOVERED
from harness.models.recover import ORIGINAL_TEXT, find_calls, recover

NAMES = {"create_excel", "list_files"}
TOOLS = [ToolInfo(name=n, description=n, parameters=ToolParams()) for n in sorted(NAMES)]


def test_bare_and_fenced_objects_are_calls() -> None:
    bare = '{"name": "list_files", "arguments": {"path": "."}}'
    fenced = '```json\n{\n  "name": "create_excel",\n  "arguments": {"path": "a.xlsx"}\n}\n```'
    assert [(c.function, c.arguments) for c in find_calls(bare, NAMES)] == [
        ("list_files", {"path": "."})
    ]
    assert [(c.function, c.arguments) for c in find_calls(fenced, NAMES)] == [
        ("create_excel", {"path": "a.xlsx"})
    ]


def test_arguments_given_as_a_json_string_or_as_parameters() -> None:
    text = '{"name": "list_files", "arguments": "{\\"path\\": \\"x\\"}"}'
    assert find_calls(text, NAMES)[0].arguments == {"path": "x"}
    text = '{"name": "list_files", "parameters": {"path": "y"}}'
    assert find_calls(text, NAMES)[0].arguments == {"path": "y"}


def test_stray_bracket_after_the_arguments_is_tolerated() -> None:
    text = '{"name": "create_excel", "arguments": {"path": "e.xlsx", "rows": [["file"]]}]}'
    (call,) = find_calls(text, NAMES)
    assert (call.arguments, call.error, call.end) == (
        {"path": "e.xlsx", "rows": [["file"]]},
        None,
        len(text),
    )


def test_unknown_names_and_prose_are_not_calls() -> None:
    assert find_calls('{"name": "launch_rocket", "arguments": {}}', NAMES) == []
    assert find_calls("I listed the files with list_files and I am done.", NAMES) == []
    assert find_calls('{"name": "Ann", "age": 3}', NAMES) == []


def test_truncated_call_is_kept_as_malformed() -> None:
    (call,) = find_calls('{"name": "list_files", "arguments": {"path": ', NAMES)
    assert call.arguments is None and call.error == "the call is not valid JSON"


def test_recover_rewrites_the_message_and_records_what_it_did() -> None:
    text = (
        'First I list.\n{"name": "list_files", "arguments": {}}\n'
        '{"name": "create_excel", "arguments": {"path": "'
    )
    fixed = recover(ChatMessageAssistant(content=text), TOOLS, turn=4)
    assert fixed.tool_calls is not None
    assert [(c.id, c.function, c.parse_error is None) for c in fixed.tool_calls] == [
        ("recovered-4-0", "list_files", True),
        ("recovered-4-1", "create_excel", False),
    ]
    assert fixed.text == "First I list."
    assert fixed.metadata == {RECOVERED: 2, ORIGINAL_TEXT: text}


def test_native_calls_and_toolless_requests_are_left_alone() -> None:
    native = ChatMessageAssistant(
        content='{"name": "list_files", "arguments": {}}',
        tool_calls=[ToolCall(id="c1", function="list_files", arguments={})],
    )
    assert recover(native, TOOLS, 1) is native
    plain = ChatMessageAssistant(content='{"name": "list_files", "arguments": {}}')
    assert recover(plain, [], 1) is plain


def test_a_call_cut_off_by_the_token_limit_says_so() -> None:
    text = '{"name": "list_files", "arguments": {"path": "a'
    cut = recover(ChatMessageAssistant(content=text), TOOLS, 2, cut_off=True).tool_calls
    whole = recover(ChatMessageAssistant(content=text), TOOLS, 2).tool_calls
    assert cut and whole and cut[0].parse_error and whole[0].parse_error
    assert "output token limit" in cut[0].parse_error
    assert "output token limit" not in whole[0].parse_error
