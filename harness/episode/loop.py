"""The one agent loop of every variant: tools, injection, reminder, user turns, compaction, gate."""

from __future__ import annotations

import json
from typing import Any, Literal

from inspect_ai.event import ModelEvent
from inspect_ai.log import transcript
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    Model,
    ModelOutput,
    execute_tools,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import ToolInfo
from pydantic import JsonValue

from harness import progress
from harness._inspect_private import SharedToolInfo
from harness.episode import prompts
from harness.episode.compaction import compact
from harness.episode.ending import classify_ending
from harness.episode.gate.heuristic import HeuristicTracker, KeywordTable
from harness.episode.gate.planner import intent_plan
from harness.episode.ledger import (
    AssistantEvent,
    ClaimEvent,
    CompactionEvent,
    Ledger,
    MalformedCallEvent,
    PlanEvent,
    PlanTickEvent,
    RepairEvent,
    TickEvent,
    TodoEvent,
    WorkspaceEvent,
    prompt_tokens,
)
from harness.episode.policies import policies_for
from harness.episode.record import RECOVERED, EpisodeRecord, scenario_of
from harness.episode.reply_guard import Repair, receive, tolerate_deep_responses
from harness.episode.tools import Episode, todo_tools, workspace_tools
from harness.episode.user_turns import UserScript, apply
from harness.progress import model_replied
from harness.suite.checks import run_checks
from harness.suite.scenario import Scenario, UserTurn
from harness.suite.tracker import TaskStateTracker
from harness.suite.workspace import Workspace
from harness.todo.base import MAX_ITEMS
from harness.todo.registry import designs
from harness.todo.variants import Variant

REMIND_AFTER = 3


def todo_agent(variant: Variant, rules: KeywordTable | None = None) -> Solver:
    """Run one scenario under one variant; the ledger and workspace go to the sample store."""
    # inspect records a solver's arguments in the log, and an eval set's resume compares them
    # with a new run's: the variant goes in as its fields, as every log holds it (its JSON form,
    # as a task's argument, is its label)
    return _todo_agent(variant.model_dump(), rules)


@solver(name="todo_agent")
def _todo_agent(variant: dict[str, Any], rules: KeywordTable | None = None) -> Solver:
    # the parameter's name is in the log's record of the solver (`params_passed`), so it stays
    return _episode_solver(Variant.model_validate(variant), rules)


def _episode_solver(variant: Variant, rules: KeywordTable | None) -> Solver:
    tolerate_deep_responses()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        scenario = scenario_of(state)
        workspace = Workspace.create(scenario)
        episode = Episode(
            store=designs()[variant.design](None if variant.has("uncapped") else MAX_ITEMS),
            workspace=workspace,
            ledger=Ledger(scenario=scenario.id, variant=variant.label),
            tracker=TaskStateTracker(scenario, workspace),
        )
        loop = _Loop(variant, scenario, episode, list(state.messages), rules)
        try:
            await loop.run()
        finally:
            try:
                checks = run_checks(workspace, scenario)
                final_files = workspace.files()
            finally:
                workspace.cleanup()
            record = state.store_as(EpisodeRecord)
            record.ledger_json = episode.ledger.model_dump_json()
            record.checks = [c.model_dump() for c in checks]
            record.final_files = final_files
            record.task_state = episode.tracker.snapshot()
            progress.episode_done()
        state.messages = [ChatMessageSystem(content=prompts.SYSTEM), *loop.history]
        return state

    return solve


