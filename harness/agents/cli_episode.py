"""One CLI episode's record: what the bridge saw turn by turn, the workspace observed at every
model request, and the product's own record of its todo calls, merged into the harness's ledger.

- Turns: every request of the product's main loop (one that offers its todo tool) is a turn;
  the episode answers it by asking the eval's model itself (the bridge's `filter`), so it knows
  which calls each turn made. Side requests (a session title, say) go to the model as usual.
- Work: at each turn, the previous turn's calls are settled in the order written: the seed
  tools run by the helper command come from its journal, the CLI's `Write`/`Edit`/`Read` are
  read as the seed's `write_file`/`read_file`, and every other call (`Bash`, ...) is observed
  under its own name, so a subtask's state rule (`check`) is judged on the live workspace after
  each successful call, whatever tool made the change. The harness's own tracker ticks.
- Todos: from the product's session record, each call replayed through the harness design
  that reproduces the product (`CliProduct.design`), so the detectors apply unchanged; the
  product's verdict on a call wins over the design's (a call it refused changed nothing). The
  bridge's view of the same calls is the cross-check: any disagreement is an episode error.
- User turns: as a user of the product speaks, through its own channel: a message in the same
  session (inspect-swe resumes it: `claude --resume`, `codex exec resume`, `opencode
  --continue`). A turn due while the CLI works (after turn N, or once a subtask is done or a
  tool has succeeded) interrupts it at that moment, the next request, as a user interrupts the
  product to speak (`UserSpeaks`); one left when the CLI yields is sent then (`follow_up`).
- Compactions: through the product's own compaction command (Claude Code's `/compact`). At the
  scenario's turn the CLI is interrupted as for a user turn (`CompactNow`), the session is
  resumed with the command, and the product's compaction request (a main-loop request: its
  tools are offered, the agent is asked for a summary) goes to the model uncounted, as a
  `compaction` event; then the session goes on with `AFTER_COMPACTION`. A compaction the
  product makes on its own at its context threshold (a request for the summary the episode did
  not ask for, in the product's words: `CliProduct.summary_request`; Claude Code's offers its
  tools, Codex CLI's and OpenCode's none) is the same event, no turn. Claude Code's record
  must hold as many compactions as the episode saw.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
)
from inspect_ai.tool import ToolCall, ToolChoice, ToolError, ToolInfo

from harness.agents.watchdog import StopCli
from harness.episode.ending import classify_ending
from harness.episode.ledger import (
    ClaimEvent,
    CompactionEvent,
    Event,
    Ledger,
    TodoEvent,
    WorkspaceEvent,
)
from harness.episode.loop import assistant_event
from harness.episode.tools import Episode, record_workspace_call, todo_tools
from harness.episode.user_turns import UserScript, apply
from harness.products.product import CliProduct
from harness.products.session_record import CallRecord
from harness.progress import model_replied
from harness.suite.cli_tools import from_cli, helper_journal, helper_runs
from harness.suite.scenario import Scenario
from harness.suite.tracker import TaskStateTracker
from harness.suite.workspace import Workspace
from harness.todo.dialects import asks_for_summary
from harness.todo.registry import designs


class RecordMismatch(RuntimeError):
    """The product's record and the bridge's view of the episode disagree."""


class BudgetSpent(StopCli):
    """The scenario's turn budget is spent: the episode stops the CLI."""


class UserSpeaks(StopCli):
    """A scripted user turn is due while the CLI works: the user interrupts it, as a user
    of the product does, and the session goes on with `message`."""

    def __init__(self, message: str) -> None:
        super().__init__("the user interrupts the CLI to speak")
        self.message = message


class CompactNow(StopCli):
    """The scenario compacts the context after this turn: the episode interrupts the CLI to
    send the product's compaction command."""

    def __init__(self) -> None:
        super().__init__("the episode interrupts the CLI to compact its context")


class NotCompacted(StopCli):
    """The product did not compact when its compaction command was sent (it passed the
    command to the model as a message, or made no request): the episode's error."""


#: what the user says after the product's compaction, to go on with the task (the harness's own
#: loop goes on without a word; a print-mode CLI needs a prompt to run again)
AFTER_COMPACTION = "Continue with the task."


@dataclass
class TodoSlot:
    """A todo call as the bridge saw it, placed in the ledger's order; its effect comes from
    the product's record."""

    turn: int
    call_id: str
    tool: str
    args: dict[str, Any]


