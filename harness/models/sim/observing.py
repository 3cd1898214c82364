"""How the simulated agent takes in what it is shown: tool results, user turns, an injected
list, compaction. Everything it knows comes from these messages and its own memory of them."""

from __future__ import annotations

import json
import re
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageTool,
    ChatMessageUser,
    ContentText,
)

from harness.episode.prompts import INJECTED_LIST
from harness.models.sim.beliefs import Beliefs
from harness.models.sim.recall import parse_rendered
from harness.products.catalog import CONTEXT_TAGS
from harness.todo.base import TodoItem, render
from harness.todo.specs import CLASSIC_NAMES

#: memory after compaction counts as this many turns stale at least
LOST_STALENESS = 8
#: the words a list kept by the system comes under, wherever it is shown (the loop: the system
#: prompt; a Claude Code hook: a `<system-reminder>` in a tool result or a user message)
INJECTED_HEADER = INJECTED_LIST.partition("{rendered}")[0]
#: how a refusal to stop begins, wherever it is shown (the loop: a user message of its own;
#: a Claude Code Stop hook: a `<system-reminder>` after "Stop hook blocking error from ...: ")
BLOCKED = "Completion blocked"
#: where the products show a hook's context: in a reminder, as sent, which may hold the
#: product's own words before it (Claude Code's), or wrapped right around it with `<` and `>`
#: escaped inside (Gemini CLI's)
REMINDERS = tuple(tags for tags in CONTEXT_TAGS if not tags.escaped)
ESCAPING = tuple(tags for tags in CONTEXT_TAGS if tags.escaped)
#: how a design states its item limit when it refuses a list that would exceed it
CAP_REFUSAL = re.compile(r"Max (\d+) todos allowed")
#: how the store names the items in progress when a start would make a second one
ACTIVE_REFUSAL = re.compile(r"Only one task can be in_progress at a time \(got ([^)]*)\)")


