"""The one agent loop of every variant: tools, injection, reminder, user turns, compaction, gate."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from inspect_ai.log import transcript
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    ModelOutput,
    ModelUsage,
    execute_tools,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import ToolInfo
from pydantic import JsonValue

from harness import prompts
from harness.guard import looks_like_fake_call
from harness.ledger import (
    TODO_TOOLS,
    AssistantEvent,
    ClaimEvent,
    CompactionEvent,
    Ledger,
    MalformedCallEvent,
    TodoEvent,
    UserTurnEvent,
    WorkspaceEvent,
)
from harness.recover import RECOVERED
from harness.scenario import Scenario, UserTurn
from harness.todo import LEVELS, render
from harness.tools import Episode, todo_tools, workspace_tools
from harness.tracker import TaskStateTracker
from harness.variants import Variant
from harness.workspace import Workspace

REMIND_AFTER = 3


@dataclass
class EpisodeRecord:
    """What the solver hands the scorer: kept out of the sample store, whose every change
    inspect diffs and logs (a per-turn ledger there made runs several times slower)."""

    ledger: Ledger
    workspace: Workspace
    task_state: dict[str, Any]


_RECORDS: dict[str, EpisodeRecord] = {}


def take_record(state: TaskState) -> EpisodeRecord:
    """The episode record for a sample; an infrastructure error if the solver left none."""
    record = _RECORDS.pop(state.uuid, None)
    if record is None:
        raise RuntimeError(
            f"no episode record for sample {state.sample_id}: the agent loop did not run"
        )
    return record


def scenario_of(state: TaskState) -> Scenario:
    return Scenario.model_validate(state.metadata["scenario"])


@solver
def todo_agent(variant: Variant) -> Solver:
    """Run one scenario under one variant; the ledger and workspace go to the sample store."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        scenario = scenario_of(state)
        episode = Episode(
            store=LEVELS[variant.level](),
            workspace=Workspace.create(scenario),
            ledger=Ledger(scenario=scenario.id, variant=variant.label),
            tracker=TaskStateTracker(scenario),
        )
        loop = _Loop(variant, scenario, episode, list(state.messages))
        try:
            await loop.run()
        finally:
            _RECORDS[state.uuid] = EpisodeRecord(
                episode.ledger, episode.workspace, episode.tracker.snapshot()
            )
        state.messages = [ChatMessageSystem(content=prompts.SYSTEM), *loop.history]
        return state

    return solve


def _prompt_tokens(usage: ModelUsage | None) -> int:
    """Every prompt token the model read: providers report cache hits apart from the rest."""
    if usage is None:
        return 0
    cached = (usage.input_tokens_cache_read or 0) + (usage.input_tokens_cache_write or 0)
    return usage.input_tokens + cached


