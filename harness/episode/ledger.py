"""The harness's own record of an episode: what every tool call did to the store and workspace."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from inspect_ai.model import ModelUsage
from pydantic import BaseModel, Field

from harness.todo.base import TodoItem
from harness.todo.specs import CLASSIC_NAMES

#: the seed's todo tools (a design's own are the scorer's to add)
TODO_TOOLS = CLASSIC_NAMES


def prompt_tokens(usage: ModelUsage | None) -> int:
    """Every prompt token a call read: providers report cache hits and writes apart from the
    rest (the agent's turns and the planner's call are counted alike)."""
    if usage is None:
        return 0
    cached = (usage.input_tokens_cache_read or 0) + (usage.input_tokens_cache_write or 0)
    return usage.input_tokens + cached


class TodoEvent(BaseModel):
    """A todo-tool call, accepted or rejected, with the store before and after."""

    kind: Literal["todo"] = "todo"
    turn: int
    call_id: str
    tool: str
    #: what the call does to the list (the design's `ToolSpec.kind`)
    op: str = "rewrite"
    args: dict[str, Any]
    accepted: bool
    error: str | None = None
    #: refused because the list would exceed the design's cap
    over_cap: bool = False
    before: list[TodoItem]
    after: list[TodoItem]


class WorkspaceEvent(BaseModel):
    """A workspace-tool call and whether it succeeded."""

    kind: Literal["workspace"] = "workspace"
    turn: int
    call_id: str
    tool: str
    args: dict[str, Any]
    ok: bool
    result: str


class MalformedCallEvent(BaseModel):
    """A tool call the harness could not run (unknown tool, bad arguments)."""

    kind: Literal["malformed"] = "malformed"
    turn: int
    call_id: str
    tool: str
    error: str


class RepairEvent(BaseModel):
    """The reply guard repaired a value no log can hold (`harness.episode.reply_guard`): a tool
    call (`call_id` set), which was then refused, not run; or the rest of the reply (its text,
    reasoning, metadata; `call_id` empty), which went on repaired."""

    kind: Literal["repair"] = "repair"
    turn: int
    call_id: str = ""
    tool: str = ""
    #: strings that held surrogate code units (lone ones are now U+FFFD)
    surrogates: int = 0
    #: lists or objects nested past the bound, replaced by a marker
    cuts: int = 0


class AssistantEvent(BaseModel):
    """One model turn: its text, how many real tool calls, and token usage."""

    kind: Literal["assistant"] = "assistant"
    turn: int
    text: str
    tool_calls: int
    todo_tool_calls: int
    #: calls a `recover/` provider parsed out of text (0 for native tool calls)
    recovered_tool_calls: int = 0
    input_tokens: int = 0
    #: the part of input_tokens read from the provider's prompt cache
    cache_read_tokens: int = 0
    output_tokens: int = 0
    todo_output_tokens: int = 0


class UserTurnEvent(BaseModel):
    """A scripted user message: what it sanctions from this turn on."""

    kind: Literal["user"] = "user"
    turn: int
    action: str
    subtask: str | None = None
    new_text: str | None = None


class ClaimEvent(BaseModel):
    """A turn with no tool call: the gate `blocked` it, a pending user turn `continued` the
    episode, or it ended the episode as `ending` says."""

    kind: Literal["claim"] = "claim"
    turn: int
    blocked: bool
    ending: str = "claimed_done"
    continued: bool = False
    reason: str = ""
    state: str = ""
    done: int = 0
    total: int = 0


class TickEvent(BaseModel):
    """The tracker ticked subtasks after a successful workspace call."""

    kind: Literal["tick"] = "tick"
    turn: int
    call_id: str
    subtasks: list[str]


class CompactionEvent(BaseModel):
    kind: Literal["compaction"] = "compaction"
    turn: int
    dropped_messages: int


class PlanEvent(BaseModel):
    """The deployable gate took a plan: the agent's first todo list, or the IntentPlanner's."""

    kind: Literal["plan"] = "plan"
    turn: int
    items: list[str]
    source: Literal["todo_list", "planner"] = "todo_list"


class PlannerEvent(BaseModel):
    """The IntentPlanner's call (before the first turn): its plan, or why it gave none."""

    kind: Literal["planner"] = "planner"
    turn: int = 0
    items: list[str] = Field(default_factory=list)
    error: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0


class PlanTickEvent(BaseModel):
    """The deployable (heuristic) tracker ticked plan items after a successful call."""

    kind: Literal["plan_tick"] = "plan_tick"
    turn: int
    call_id: str
    items: list[str]


class NudgeEvent(BaseModel):
    """CompletionLoop refused an end with no tool call and no work done."""

    kind: Literal["nudge"] = "nudge"
    turn: int


class InjectionEvent(BaseModel):
    """The design put the current list into the prompt: L4's block in one turn's system prompt,
    or the context a CLI row's inject hook added (after a tool call, with a user message, after
    a compaction). `tokens` is the text's estimate (`harness.tokens`), counted once per
    injection: what later turns re-read of it is in their input tokens."""

    kind: Literal["injection"] = "injection"
    turn: int
    source: Literal["prompt", "hook"]
    chars: int
    tokens: int


class ExtensionEvent(BaseModel):
    """LoopController extended the turn budget because subtasks progressed."""

    kind: Literal["extension"] = "extension"
    turn: int
    budget: int


Event = (
    PlanEvent
    | PlannerEvent
    | PlanTickEvent
    | NudgeEvent
    | ExtensionEvent
    | InjectionEvent
    | TodoEvent
    | WorkspaceEvent
    | MalformedCallEvent
    | RepairEvent
    | AssistantEvent
    | UserTurnEvent
    | ClaimEvent
    | CompactionEvent
    | TickEvent
)

#: how an episode ended (see `harness.episode.ending`)
EndReason = Literal[
    "claimed_done", "gave_up", "asked_user", "budget_exhausted", "gate_exhausted", "running"
]


class Ledger(BaseModel):
    """Everything scorers may read about an episode besides the final workspace."""

    scenario: str
    variant: str
    #: read by each event's `kind` (every event type has its own): tried member by member, as a
    #: plain union is, reading a ledger back (the scorer, the summary) cost 4x as much
    events: list[Annotated[Event, Field(discriminator="kind")]] = Field(default_factory=list)
    end_reason: EndReason = "running"
    turns: int = 0

    def of(self, kind: type[Any]) -> list[Any]:
        return [event for event in self.events if isinstance(event, kind)]

    @property
    def todo_events(self) -> list[TodoEvent]:
        return self.of(TodoEvent)