class Observer(Beliefs):
    """Updates the agent's memory from the messages since its last turn."""

    def observe(self, messages: list[ChatMessage], system_text: str, tools: set[str]) -> None:
        m = self.m
        m.staleness += 1
        injected = parse_rendered(system_text)
        last = max(
            (i for i, msg in enumerate(messages) if isinstance(msg, ChatMessageAssistant)),
            default=-1,
        )
        # its last turn's calls are answered after the last assistant message, except where a
        # shipping CLI its user interrupted put an answer of its own after them
        start = next(
            (
                i
                for i in range(last, -1, -1)
                if isinstance(msg := messages[i], ChatMessageAssistant)
                and any(c.id in m.awaiting for c in msg.tool_calls or [])
            ),
            last,
        )
        calls = {
            c.id: c
            for msg in messages[max(start, 0) : last + 1]
            if isinstance(msg, ChatMessageAssistant)
            for c in msg.tool_calls or []
        }
        hooked = None
        for i, message in enumerate(messages[start + 1 :], start + 1):
            if isinstance(message, ChatMessageTool) and (
                i > last or message.tool_call_id in m.awaiting
            ):
                self._observe_tool(message, calls.get(message.tool_call_id or ""))
            elif isinstance(message, ChatMessageUser) and last >= 0 and i > last:
                self._observe_user(message.text, _blocks(message))
            listed = (
                injected_list(message.text)
                if i > last and isinstance(message, ChatMessageTool | ChatMessageUser)
                else None
            )
            hooked = listed if listed is not None else hooked
        m.awaiting = set()
        # a history shorter than the last one seen was compacted (each compaction once)
        if len(messages) < m.history_seen:
            self._compacted()
        m.history_seen = len(messages)
        # a list a product's hook showed since the last turn is read as the system prompt's is
        # (sim v4; before, the sim passed over it unless a todo tool's answer carried it)
        shown = injected if injected is not None else hooked
        if shown is not None:
            self._see(shown)

    def summarise(self, context: str = "") -> str:
        """The answer to a product's compaction request: what compaction costs the agent is
        drawn now, as when the harness's loop compacts (`forget` per item), and the summary
        says the task, the `context` it must keep (its workspace), and the list as it now
        recalls it; the shorter conversation after it is this compaction, not another."""
        self._compacted()
        self.m.history_seen = 0
        listed = render(self.memory_list()) if self.m.seen is not None else "No list yet."
        kept = f"{context}\n\n" if context else ""
        return (
            f"<analysis>The task so far, and my todo list.</analysis>\n<summary>\n{self.s.prompt}"
            f"\n\n{kept}My todo list as I recall it:\n{listed}\n</summary>"
        )

    def _compacted(self) -> None:
        m = self.m
        m.lost = True
        m.staleness = max(m.staleness, LOST_STALENESS)
        m.forgotten = {item.id for item in m.seen or [] if self.rng.random() < self.p.forget}

    def _see(self, items: list[TodoItem]) -> None:
        self.m.seen = list(items)
        self.m.store = list(items)
        self.m.unconfirmed = False
        self.m.staleness = 0
        self.m.lost = False
        self.m.forgotten = set()
        for item in items:
            if item.id.isdigit():
                self.m.max_id = max(self.m.max_id, int(item.id))

    def _observe_tool(self, message: ChatMessageTool, call: Any) -> None:
        text = message.text
        function = message.function or (call.function if call else "")
        error = message.error.message if message.error else None
        if function in CLASSIC_NAMES:
            self.m.unconfirmed = False
            if error is not None and call is not None:
                self._undo_store(call.function, call.arguments)
                self._learn_list_rules(error, call.function, call.arguments)
                self._learn_active(error, call.function, call.arguments)
            listed = parse_rendered(error or text)
            if listed is not None:
                self._see(listed)
            elif error is None and call is not None:
                self._apply_own_op(call.function, call.arguments, text)
            if error is not None and self.rng.random() < self.p.repair:
                self.m.repair_now = True
                # a refusal that shows the list is read as a person reads it: the resend copies
                # what it shows (no new recall slips) instead of writing the list from memory
                # again, which on a long list refused every resend until the turns ran out
                self.m.careful = listed is not None
            return
        step = self.m.inflight.pop(message.tool_call_id or "", None)
        if step is not None:
            exact = step in self.m.exact_steps and error is None
            # a failed step is taken as done: the agent moves on (outcome checks will tell)
            self._step_finished(step, exact)

    def _learn_list_rules(self, error: str, function: str, args: dict[str, Any]) -> None:
        """A refusal is believed where it says how to keep the rules. One that says new items
        need add_todo: from now on they do (before sim v3 every rewrite re-sent the new row and
        was refused again). One that names the item limit: from now on the agent keeps its
        list within it and does the rest of the work without items, and a refused first plan
        is written again within it (before sim v3 it kept re-adding, or forgot its plan)."""
        if function == "todo" and "unknown ids" in error and "use add_todo" in error:
            self.m.adds_by_tool = True  # as the refusal says: new items go through add_todo
        cap = CAP_REFUSAL.search(error)
        if cap is None:
            return
        self.m.cap = int(cap.group(1))
        if function == "todo" and self.m.seen is None:
            self.m.planned = False
        elif function == "add_todo":  # the refused item's work is done without an item
            self.m.omitted.update(s.id for s in self._understand(str(args.get("text", ""))))

    def _learn_active(self, error: str, function: str, args: dict[str, Any]) -> None:
        """A start refused because another item is in progress names that item: the agent
        now knows it is in progress (and will settle it before starting the next), where it
        once kept its own belief and re-sent the same start every turn."""
        active = ACTIVE_REFUSAL.search(error)
        if active is None or function != "update_todo_status" or self.m.seen is None:
            return
        others = set(re.findall(r"#(\S+?)(?:,|$)", active.group(1))) - {str(args.get("id"))}
        self.m.seen = [
            i.model_copy(update={"status": "in_progress"}) if i.id in others else i
            for i in self.m.seen
        ]

    def _undo_store(self, function: str, args: dict[str, Any]) -> None:
        """Bookkeeping: a refused call left the store as it was."""
        m = self.m
        if function == "todo" and isinstance(m.undo.get("todo"), list):
            m.store = list(m.undo.pop("todo"))  # type: ignore[arg-type]
        elif function == "update_todo_status":
            prior = m.undo.pop(str(args.get("id", "")), None)
            if isinstance(prior, TodoItem) and m.store is not None:
                m.store = [prior if i.id == prior.id else i for i in m.store]

    def _apply_own_op(self, function: str, args: dict[str, Any], result: str) -> None:
        """A confirmed single op: the agent updates its memory as it intended the op."""
        m = self.m
        items = list(m.seen or [])
        target = str(args.get("id", ""))
        if function == "todo":  # a rewrite the tool accepted without showing the list back:
            # the agent knows the list it just wrote, as well as if it had been shown it
            self._see([TodoItem.model_validate(i) for i in args.get("items") or []])
            return
        held = self._store()  # bookkeeping: what the op did to the store, at the id it named
        if function == "add_todo":
            added = re.match(r"Added #(\S+):", result)
            if added:
                item = TodoItem(id=added.group(1), text=str(args.get("text", "")))
                items.append(item)
                m.store = [*held, item]
                if added.group(1).isdigit():
                    m.max_id = max(m.max_id, int(added.group(1)))
        elif function == "delete_todo":
            items = [i for i in items if i.id != m.intended.get(target, target)]
            m.store = [i for i in held if i.id != target]
        elif function == "rename_todo":
            text = str(args.get("new_text"))
            m.store = [i.model_copy(update={"text": text}) if i.id == target else i for i in held]
        elif function in ("update_todo_status", "rename_todo"):
            meant = m.intended.get(target, target)
            field_name, value = (
                ("status", args.get("status"))
                if function == "update_todo_status"
                else ("text", args.get("new_text"))
            )
            items = [
                i.model_copy(update={field_name: value}) if i.id == meant else i for i in items
            ]
        m.seen = items

    def _observe_user(self, text: str, blocks: tuple[str, ...] = ()) -> None:
        """A user message (`text`); `blocks`, its text blocks, where a shipping CLI sends the
        user's words in a block of their own beside its reminders (Claude Code), or after the
        instructions it repeats with every prompt (OpenCode through inspect-swe)."""
        m = self.m
        if text.startswith("<reminder>"):
            m.reminded = True
            return
        if BLOCKED in text:  # where the product shows it (sim v4: not only at the start)
            text = _to_reminder_end(text[text.index(BLOCKED) :])
            # a refusal lists what is pending by title, or in the words of the agent's plan
            own = {
                subtask.id
                for line in re.findall(r"\[ \] (.+)", text)
                for subtask in self._understand(line.strip())
            }
            for subtask in self.s.subtasks:
                if f"[ ] {subtask.title}" in text or subtask.id in own:
                    m.forced.add(subtask.id)
                    m.exact_args.add(subtask.id)
                    m.work_done.discard(subtask.id)
                    m.steps_done -= set(self._step_ids(subtask.id))
                    m.verified_steps -= set(self._step_ids(subtask.id))
                    m.verified.discard(subtask.id)
            return
        if "Call the tool for real" in text:
            m.nudged = True
            return
        said = (text, *blocks)
        for turn in self.s.user_turns:
            if turn.subtask and any(_says(b, turn.message) for b in said):
                m.user_ops.append((turn.action, turn.subtask))
                if turn.action == "add":
                    m.added.append(turn.subtask)
                elif turn.action == "cancel":
                    m.cancelled.add(turn.subtask)
                    if any(i in m.steps_done for i in self._step_ids(turn.subtask)):
                        # its work is already done: revert it as the scenario says how
                        m.undo_queue.extend(
                            i
                            for i, step in enumerate(self.s.reference)
                            if step.subtask == turn.subtask and step.undo
                        )
                elif turn.action == "rename" and turn.new_text:
                    m.renamed[turn.subtask] = turn.new_text

    def _step_finished(self, index: int, exact: bool) -> None:
        m = self.m
        m.steps_done.add(index)
        m.exact_steps.discard(index)
        if exact:
            m.verified_steps.add(index)
        order = [s.id for s in self.s.subtasks]
        subtask_id = self.s.reference[index].subtask
        if all(i in m.steps_done for i in self._step_ids(subtask_id)):
            verified = self._would_tick(subtask_id)
            # subtasks with no steps of their own finish with the one before them
            for later in order[order.index(subtask_id) :]:
                if later != subtask_id and self._step_ids(later):
                    break
                m.work_done.add(later)
                m.forced.discard(later)
                if verified:
                    m.verified.add(later)