class _Loop:
    def __init__(
        self, variant: Variant, scenario: Scenario, episode: Episode, history: list[ChatMessage]
    ) -> None:
        self.variant = variant
        self.scenario = scenario
        self.episode = episode
        self.history: list[ChatMessage] = [
            m for m in history if not isinstance(m, ChatMessageSystem)
        ]
        self.tools = [*todo_tools(episode), *workspace_tools(episode)]
        self.tool_names = [tool.name for tool in self.tools]
        # built once: inspect would otherwise re-derive every schema on every model call
        self.tool_infos = [
            ToolInfo(name=t.name, description=t.description, parameters=t.parameters)
            for t in self.tools
        ]
        self.turns_without_todo = 0
        self.user_turns: list[UserTurn] = sorted(scenario.user_turns, key=lambda t: t.after_turn)
        episode.on_tick = self._ticked

    @property
    def ledger(self) -> Ledger:
        return self.episode.ledger

    def _ticked(self, subtask_ids: list[str]) -> None:
        transcript().info(
            {
                "event": "task_state_updated",
                "ticked": list[JsonValue](subtask_ids),
                "state": self.episode.tracker.summary(),
            },
            source="task_state_tracker",
        )

    def system_message(self) -> ChatMessageSystem:
        text = prompts.SYSTEM
        if self.variant.inject:
            rendered = render(self.episode.store.items)
            text += "\n\n" + prompts.INJECTED_LIST.format(rendered=rendered)
        return ChatMessageSystem(content=text)

    async def run(self) -> None:
        tracker = self.episode.tracker
        transcript().info(
            {"event": "task_state_init", "state": tracker.summary(), "gate": self.variant.gate},
            source="task_state_tracker",
        )
        model = get_model()
        for turn in range(1, self.scenario.max_turns + 1):
            self.episode.turn = turn
            self.ledger.turns = turn
            output = await model.generate([self.system_message(), *self.history], self.tool_infos)
            message = output.message
            self.history.append(message)
            self._record_turn(turn, output)
            if message.tool_calls:
                await self._run_tools(turn, message)
            elif self._claim_finished(turn, message.text):
                return
            self._deliver_user_turns(turn)
            self._maybe_compact(turn)
        self.ledger.end_reason = "budget_exhausted"

    def _record_turn(self, turn: int, output: ModelOutput) -> None:
        message = output.message
        calls = message.tool_calls or []
        todo_calls = [c for c in calls if c.function in TODO_TOOLS]
        usage = output.usage
        output_tokens = usage.output_tokens if usage else 0
        # attribute output tokens to todo calls by their share of the characters written
        sizes = [len(json.dumps(c.arguments, sort_keys=True)) for c in calls]
        total = len(message.text) + sum(sizes)
        todo_chars = sum(s for c, s in zip(calls, sizes, strict=True) if c.function in TODO_TOOLS)
        self.ledger.events.append(
            AssistantEvent(
                turn=turn,
                text=message.text,
                tool_calls=len(calls),
                todo_tool_calls=len(todo_calls),
                recovered_tool_calls=int((message.metadata or {}).get(RECOVERED, 0)),
                input_tokens=_prompt_tokens(usage),
                output_tokens=output_tokens,
                todo_output_tokens=round(output_tokens * todo_chars / total) if total else 0,
            )
        )

    async def _run_tools(self, turn: int, message: ChatMessageAssistant) -> None:
        first_new = len(self.ledger.events)
        result = await execute_tools([*self.history], self.tools)
        tool_messages = [m for m in result.messages if isinstance(m, ChatMessageTool)]
        recorded = iter(self.ledger.events[first_new:])
        results = {m.tool_call_id: m for m in tool_messages}
        for call in message.tool_calls or []:
            reply = results.get(call.id)
            ran = call.function in self.tool_names and not (
                reply and reply.error and reply.error.type == "parsing"
            )
            if ran:
                event = next(recorded, None)
                if isinstance(event, TodoEvent | WorkspaceEvent):
                    event.call_id = call.id
            else:
                self.ledger.events.append(
                    MalformedCallEvent(
                        turn=turn,
                        call_id=call.id,
                        tool=call.function,
                        error=reply.error.message if reply and reply.error else "not run",
                    )
                )
        if any(c.function in TODO_TOOLS for c in message.tool_calls or []):
            self.turns_without_todo = 0
        else:
            self.turns_without_todo += 1
        if self.turns_without_todo >= REMIND_AFTER and tool_messages:
            first = tool_messages[0]
            first.content = f"{prompts.REMINDER}\n{first.text}"
            self.turns_without_todo = 0
        self.history.extend(result.messages)

    def _claim_finished(self, turn: int, text: str) -> bool:
        """The model answered without a tool call. Returns True if the episode ends."""
        tracker = self.episode.tracker
        if self.variant.gate and looks_like_fake_call(text, self.tool_names):
            self._block(turn, "fake_tool_call", prompts.FAKE_CALL_BLOCKED)
            return False
        if self.variant.gate and tracker.pending:
            self._block(
                turn, "subtasks_pending", prompts.GATE_BLOCKED.format(state=tracker.summary())
            )
            return False
        self.ledger.events.append(ClaimEvent(turn=turn, blocked=False, **self._claim_state()))
        self.ledger.end_reason = "claimed_done"
        return True

    def _block(self, turn: int, reason: str, reply: str) -> None:
        claim = self._claim_state()
        self.ledger.events.append(ClaimEvent(turn=turn, blocked=True, reason=reason, **claim))
        transcript().info(
            {"event": "task_completion_blocked", "reason": reason, "state": claim["state"]},
            source="task_state_tracker",
        )
        self.history.append(ChatMessageUser(content=reply))

    def _claim_state(self) -> dict[str, Any]:
        snapshot = self.episode.tracker.snapshot()
        return {
            "state": self.episode.tracker.summary(),
            "done": snapshot["done"],
            "total": snapshot["total"],
        }

    def _deliver_user_turns(self, turn: int) -> None:
        while self.user_turns and self.user_turns[0].after_turn <= turn:
            user_turn = self.user_turns.pop(0)
            self.history.append(ChatMessageUser(content=user_turn.message))
            self.ledger.events.append(
                UserTurnEvent(
                    turn=turn,
                    action=user_turn.action,
                    subtask=user_turn.subtask,
                    new_text=user_turn.new_text,
                )
            )
            if user_turn.action == "add" and user_turn.subtask:
                self.episode.tracker.add(user_turn.subtask)
            elif user_turn.action == "cancel" and user_turn.subtask:
                self.episode.tracker.cancel(user_turn.subtask)

    def _maybe_compact(self, turn: int) -> None:
        compaction = self.scenario.compaction
        if compaction is None or compaction.at_turn != turn:
            return
        head, tail = self.history[:1], self.history[1:]
        kept = tail[-compaction.keep_last :]
        # a tool result without its assistant call is invalid input for most providers
        while kept and isinstance(kept[0], ChatMessageTool):
            kept.pop(0)
        dropped = len(tail) - len(kept)
        note = ChatMessageUser(content=prompts.COMPACTED.format(count=dropped))
        self.history = [*head, note, *kept]
        self.ledger.events.append(CompactionEvent(turn=turn, dropped_messages=dropped))


def task_state_block(snapshot: dict[str, Any], blocked: int) -> str:
    """The per-sample Task State block shown in the score explanation."""
    lines = [f"- [{'x' if s['done'] else ' '}] {s['title']}" for s in snapshot["subtasks"]]
    status = f"{snapshot['done']}/{snapshot['total']} done"
    if blocked:
        status += f"; completion blocked {blocked}x"
    return "\n".join(["Task State:", *lines, status])
