"""Scripted model outputs for tests (inspect's mockllm needs `usage` to run offline)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from inspect_ai import eval
from inspect_ai.log import EvalSample
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ModelOutput, ModelUsage, get_model
from inspect_ai.tool import ToolCall, ToolInfo

from harness.run.task import build_task

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


def turns_so_far(messages: Sequence[ChatMessage]) -> int:
    return sum(isinstance(m, ChatMessageAssistant) for m in messages)


def run_episode(
    script: Sequence[ModelOutput] | Callable[[list[ChatMessage], list[ToolInfo]], ModelOutput],
    log_dir: Path,
    scenarios: str,
    variant: str,
    scenario_dir: Path | None = None,
) -> EvalSample:
    """One scenario through the real loop with inspect's mockllm; a list plays turn by turn,
    then answers "Done."."""

    def outputs(input: list[ChatMessage], tools: list[ToolInfo], *_: Any) -> ModelOutput:
        if callable(script):
            return script(input, tools)
        step = turns_so_far(input)
        return script[step] if step < len(script) else turn(text="Done.")

    model = get_model("mockllm/model", custom_outputs=outputs)
    logs = eval(
        build_task(
            scenarios=scenarios,
            variant=variant,
            scenario_dir=None if scenario_dir is None else str(scenario_dir),
        ),
        model=model,
        display="none",
        log_dir=str(log_dir),
    )
    assert logs[0].status == "success", logs[0].error
    assert logs[0].samples
    return logs[0].samples[0]


def scores_of(sample: EvalSample) -> dict[str, float]:
    value = sample.scores["todo_scorer"].value  # type: ignore[index]
    assert isinstance(value, dict)
    return {k: float(v) for k, v in value.items()}