class _Loop:
    """One episode's turns, in this order each turn (`run`): extend the budget while the deployed
    tracker progresses; ask the model (the list injected into the system prompt for L4); record
    the turn; run its tool calls (each recorded in the ledger and ticking the tracker; a reminder
    joins the results after three turns without a todo call), or judge its final message (the
    gate or CompletionLoop may refuse it; a pending user turn is delivered instead of ending);
    deliver the user turns now due; compact the context where the scenario says. The episode ends
    on an accepted final message, or when the budget is spent (`gate_exhausted` if the last claim
    was refused)."""

    def __init__(
        self,
        variant: Variant,
        scenario: Scenario,
        episode: Episode,
        history: list[ChatMessage],
        rules: KeywordTable | None = None,
    ) -> None:
        self.variant = variant
        self.policies = policies_for(variant)
        self.rules = rules
        self.scenario = scenario
        self.episode = episode
        self.history: list[ChatMessage] = [
            m for m in history if not isinstance(m, ChatMessageSystem)
        ]
        self.tools = [*todo_tools(episode), *workspace_tools(episode)]
        self.todo_names = {spec.name for spec in episode.store.tool_specs()}
        self.tool_names = [tool.name for tool in self.tools]
        # built once: inspect would otherwise re-derive every schema on every model call
        info = SharedToolInfo if getattr(get_model().api, "READS_TOOLS_ONLY", False) else ToolInfo
        self.tool_infos = [
            info(name=t.name, description=t.description, parameters=t.parameters)
            for t in self.tools
        ]
        self.turns_without_todo = 0
        #: the deployable gate's tracker: built from the agent's first todo list (+heuristic)
        self.deployed: HeuristicTracker | None = None
        self.user = UserScript(list(scenario.user_turns))
        self.called: set[str] = set()  # tools that have succeeded, for `when: tool_called`
        self._system: ChatMessageSystem | None = None
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
        """The system prompt, with the rendered list for L4: the same message while its text is
        unchanged, as a bare inspect loop keeps it (a new message every turn cost a build, an id
        and inspect's snapshot copy per turn, ~40 us)."""
        text = prompts.SYSTEM
        for policy in self.policies:
            text = policy.system_text(self, text)
        if self._system is None or self._system.content != text:
            self._system = ChatMessageSystem(content=text)
        return self._system

    async def run(self) -> None:
        """The turns of the episode (see the class docstring)."""
        tracker = self.episode.tracker
        transcript().info(
            {
                "event": "task_state_init",
                "state": tracker.summary(),
                "gate": self.variant.has("gate"),
            },
            source="task_state_tracker",
        )
        model = get_model()
        for policy in self.policies:
            await policy.before_turns(self, model)
        blocked_last = False
        budget, turn, progress = self.scenario.max_turns, 0, 0
        while True:
            turn += 1
            if turn > budget:
                budget, progress = self._extend(turn, budget, progress)
                if turn > budget:
                    break
            self.episode.turn = turn
            self.ledger.turns = turn
            output = await model.generate([self.system_message(), *self.history], self.tool_infos)
            model_replied()
            output, repairs = self._receive(turn, output)
            message = output.message
            self.history.append(message)
            self._record_turn(turn, output)
            self._record_repairs(turn, repairs)
            blocked_last = False
            if message.tool_calls:
                await self._run_tools(turn, message)
            else:
                outcome = self._final_message(turn, message.text)
                if outcome == "ended":
                    return
                blocked_last = outcome == "blocked"
            done, called = self.episode.tracker.done, self.called
            self._deliver(turn, self.user.due(turn, done, called))
            self._maybe_compact(turn)
        # a budget spent while the gate was refusing the last claim is the gate's doing
        self.ledger.end_reason = "gate_exhausted" if blocked_last else "budget_exhausted"

    def _receive(self, turn: int, output: ModelOutput) -> tuple[ModelOutput, list[Repair]]:
        """Every reply enters the episode here, before any of it is used. The reply guard
        (`reply_guard.receive`) repairs what no log can hold (lone surrogates, nesting past its
        bound) and turns each tool call that needed it into a parse error, which inspect returns
        to the model as a tool error without running it (the loop records it as a malformed
        call); inspect's record of the reply (its model event) gets the same repairs. A reply
        that needs nothing is used as it came. Then the model event's tool schemas are dropped
        after the first turn (`_log_tools_once`)."""
        guarded = receive(output)
        self._log_tools_once(turn)
        return guarded

    def _record_repairs(self, turn: int, repairs: list[Repair]) -> None:
        """What the reply guard repaired in one reply, in the ledger and in the transcript."""
        if not repairs:
            return
        events = [
            RepairEvent(
                turn=turn, call_id=r.call_id, tool=r.tool, surrogates=r.surrogates, cuts=r.cuts
            )
            for r in repairs
        ]
        self.ledger.events.extend(events)
        transcript().info(
            {"event": "reply_repaired", "repairs": [e.model_dump() for e in events]},
            source="reply_guard",
        )

    def _log_tools_once(self, turn: int) -> None:
        """The episode's tool schemas never change, so the log keeps them on its first model
        event only: inspect logs every call's schemas (about 10 KB here), which was ~40% of a
        sample's log and of the time spent condensing and writing it. `inspect view` shows
        them on the first model event of the sample."""
        event = transcript().history.last_event
        if (
            turn > 1
            and isinstance(event, ModelEvent)
            and [t.name for t in event.tools] == self.tool_names
        ):
            event.tools = []

    def _extend(self, turn: int, budget: int, progress: int) -> tuple[int, int]:
        """A spent budget: the policies may extend it (LoopController)."""
        for policy in self.policies:
            budget, progress = policy.extend(self, turn, budget, progress)
        return budget, progress

    async def plan_intent(self, model: Model) -> None:
        """+planner: one structured-output call plans the request before the first turn."""
        request = next((m.text for m in self.history if isinstance(m, ChatMessageUser)), "")
        event, repairs = await intent_plan(model, request)
        self.ledger.events.append(event)
        self._record_repairs(0, repairs)
        if event.items:
            self.deploy(0, event.items, "planner")
        else:
            transcript().info(
                {"event": "intent_planner_failed", "error": event.error}, source="intent_planner"
            )

    def deploy(self, turn: int, texts: list[str], source: Literal["todo_list", "planner"]) -> None:
        """The deployable gate's plan: from the planner, or the agent's first todo list."""
        self.deployed = HeuristicTracker(texts, self.rules)
        self.ledger.events.append(PlanEvent(turn=turn, items=texts, source=source))
        transcript().info(
            {
                "event": "task_state_init",
                "state": self.deployed.summary(),
                "gate": "heuristic",
                "plan": source,
            },
            source="task_state_tracker",
        )

    def _observe_plan(self, turn: int, event: WorkspaceEvent) -> None:
        if self.deployed is None:
            return
        ticked = self.deployed.observe(event.tool, event.args, event.ok)
        if ticked:
            self.ledger.events.append(
                PlanTickEvent(turn=turn, call_id=event.call_id, items=[i.text for i in ticked])
            )
            transcript().info(
                {
                    "event": "task_state_updated",
                    "ticked": list[JsonValue]([i.text for i in ticked]),
                    "state": self.deployed.summary(),
                },
                source="task_state_tracker",
            )

    def _record_turn(self, turn: int, output: ModelOutput) -> None:
        self.ledger.events.append(assistant_event(turn, output, self.todo_names))

    async def _run_tools(self, turn: int, message: ChatMessageAssistant) -> None:
        first_new = len(self.ledger.events)
        result = await execute_tools([*self.history], self.tools)
        tool_messages = [m for m in result.messages if isinstance(m, ChatMessageTool)]
        recorded = iter(
            e for e in self.ledger.events[first_new:] if isinstance(e, TodoEvent | WorkspaceEvent)
        )
        results = {m.tool_call_id: m for m in tool_messages}
        for call in message.tool_calls or []:
            reply = results.get(call.id)
            ran = call.function in self.tool_names and not (
                reply and reply.error and reply.error.type == "parsing"
            )
            if ran:
                event = next(recorded, None)
                if event is not None:
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
        last_call = ""
        for new_event in list(self.ledger.events[first_new:]):
            if isinstance(new_event, WorkspaceEvent):
                last_call = new_event.call_id
                if new_event.ok:
                    self.called.add(new_event.tool)
                self._observe_plan(turn, new_event)
            elif isinstance(new_event, TickEvent):
                new_event.call_id = last_call
            elif isinstance(new_event, TodoEvent) and new_event.accepted:
                for policy in self.policies:
                    policy.after_todo_update(self, turn)
        if any(c.function in self.todo_names for c in message.tool_calls or []):
            self.turns_without_todo = 0
        else:
            self.turns_without_todo += 1
        self.history.extend(result.messages)
        if self.turns_without_todo >= REMIND_AFTER and tool_messages:
            # its own text block after the results, as the demo sends it: written into a tool
            # result, it would corrupt what the agent reads (a file's content, say)
            self.history.append(ChatMessageUser(content=prompts.REMINDER))
            self.turns_without_todo = 0

    def _final_message(self, turn: int, text: str) -> str:
        """A turn with no tool call: 'blocked' by the gate, 'continued' (the user speaks), or
        'ended' (the ledger then says how)."""
        ending = classify_ending(text)
        claim = self._claim_state()
        # CompletionLoop: no tool has done anything yet, so this answer cannot be the end
        if any(policy.continue_instead(self, turn) for policy in self.policies):
            return "continued"
        refusal = next(
            (r for p in self.policies if (r := p.review(self, text, ending)) is not None), None
        )
        if refusal is not None:
            self.ledger.events.append(
                ClaimEvent(turn=turn, blocked=True, reason=refusal.reason, ending=ending, **claim)
            )
            transcript().info(
                {
                    "event": "task_completion_blocked",
                    "reason": refusal.reason,
                    "state": claim["state"],
                },
                source="task_state_tracker",
            )
            self.history.append(ChatMessageUser(content=refusal.reply))
            return "blocked"
        waiting = self.user.on_yield()
        self.ledger.events.append(
            ClaimEvent(turn=turn, blocked=False, ending=ending, continued=bool(waiting), **claim)
        )
        if waiting:
            self._deliver(turn, waiting)
            return "continued"
        self.ledger.end_reason = ending
        return "ended"

    def _claim_state(self) -> dict[str, Any]:
        snapshot = self.episode.tracker.snapshot()
        return {
            "state": self.episode.tracker.summary(),
            "done": snapshot["done"],
            "total": snapshot["total"],
        }

    def _deliver(self, turn: int, user_turns: list[UserTurn]) -> None:
        for user_turn in user_turns:
            self.history.append(ChatMessageUser(content=user_turn.message))
            self.ledger.events.append(apply(user_turn, turn, self.episode.tracker))

    def _maybe_compact(self, turn: int) -> None:
        for compaction in self.scenario.compactions:
            if compaction.at_turn == turn:
                self.history, dropped = compact(self.history, compaction)
                self.ledger.events.append(CompactionEvent(turn=turn, dropped_messages=dropped))


def assistant_event(turn: int, output: ModelOutput, todo_names: set[str]) -> AssistantEvent:
    """One model turn in the ledger: its text, its calls, and its tokens (output tokens are
    attributed to todo calls by their share of the characters written)."""
    message = output.message
    calls = message.tool_calls or []
    usage = output.usage
    output_tokens = usage.output_tokens if usage else 0
    sizes = [len(json.dumps(c.arguments, sort_keys=True)) for c in calls]
    total = len(message.text) + sum(sizes)
    todo_chars = sum(s for c, s in zip(calls, sizes, strict=True) if c.function in todo_names)
    return AssistantEvent(
        turn=turn,
        text=message.text,
        tool_calls=len(calls),
        todo_tool_calls=sum(1 for c in calls if c.function in todo_names),
        recovered_tool_calls=int((message.metadata or {}).get(RECOVERED, 0)),
        input_tokens=prompt_tokens(usage),
        cache_read_tokens=(usage.input_tokens_cache_read or 0) if usage else 0,
        output_tokens=output_tokens,
        todo_output_tokens=round(output_tokens * todo_chars / total) if total else 0,
    )