def todo_records(
    product: CliProduct, records: list[CallRecord], call_ids: list[str]
) -> list[CallRecord]:
    """The product's record of its todo calls, each under the bridge's id: a product that
    names its calls itself (`CliProduct.names_calls`) is paired with the bridge's `call_ids`
    in the order the calls were made."""
    todo = [r for r in records if r.tool in product.todo_tools]
    if not product.names_calls:
        return todo
    return [
        r.model_copy(update={"id": call_ids[i]}) if i < len(call_ids) else r
        for i, r in enumerate(todo)
    ]


class CliEpisode:
    """The record of one scenario run through one CLI (see the module docstring)."""

    def __init__(
        self, product: CliProduct, scenario: Scenario, workspace: Workspace, journal: Path
    ) -> None:
        self.product = product
        self.scenario = scenario
        self.journal = journal
        self._journal_lines = 0
        self.ledger = Ledger(scenario=scenario.id, variant=product.name)
        self.episode = Episode(
            store=designs()[product.design](None),
            workspace=workspace,
            ledger=Ledger(scenario=scenario.id, variant=product.name),
            tracker=TaskStateTracker(scenario, workspace),
        )
        self.slots: list[Event | TodoSlot] = []
        self.turn = 0
        self.user = UserScript(list(scenario.user_turns))
        self._pending: ChatMessageAssistant | None = None
        self.final_text: str | None = None
        #: the wall clock (as the hooks' journal keeps it) of the main loop's last request
        self.last_request = 0.0
        #: the wall clock of each turn's request, in order
        self.turn_times: list[float] = []
        #: the turn budget stopped the CLI (the watchdog raises BudgetSpent; a CLI that got the
        #: failed request anyway and exited is stopped by it too)
        self.spent = False
        #: the scenario's compactions still to come, in order
        self.compactions = sorted(c.at_turn for c in scenario.compactions)
        #: the product is running its compaction command: its requests are not turns
        self.compacting = False
        #: compaction requests the product made in the current compaction run
        self._compaction_requests = 0
        #: each turn's tool calls as the model made them (for a product that names calls
        #: itself: `CliProduct.names_calls`)
        self._given: list[list[ToolCall]] = []

    @property
    def tracker(self) -> TaskStateTracker:
        return self.episode.tracker

    # -- during the run: the bridge's filter -----------------------------------------------
    async def filter(
        self,
        model: Model,
        messages: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice | None,
        config: GenerateConfig,
    ) -> ModelOutput | None:
        """Each request of the CLI: a turn of the episode if it is the main loop's."""
        main_loop = any(t.name in self.product.todo_tools for t in tools)
        # the product's compaction: the one the episode asked for, or one the product makes on
        # its own at its context threshold (a request for the summary it was not asked for:
        # Claude Code's is a main-loop request, Codex CLI's and OpenCode's offer no tools)
        own = not self.compacting and asks_for_summary(messages)
        if not (main_loop or own):
            return None
        messages = self._as_given(messages)
        self.last_request = time.time()
        if self.compacting or own:
            if own and main_loop and not self._compaction_requests:
                self.settle(messages)  # the turn before it ended in calls the product answered
            return await self._compaction_request(model, messages, tools, tool_choice, config)
        self._compaction_requests = 0  # a compaction of the product's own ends at a turn
        self.settle(messages)
        if self.final_text is not None:
            self._blocked(self.final_text)
        # the previous turn's results are in: user turns due now are delivered here, as the
        # harness's loop delivers them after that turn
        # (the calls scanned only while the user still has something to say)
        due = (
            self.user.due(self.turn, self.tracker.done, self._called()) if self.user.pending else []
        )
        self.slots.extend(apply(turn, self.turn, self.tracker) for turn in due)
        if self.turn >= self.scenario.max_turns:
            self.spent = True
            raise BudgetSpent(f"the scenario's {self.scenario.max_turns} turns are spent")
        if due:
            raise UserSpeaks("\n\n".join(turn.message for turn in due))
        if self.compactions and self.compactions[0] <= self.turn:
            raise CompactNow()
        self.turn += 1
        self.turn_times.append(self.last_request)
        output = await model.generate(messages, tools, tool_choice, config)
        model_replied()
        self.slots.append(assistant_event(self.turn, output, set(self.product.todo_tools)))
        message = output.message
        self._pending = message
        if message.tool_calls:
            self._given.append(list(message.tool_calls))
        for call in message.tool_calls or []:
            if call.function in self.product.todo_tools:
                self.slots.append(TodoSlot(self.turn, call.id, call.function, call.arguments))
        if not message.tool_calls:
            self.final_text = message.text
        return output

    def _as_given(self, messages: list[ChatMessage]) -> list[ChatMessage]:
        """The conversation with each tool call under the id the model gave it, where the
        product names calls itself (`CliProduct.names_calls`): the bridge's assistant messages
        with calls are the turns' in order, and each answer follows its call; the bridge's own
        ids may repeat (it derives them from the call), so they are renamed in place, never
        looked up across turns. A message whose calls are not the model's is left as it is."""
        if not self.product.names_calls:
            return messages
        turns = iter(self._given)
        waiting: dict[str, list[str]] = {}
        out: list[ChatMessage] = []
        for message in messages:
            if isinstance(message, ChatMessageAssistant) and message.tool_calls:
                given = next(turns, None)
                waiting = {}
                names = [c.function for c in message.tool_calls]
                if given is not None and names == [c.function for c in given]:
                    for call, mine in zip(message.tool_calls, given, strict=True):
                        waiting.setdefault(call.id, []).append(mine.id)
                    calls = [
                        dataclasses.replace(call, id=mine.id)
                        for call, mine in zip(message.tool_calls, given, strict=True)
                    ]
                    message = message.model_copy(update={"tool_calls": calls})
            elif isinstance(message, ChatMessageTool) and waiting.get(message.tool_call_id or ""):
                mine_id = waiting[message.tool_call_id or ""].pop(0)
                message = message.model_copy(update={"tool_call_id": mine_id})
            out.append(message)
        return out

    async def _compaction_request(
        self, model: Model, messages: list[ChatMessage], *rest: Any
    ) -> ModelOutput:
        """A request of the product's compaction run: answered by the model, not a turn. The
        first is the compaction's event (what it summarised: the conversation but the request's
        own instructions); a repeat (an answer without the summary the product wants) is not."""
        self._compaction_requests += 1
        if self._compaction_requests == 1:
            last = messages[-1] if messages else None
            command = str(self.product.compact_command)
            if isinstance(last, ChatMessageUser) and last.text.strip().endswith(command):
                raise NotCompacted(
                    f"{self.product.title} did not compact after turn {self.compactions[0]}: "
                    f"it sent its compaction command {command!r} to the model as a message"
                )
            said = [m for m in messages if not isinstance(m, ChatMessageSystem)]
            self.slots.append(
                CompactionEvent(turn=self.turn, dropped_messages=max(len(said) - 1, 0))
            )
        output = await model.generate(messages, *rest)  # its tools, tool choice and config
        model_replied()
        return output

    def start_compaction(self) -> None:
        """The CLI is about to run the product's compaction command."""
        self.compacting, self._compaction_requests = True, 0

    def end_compaction(self) -> None:
        """The compaction run ended: it must have asked the model for its summary."""
        self.compacting = False
        at = self.compactions.pop(0)
        if not self._compaction_requests:
            raise NotCompacted(
                f"{self.product.title} did not compact after turn {at}: its compaction command "
                f"{self.product.compact_command!r} made no compaction request"
            )

    def compactions_done(self) -> int:
        """The compactions the episode recorded."""
        return sum(1 for s in self.slots if isinstance(s, CompactionEvent))

    def settle(self, messages: list[ChatMessage]) -> None:
        """The previous turn's workspace calls, with the answers now in the conversation."""
        message, self._pending = self._pending, None
        if message is None:
            return
        messages = self._as_given(messages)
        answers = {m.tool_call_id: m for m in messages if isinstance(m, ChatMessageTool)}
        root = str(self.episode.workspace.root)
        self.episode.turn = self.turn
        for call in message.tool_calls or []:
            if call.function in self.product.todo_tools:
                continue
            native = (call.function, call.arguments)
            for _ in range(helper_runs(native)):
                self._journaled(call.id)
            if helper_runs(native):
                continue
            answer = answers.get(call.id)
            ok = answer is not None and answer.error is None
            text = answer.text if answer is not None else "no answer"
            tool, args = from_cli(native, root) or native
            self._record(call.id, tool, args, text, ok)
        while self._journaled(""):  # helper runs the calls above did not account for
            pass

    def follow_up(self) -> str | None:
        """The CLI yielded (it ended its run with an answer): the scripted user's next message,
        to send as a follow-up in the same session, or None when the user has nothing to say.
        As in the harness's loop, the answer is recorded as a claim the user continued past."""
        if self.final_text is None:
            return None
        waiting = self.user.on_yield()
        if not waiting:
            return None
        ending = classify_ending(self.final_text)
        self.slots.append(
            ClaimEvent(
                turn=self.turn, blocked=False, ending=ending, continued=True, **self._claim()
            )
        )
        self.final_text = None
        self.slots.extend(apply(turn, self.turn, self.tracker) for turn in waiting)
        return "\n\n".join(turn.message for turn in waiting)

    def _called(self) -> set[str]:
        """The seed tools that have succeeded so far (for a user turn `when: tool_called`)."""
        return {e.tool for e in self.slots if isinstance(e, WorkspaceEvent) and e.ok}

    def _blocked(self, text: str) -> None:
        """The product went on after a turn with no tool call: a Stop hook refused the claim
        (the hooks' journal says so too: `build` checks)."""
        self.final_text = None
        self.slots.append(
            ClaimEvent(turn=self.turn, blocked=True, ending=classify_ending(text), **self._claim())
        )

    def _claim(self) -> dict[str, Any]:
        snapshot = self.tracker.snapshot()
        return {
            "state": self.tracker.summary(),
            "done": snapshot["done"],
            "total": snapshot["total"],
        }

    def _journaled(self, call_id: str) -> bool:
        calls = helper_journal(self.journal)
        if self._journal_lines >= len(calls):
            return False
        call = calls[self._journal_lines]
        self._journal_lines += 1
        self._record(call_id, call.tool, call.args, call.result, call.ok)
        return True

    def _record(self, call_id: str, tool: str, args: dict[str, Any], result: str, ok: bool) -> None:
        scratch = self.episode.ledger.events
        record_workspace_call(self.episode, tool, args, result, ok)
        for event in scratch:
            event.call_id = call_id  # type: ignore[union-attr]
        self.slots.extend(scratch)
        scratch.clear()

    # -- after the run: the product's record -------------------------------------------------
    async def build(self, records: list[CallRecord], ended: str | None) -> tuple[Ledger, list[str]]:
        """The ledger, from the slots and the product's record; and every disagreement between
        the record and the bridge (empty when they agree). `ended` is why the CLI stopped early
        (None: it answered without a tool call)."""
        slots = [s.call_id for s in self.slots if isinstance(s, TodoSlot)]
        by_id = {r.id: r for r in todo_records(self.product, records, slots)}
        problems: list[str] = []
        tools = {t.name: t for t in todo_tools(self.episode)}
        seen: set[str] = set()
        for slot in self.slots:
            if not isinstance(slot, TodoSlot):
                self.ledger.events.append(slot)
                continue
            seen.add(slot.call_id)
            record = by_id.get(slot.call_id)
            if record is None:
                problems.append(f"{slot.tool} call {slot.call_id} is not in the product's record")
                continue
            if record.tool != slot.tool or record.args != slot.args:
                problems.append(
                    f"{slot.tool} call {slot.call_id}: the record holds other arguments"
                )
            problems.extend(await self.replay(slot, record, tools))
        problems.extend(
            f"{r.tool} call {r.id} is in the product's record, not in the bridge's"
            for r in by_id.values()
            if r.id not in seen
        )
        self._end(ended)
        return self.ledger, problems

    async def replay(self, slot: TodoSlot, record: CallRecord, tools: dict[str, Any]) -> list[str]:
        """The product's record of one todo call run through the design (`tools`: the
        episode's todo tools by name), its event appended to the ledger; the product's verdict
        wins. Also what verify runs again on a log (`harness/run/rederive_cli.py`)."""
        store, scratch = self.episode.store, self.episode.ledger.events
        saved = store.snapshot()
        self.episode.turn = slot.turn
        with contextlib.suppress(ToolError):  # a refusal is in the event the tool recorded
            await tools[record.tool].tool(**record.args)
        event = scratch.pop()
        assert isinstance(event, TodoEvent)
        event.call_id = slot.call_id
        problems = []
        if record.refused and event.accepted:  # the product refused it: it changed nothing
            store.restore(saved)
            event = event.model_copy(
                update={"accepted": False, "error": record.result, "after": event.before}
            )
        elif record.result is not None and not record.refused and not event.accepted:
            problems.append(
                f"{record.tool} call {record.id}: the product accepted it, the design refused it"
                f" ({event.error})"
            )
        self.ledger.events.append(event)
        return problems

    def _end(self, ended: str | None) -> None:
        self.ledger.turns = self.turn
        if ended is not None or self.final_text is None:
            # a budget spent while a Stop hook was refusing the last claim is the gate's doing
            last = self.ledger.events[-1] if self.ledger.events else None
            blocked_last = isinstance(last, ClaimEvent) and last.blocked
            self.ledger.end_reason = "gate_exhausted" if blocked_last else "budget_exhausted"
            return
        ending = classify_ending(self.final_text)
        self.ledger.events.append(
            ClaimEvent(turn=self.turn, blocked=False, ending=ending, **self._claim())
        )
        self.ledger.end_reason = ending
