"""A model that answers each call with the next reply a transcript recorded: what re-runs a
solver on a log without building the log's model (no provider, no key, no network)."""

from __future__ import annotations

from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, modelapi
from inspect_ai.tool import ToolChoice, ToolInfo

#: the provider name the replaying model registers under
REPLAY = "todo-bench-replay"


class TranscriptEnded(RuntimeError):
    """The replay asked for a model reply the transcript does not hold."""


class ReplayAPI(ModelAPI):
    """A model that answers each call with the next reply a transcript recorded (each reply
    is answered once, so it is handed over as it is, not copied)."""

    #: it never reads or changes the tool schemas it is given, so the agent loop lets inspect
    #: share them across calls instead of deep-copying them on every call (as for the sim)
    READS_TOOLS_ONLY = True

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),  # noqa: B008 - inspect's own signature
        outputs: list[ModelOutput] | None = None,
    ) -> None:
        super().__init__(model_name=model_name, base_url=base_url, api_key=api_key, config=config)
        self.outputs = list(outputs or [])
        self.used = 0

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        if self.used >= len(self.outputs):
            raise TranscriptEnded(f"the transcript holds {len(self.outputs)} model replies")
        self.used += 1
        return self.outputs[self.used - 1]


@modelapi(name=REPLAY)
def _replay_api() -> type[ModelAPI]:
    return ReplayAPI
