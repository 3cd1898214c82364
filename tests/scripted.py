"""Scripted model outputs for tests (inspect's mockllm needs `usage` to run offline)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspect_ai.model import ModelOutput, ModelUsage
from inspect_ai.tool import ToolCall

Call = tuple[str, dict[str, Any]]


def turn(*calls: Call, text: str = "") -> ModelOutput:
    """One assistant turn making `calls` (or a final answer if there are none)."""
    usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
    if not calls:
        output = ModelOutput.from_content(model="mockllm", content=text or "Done.")
    else:
        output = ModelOutput.for_tool_call(
            model="mockllm", tool_name=calls[0][0], tool_arguments=calls[0][1]
        )
        output.choices[0].message.tool_calls = [
            ToolCall(id=f"call_{i}_{name}", function=name, arguments=args, type="function")
            for i, (name, args) in enumerate(calls)
        ]
        output.choices[0].message.content = text
    output.usage = usage
    return output


def script(turns: Sequence[ModelOutput]) -> list[ModelOutput]:
    """Pad a script with final answers so the loop never runs out of outputs."""
    return [*turns, *(turn(text="Done.") for _ in range(5))]
