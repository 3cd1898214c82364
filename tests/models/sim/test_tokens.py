"""The simulated agent's token estimate: it bills every part a provider bills, and it stays
calibrated against the real tokenizer counts committed in `results/token-calibration/`."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, ChatMessageUser
from inspect_ai.tool import ToolCall, ToolCallError, ToolInfo, ToolParams

from harness.models.sim import tokens

CALLS = Path("results/token-calibration/calls.csv")
TOOL = ToolInfo(name="todo", description="Replace the list.", parameters=ToolParams())


def _history(
    error: str | None = None, items: int = 3
) -> list[ChatMessageUser | ChatMessageAssistant | ChatMessageTool]:
    call = ToolCall(
        id="c1", function="todo", arguments={"items": [{"id": str(i)} for i in range(items)]}
    )
    return [
        ChatMessageUser(content="Do the task."),
        ChatMessageAssistant(content="", tool_calls=[call]),
        ChatMessageTool(
            content="ok",
            tool_call_id="c1",
            function="todo",
            error=ToolCallError("parsing", error) if error else None,
        ),
    ]


def test_a_failed_calls_error_text_is_billed() -> None:
    plain = tokens.prompt_parts(list(_history()), [TOOL])
    failed = tokens.prompt_parts(list(_history(error="x" * 400)), [TOOL])
    assert failed.text_chars - plain.text_chars == len("Error: " + "x" * 400) - len("ok")


def test_calls_in_the_history_and_schemas_are_billed() -> None:
    short = tokens.prompt_tokens(tokens.prompt_parts(list(_history(items=1)), [TOOL]))
    long = tokens.prompt_tokens(tokens.prompt_parts(list(_history(items=50)), [TOOL]))
    assert long > short + 50 * 3  # every resent item costs tokens
    bare = tokens.prompt_tokens(tokens.prompt_parts(list(_history()), []))
    assert tokens.prompt_tokens(tokens.prompt_parts(list(_history()), [TOOL])) > bare


def test_a_reply_costs_at_least_one_token() -> None:
    assert tokens.reply_tokens(tokens.reply_parts(ChatMessageAssistant(content=""))) == 1


def _relative_errors(frame: pd.DataFrame) -> pd.Series:
    estimate = [
        tokens.prompt_tokens(
            tokens.Parts(
                text_chars=int(r.in_text_chars),
                call_chars=int(r.in_call_chars),
                schema_chars=int(r.in_schema_chars),
                messages=int(r.in_messages),
                tools=int(r.in_tools),
            )
        )
        for r in frame.itertuples()
    ]
    return (pd.Series(estimate, index=frame.index) - frame["exact_in"]).abs() / frame["exact_in"]


def test_the_estimate_matches_the_committed_tokenizer_counts() -> None:
    frame = pd.read_csv(CALLS)
    errors = _relative_errors(frame)
    # within 15% of the real tokenizer's count for nearly every prompt (chars / 4 managed 3%)
    assert (errors <= 0.15).mean() >= 0.95
    assert errors.median() < 0.05
