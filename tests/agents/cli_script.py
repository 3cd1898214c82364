"""A scripted model for the CLI episodes (inspect's mockllm counts tokens with a tokenizer it
downloads, which a CLI's bridge asks for): each request of the CLI's main loop takes the next
turn of the script; side requests (a session title) get a short answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolCall, ToolChoice, ToolInfo

from harness.suite.cli_tools import workspace_root

Call = tuple[str, dict[str, Any]]
#: one turn: the calls it makes given the workspace root, or None for a final answer
Turn = Callable[[str], list[Call]] | None
SCRIPT: list[Turn] = []
#: main-loop requests answered so far (module-level: inspect caches the model instance)
TURNS = [0]
#: the messages each main-loop request was sent, in order
SEEN: list[list[ChatMessage]] = []
FINAL = "All tasks are complete."


@modelapi(name="cliscript")
class CliScript(ModelAPI):
    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig | None = None, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())

    async def count_text_tokens(self, text: str) -> int:
        return max(1, len(text) // 4)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        usage = ModelUsage(input_tokens=100, output_tokens=10, total_tokens=110)
        if not tools:
            output = ModelOutput.from_content(self.model_name, "Title")
            output.usage = usage
            return output
        told = "\n".join(
            m.text for m in input if isinstance(m, ChatMessageSystem | ChatMessageUser)
        )
        root = workspace_root(told) or ""
        turn = SCRIPT[TURNS[0]] if TURNS[0] < len(SCRIPT) else None
        SEEN.append(list(input))
        TURNS[0] += 1
        calls = turn(root) if turn is not None else []
        output = ModelOutput.from_content(self.model_name, FINAL if not calls else "")
        if calls:
            output.choices[0].message.tool_calls = [
                ToolCall(id=f"t{TURNS[0]}-{i}", function=name, arguments=args, type="function")
                for i, (name, args) in enumerate(calls)
            ]
            output.choices[0].stop_reason = "tool_calls"
        output.usage = usage
        return output


def play(turns: list[Turn]) -> None:
    """Start a new script."""
    SCRIPT[:] = turns
    TURNS[0] = 0
    SEEN.clear()
