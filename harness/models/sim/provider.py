"""`sim/<profile>`: the deterministic simulated agent as an inspect-ai model provider."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from typing import TYPE_CHECKING, Any

from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolCall, ToolChoice, ToolInfo

from harness._inspect_private import active_samples, sample_active
from harness.episode.gate.planner import SCHEMA_NAME
from harness.models.sim import billing, latency
from harness.models.sim.memory import Memory
from harness.models.sim.plain_json import plainest
from harness.models.sim.policy import SimPolicy
from harness.models.sim.profiles import SCENARIO_DIR_ARG, load_profile, split_args
from harness.models.sim.wording import word_plan
from harness.suite.cli_tools import shell_of, to_cli, workspace_note, workspace_root
from harness.suite.scenario import SCENARIO_DIR, Scenario, load_scenarios
from harness.suite.workspace_tools import WORKSPACE_TOOLS
from harness.todo.dialects import (
    ID_LESS,
    asks_for_summary,
    classic_names,
    drivable,
    seed_view,
    to_product,
)

if TYPE_CHECKING:
    from harness._inspect_private import ActiveSample

_DEFAULT_CONFIG = GenerateConfig()


class SimModel(ModelAPI):
    """A scripted, competent agent with calibrated fallibility (docs/simulated-agent.md)."""

    #: it never changes the tool schemas it is given, so the agent loop lets inspect share
    #: them across calls instead of deep-copying them on every call
    READS_TOOLS_ONLY = True

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = _DEFAULT_CONFIG,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        overrides, options = split_args(model_args)
        scenario_dir = options.get(SCENARIO_DIR_ARG)
        self.latency = latency.parse(options.get(latency.ARG, 0))
        self.profile = load_profile(model_name, overrides)
        directory = (
            SCENARIO_DIR if scenario_dir is None else __import__("pathlib").Path(scenario_dir)
        )
        self.scenarios = {s.prompt: s for s in load_scenarios(directory)}
        self.memories: dict[str, Memory] = {}

    def max_connections(self) -> int:
        return 64

    async def count_text_tokens(self, text: str) -> int:
        return billing.reply_tokens(billing.Parts(text_chars=len(text)))

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        active = sample_active()
        if self.latency[1] > 0:  # a hosted model's time, before any decision is made
            where = f"{active.id}|{active.epoch}" if active else "none"
            await asyncio.sleep(
                latency.delay(self.latency, self.profile.seed, f"{where}|{len(input)}")
            )
        scenario = self._scenario(input, active)
        if scenario is None:
            return self._output(
                ChatMessageAssistant(
                    content="I do not recognise this task.", model=self.model_name
                ),
                input,
                tools,
            )
        epoch = active.epoch if active else 1
        if config.response_schema is not None and config.response_schema.name == SCHEMA_NAME:
            return self._intent_plan(scenario, epoch, input, tools)
        if not tools:
            # a CLI's side request (a session title, a summary): a short answer, no turn; as
            # the JSON its schema asks for where it asks for one (Gemini CLI's loop check)
            answer = (
                scenario.title
                if config.response_schema is None
                else json.dumps(plainest(config.response_schema.json_schema))
            )
            return self._output(
                ChatMessageAssistant(content=answer, model=self.model_name), input, tools
            )
        key = active.id if active else f"{scenario.id}-{epoch}"
        if key not in self.memories:
            self._forget_finished()
        memory = self.memories.setdefault(key, Memory(scenario=scenario))
        memory.calls += 1
        rng = random.Random(
            _seed(self.profile.seed, self.profile.name, scenario, epoch, memory.calls)
        )
        offered = {t.name for t in tools}
        if not drivable(offered):
            # refused rather than faked: the CLI checks this before a run, inspect eval does not
            raise ValueError(
                f"the simulated agent cannot drive these todo tools ({', '.join(sorted(offered))}"
                "): it speaks the seed's tools (todo; add_todo, update_todo_status, ...) and "
                "TodoWrite, update_plan, todo_write, TaskCreate/TaskUpdate; use a real model"
            )
        names = classic_names(offered)
        system = "\n".join(m.text for m in input if isinstance(m, ChatMessageSystem))
        policy = SimPolicy(self.profile, memory, rng)
        policy.observe(seed_view(list(input), memory.sent), system, names)
        # a CLI episode announces its workspace in what the CLI is told (Claude Code: its system
        # prompt; Codex CLI: its AGENTS.md instructions, sent as a user message)
        told = "\n".join(
            m.text for m in input if isinstance(m, ChatMessageSystem | ChatMessageUser)
        )
        root = workspace_root(told) if shell_of(offered) else None
        if asks_for_summary(input):  # a product compacts its context: a summary, no turn
            memory.awaiting = set()
            # what it must know to go on, the workspace among it, goes into the summary
            kept = workspace_note(root) if root is not None else ""
            summary = ChatMessageAssistant(content=policy.summarise(kept), model=self.model_name)
            return self._output(summary, input, tools, memory.meter)
        # bookkeeping: whether this turn's fault record rests on a guess about the store
        unsure = memory.unconfirmed
        decision = policy.decide(names)
        calls = []
        for i, decided in enumerate(decision.calls):
            call_id = f"sim-{memory.calls}-{i}"
            name, args = to_product(decided, offered)
            if root is not None and name in WORKSPACE_TOOLS:
                # a CLI's own tools, or the helper through its shell (a CLI's own tool may
                # bear a seed tool's name with other arguments: Gemini CLI's `write_file`)
                name, args = to_cli((name, args), root, offered)
            if (name, args) != decided:
                memory.sent[call_id] = decided  # remembered in its own terms
            calls.append(ToolCall(id=call_id, function=name, arguments=args, type="function"))
        memory.awaiting = {call.id for call in calls}
        if decision.step is not None and calls:
            memory.inflight[calls[decision.step_call or 0].id] = decision.step
        faults = [
            f.dump() | {"call_id": calls[f.call].id if f.call is not None and calls else None}
            for f in decision.faults
            # a renumbering the product's id-less list cannot carry is no fault of the record
            if not (
                f.metric == "id_churn"
                and f.call is not None
                and calls
                and calls[f.call].function in ID_LESS
            )
        ]
        message = ChatMessageAssistant(
            content=decision.text,
            tool_calls=calls or None,
            model=self.model_name,
            metadata=(
                {**({"sim_faults": faults} if faults else {}), "sim_store_unsure": True}
                if unsure
                else {"sim_faults": faults}
                if faults
                else None
            ),
        )
        return self._output(message, input, tools, memory.meter)

    def _intent_plan(
        self, scenario: Scenario, epoch: int, input: list[ChatMessage], tools: list[ToolInfo]
    ) -> ModelOutput:
        """The IntentPlanner's call: the plan, worded afresh (the agent's own todo list later is
        another draw), as the JSON the schema asks for."""
        rng = random.Random(_seed(self.profile.seed, self.profile.name, scenario, epoch, 0))
        plan = word_plan(scenario, self.profile, rng)
        content = json.dumps({"subtasks": plan.texts}, ensure_ascii=False)
        return self._output(
            ChatMessageAssistant(content=content, model=self.model_name), input, tools
        )

    def _forget_finished(self) -> None:
        """Drop the memories of samples that have ended, so a long run does not grow."""
        live = {sample.id for sample in active_samples()}
        for key in [k for k in self.memories if k not in live]:
            del self.memories[key]

    def _scenario(self, input: list[ChatMessage], active: ActiveSample | None) -> Scenario | None:
        """The scenario travels with the sample (read once per episode); the prompt lookup in
        the scenario folder serves calls made outside an eval."""
        if active is not None and active.id in self.memories:
            return self.memories[active.id].scenario
        carried = (active.sample.metadata or {}).get("scenario") if active else None
        if carried:
            return Scenario.model_validate(carried)
        prompt = next((m.text for m in input if isinstance(m, ChatMessageUser)), "")
        return self.scenarios.get(prompt.strip())

    def _output(
        self,
        message: ChatMessageAssistant,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        meter: billing.PromptMeter | None = None,
    ) -> ModelOutput:
        parts = billing.prompt_parts(input, tools) if meter is None else meter.parts(input, tools)
        input_tokens = billing.prompt_tokens(parts)
        output_tokens = billing.reply_tokens(billing.reply_parts(message))
        return ModelOutput(
            model=self.model_name,
            choices=[
                ChatCompletionChoice(
                    message=message,
                    stop_reason="tool_calls" if message.tool_calls else "stop",
                )
            ],
            usage=ModelUsage(
                input_tokens=input_tokens,
                output_tokens=output_tokens,
                total_tokens=input_tokens + output_tokens,
            ),
            metadata=message.metadata,
        )


def _seed(seed: int, profile: str, scenario: Scenario, epoch: int, call: int) -> int:
    digest = hashlib.sha256(f"{seed}|{profile}|{scenario.id}|{epoch}|{call}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@modelapi(name="sim")
def sim() -> type[ModelAPI]:
    """Registers `sim/<profile>`; the class stays plain so it can be subclassed."""
    return SimModel