def injected_list(text: str) -> list[TodoItem] | None:
    """The last list kept by the system that `text` shows under the injection's header, if any;
    in a product's escaping tags (Gemini CLI's), read as the product escaped it (only there:
    elsewhere an item's own `&gt;` is its text), inside the function response inspect's bridge
    shows as JSON (`{"output": ...}`)."""
    text = _response_output(text)
    if INJECTED_HEADER not in text:
        return None
    before, _, shown = text.rpartition(INJECTED_HEADER)
    shown = _to_reminder_end(shown)
    for tags in ESCAPING:
        if before.endswith(tags.open):
            shown = shown.partition(tags.close)[0].replace("&lt;", "<").replace("&gt;", ">")
    return parse_rendered(shown)


def _to_reminder_end(text: str) -> str:
    """`text` up to where a product's reminder around it ends."""
    for tags in REMINDERS:
        text = text.partition(tags.close)[0]
    return text


def _response_output(text: str) -> str:
    """A Gemini API function response's output as its model reads it through inspect's bridge
    (the response object as JSON: `{"output": ...}` or `{"error": ...}`); any other text as
    it is."""
    if not text.startswith("{"):
        return text
    try:
        response = json.loads(text)
    except ValueError:
        return text
    answer = response.get("output", response.get("error")) if isinstance(response, dict) else None
    return answer if isinstance(answer, str) else text


def _blocks(message: ChatMessageUser) -> tuple[str, ...]:
    """The message's text blocks (none for a message that is one string)."""
    if isinstance(message.content, str):
        return ()
    return tuple(c.text for c in message.content if isinstance(c, ContentText))


def _says(block: str, message: str) -> bool:
    """The block is the user's message, or ends with it as a paragraph of its own."""
    return block == message or block.endswith("\n\n" + message)
