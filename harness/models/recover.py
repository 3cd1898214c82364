"""`recover/<model>`: any inspect model, with tool calls it wrote as JSON text made real.

Qwen2.5-Coder (and other small models) often answer a tool request with a well-formed
`{"name": ..., "arguments": {...}}` object, bare or in a code fence, instead of the
`<tool_call>` tags its chat template asks for; the server then returns it as text. This
provider wraps another provider and turns such objects into tool calls, the way vLLM's
`qwen2_5_coder` parser and several agent frameworks do. It is a separate, named setup: the
run's `model` says `recover/...`, and every recovered call is counted
(`recovered_tool_calls`), so a leaderboard never passes it off as native tool calling.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    ModelAPI,
    ModelCall,
    ModelOutput,
    get_model,
    modelapi,
)
from inspect_ai.tool import ToolCall, ToolChoice, ToolInfo

from harness.episode.record import RECOVERED

_DEFAULT_CONFIG = GenerateConfig()
#: message metadata key: the reply text the calls were recovered from
ORIGINAL_TEXT = "original_text"

_NAME = re.compile(r"\{\s*\"(?:name|function)\"\s*:\s*\"([A-Za-z_][\w.-]*)\"")
_ARGS = re.compile(r"\"(?:arguments|parameters)\"\s*:\s*")
#: wrappers seen around such objects: code fences and stray tags
_NOISE = re.compile(r"```[a-z]*|</?\s*[a-z_-]+\s*>", re.I)


@dataclass(frozen=True)
class Found:
    """One call found in text: where it was, and what it asks for."""

    start: int
    end: int
    function: str
    arguments: dict[str, Any] | None
    error: str | None


def _decode_at(text: str, start: int) -> tuple[Any, int] | None:
    try:
        return json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError:
        return None


def find_calls(text: str, tool_names: set[str]) -> list[Found]:
    """Every `{"name": <known tool>, "arguments": {...}}` object in `text`, in order.

    The whole object decodes in the usual case. If it does not (a small model's stray
    bracket after the arguments, say), the call is still recovered when its arguments
    object decodes on its own; otherwise it is kept as a malformed call, so the model is
    told what was wrong instead of the text passing as a final answer.
    """
    found: list[Found] = []
    position = 0
    while (match := _NAME.search(text, position)) is not None:
        function = match.group(1)
        if function not in tool_names:
            position = match.end()
            continue
        start = match.start()
        whole = _decode_at(text, start)
        if whole is not None and isinstance(whole[0], dict):
            obj, end = whole
            arguments = obj.get("arguments", obj.get("parameters", {}))
            if isinstance(arguments, str):
                decoded = _decode_at(arguments, 0)
                arguments = decoded[0] if decoded else arguments
            if isinstance(arguments, dict):
                found.append(Found(start, end, function, arguments, None))
            else:
                found.append(Found(start, end, function, None, "arguments must be an object"))
            position = end
            continue
        args = _ARGS.search(text, match.end())
        part = _decode_at(text, args.end()) if args else None
        if part is not None and isinstance(part[0], dict):
            # swallow the closing brackets, stray or not, that end the broken object
            end = part[1]
            while end < len(text) and text[end] in "]} \t\n":
                end += 1
            found.append(Found(start, end, function, part[0], None))
            position = end
        else:
            end = len(text)
            found.append(Found(start, end, function, None, "the call is not valid JSON"))
            position = end
    return found


def recover(
    message: ChatMessageAssistant, tools: list[ToolInfo], turn: int, cut_off: bool = False
) -> ChatMessageAssistant:
    """The message with JSON-text calls made real; unchanged if it made real calls or none.

    `cut_off`: the reply hit the output token limit, which is then named in the error of a
    call left incomplete, so the model can write a shorter one.
    """
    if message.tool_calls or not tools:
        return message
    text = message.text
    calls = find_calls(text, {t.name for t in tools})
    if not calls:
        return message
    prose, last = [], 0
    for call in calls:
        prose.append(text[last : call.start])
        last = call.end
    prose.append(text[last:])
    rest = _NOISE.sub("", "".join(prose)).strip()
    tool_calls = [
        ToolCall(
            id=f"recovered-{turn}-{index}",
            function=call.function,
            arguments=call.arguments or {},
            parse_error=None if call.error is None else _error(call, text, cut_off),
        )
        for index, call in enumerate(calls)
    ]
    metadata = {**(message.metadata or {}), RECOVERED: len(tool_calls), ORIGINAL_TEXT: text}
    return message.model_copy(
        update={"content": rest, "tool_calls": tool_calls, "metadata": metadata}
    )


def _error(call: Found, text: str, cut_off: bool) -> str:
    if cut_off and call.end == len(text):
        return (
            "the reply hit the output token limit before this call was complete "
            f"(write a shorter call): {text[call.start : call.start + 200]}"
        )
    return f"{call.error}: {text[call.start : call.end][:200]}"


@modelapi(name="recover")
class RecoverModel(ModelAPI):
    """Delegates everything to the wrapped provider; only post-processes its replies."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = _DEFAULT_CONFIG,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        if "/" not in model_name:
            raise ValueError(
                f"recover/{model_name}: name the wrapped model, e.g. recover/openai-api/local/qwen"
            )
        # not memoized: a cached instance would keep an earlier base URL
        self.inner = get_model(
            model_name,
            config=config,
            base_url=base_url,
            api_key=api_key,
            memoize=False,
            **model_args,
        ).api

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput | tuple[ModelOutput | Exception, ModelCall]:
        result = await self.inner.generate(input, tools, tool_choice, config)
        if isinstance(result, tuple):
            output, call = result
            if isinstance(output, ModelOutput):
                output = self._recover(output, tools, len(input))
            return (output, call)
        return self._recover(result, tools, len(input))

    @staticmethod
    def _recover(output: ModelOutput, tools: list[ToolInfo], turn: int) -> ModelOutput:
        if not output.choices:
            return output
        choice = output.choices[0]
        fixed = recover(choice.message, tools, turn, cut_off=choice.stop_reason == "max_tokens")
        if fixed is choice.message:
            return output
        stop = "tool_calls" if fixed.tool_calls else choice.stop_reason
        choice = choice.model_copy(update={"message": fixed, "stop_reason": stop})
        return output.model_copy(update={"choices": [choice, *output.choices[1:]]})

    # the wrapped provider decides limits, retries and message shapes
    def max_tokens(self) -> int | None:
        return self.inner.max_tokens()

    def max_tokens_for_config(self, config: GenerateConfig) -> int | None:
        return self.inner.max_tokens_for_config(config)

    def max_connections(self) -> int:
        return self.inner.max_connections()

    def connection_key(self) -> str:
        return self.inner.connection_key()

    def should_retry(self, ex: Exception) -> Any:
        return self.inner.should_retry(ex)

    def is_auth_failure(self, ex: Exception) -> bool:
        return self.inner.is_auth_failure(ex)

    def collapse_user_messages(self) -> bool:
        return self.inner.collapse_user_messages()

    def collapse_assistant_messages(self) -> bool:
        return self.inner.collapse_assistant_messages()

    def tools_required(self) -> bool:
        return self.inner.tools_required()

    async def aclose(self) -> None:
        await self.inner.aclose()
