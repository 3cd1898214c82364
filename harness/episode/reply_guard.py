"""The guard on a model's reply: whatever a provider hands the episode can be run and logged.

Two kinds of value in a reply ended the whole sample's log, not the call (inspect-ai 0.3.285):

- a list or object nested deeper than pydantic-core's limit (~255 levels): inspect builds the
  call's pending ToolEvent, which fails to validate, before it checks its own bound of 100
  levels (`MAX_TOOL_CALL_ARGUMENTS_DEPTH`), and the Anthropic provider fails to record such a
  reply at all (`ModelCall.set_response`: "Maximum serialization depth exceeded");
- a lone UTF-16 surrogate (`"\\ud800"`, which JSON's escape of one decodes to), anywhere: a
  string holding one has no UTF-8 encoding, so the log cannot be written.

`receive` runs on every reply (the agent loop's turns and the planner's call) before anything
uses it (`guard_output`, `guard_reply`): a string holding surrogate code units has a pair joined
and a lone one replaced by U+FFFD; a list or object nested deeper than `MAX_DEPTH` levels is
replaced by `CUT`. A tool call that needed either is not run: its `parse_error` says why, so
inspect returns it to the model as a tool error (and the loop records it as a malformed call).
The repairs are returned for the ledger. A reply that needs nothing is returned as it is, the
same objects: the guard changes no normal episode.

`guard_event` gives inspect's record of the reply (its model event: the output and the
provider's raw response) the same repairs, and `tolerate_deep_responses` lets a provider record
a reply nested too deep for pydantic-core, cut at the same bound, instead of failing the call.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from dataclasses import dataclass
from typing import Any

from inspect_ai.event import ModelEvent
from inspect_ai.log import transcript
from inspect_ai.model import ChatMessageAssistant, ModelOutput
from inspect_ai.tool import ToolCall
from pydantic import BaseModel

from harness._inspect_private import tolerate_set_response

#: the deepest nesting a reply may carry, counted as inspect counts tool arguments (the
#: arguments object is level 1); the bound inspect itself applies to arguments it parses
MAX_DEPTH = 100
#: what stands in for a list or object nested deeper than MAX_DEPTH
CUT = f"<cut: nested deeper than {MAX_DEPTH} levels>"
_ATTACHMENT = "attachment://"
_ATOMS = frozenset({int, float, bool, type(None)})


@dataclass
class Repairs:
    """What one walk repaired: strings that held surrogate code units, containers cut."""

    surrogates: int = 0
    cuts: int = 0

    def __bool__(self) -> bool:
        return bool(self.surrogates or self.cuts)


@dataclass(frozen=True)
class Repair:
    """One repaired tool call (`call_id` set; it was not run) or the rest of a reply."""

    call_id: str
    tool: str
    surrogates: int
    cuts: int


def fix_text(text: str) -> str:
    """`text` with surrogate pairs joined and lone surrogates replaced by U+FFFD (the same
    string when it has none)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


class _Walk:
    """Copy-on-write repair of values: what needs no repair comes back as the same object.

    Lists, tuples, objects, pydantic models and dataclasses each count as a level. A container
    reached again (a value shared by two paths, or a cycle; never in decoded JSON) is walked
    again only from deeper than before, so the walk stays bounded. `as_data` turns models and
    dataclasses into plain objects (for a provider's raw response, which is logged as data)."""

    def __init__(self, as_data: bool = False) -> None:
        self.found = Repairs()
        self.as_data = as_data
        #: id -> (the depth it was walked from, the value itself (kept alive so that its id
        #: is not reused by a temporary), what the walk made of it)
        self._seen: dict[int, tuple[int, Any, Any]] = {}

    def text(self, text: str) -> str:
        fixed = fix_text(text)
        if fixed is not text:
            self.found.surrogates += 1
        return fixed

    def value(self, value: Any, depth: int = 0) -> Any:
        kind = type(value)
        if kind is str:
            return value if value.isascii() else self.text(value)
        if kind in _ATOMS:
            return value
        if isinstance(value, str):
            return self.text(value)
        if not isinstance(value, dict | list | tuple | BaseModel) and not _is_dataclass(value):
            return value
        if depth >= MAX_DEPTH:
            self.found.cuts += 1
            return CUT
        seen = self._seen.get(id(value))
        if seen is not None and seen[0] >= depth:
            return seen[2]
        result: Any
        if isinstance(value, dict):
            result = self._dict(value, depth + 1)
        elif isinstance(value, list | tuple):
            result = self._list(value, depth + 1)
        elif self.as_data:
            result = self._dict(_as_data(value), depth + 1)
        else:
            result = self._fields(value, depth + 1)
        self._seen[id(value)] = (depth, value, result)
        return result

    def _dict(self, value: dict[Any, Any], depth: int) -> dict[Any, Any]:
        out: dict[Any, Any] | None = None
        for index, (key, item) in enumerate(value.items()):
            new_key, new_item = self.value(key, depth), self.value(item, depth)
            if out is None:
                if new_key is key and new_item is item:
                    continue
                out = dict(itertools.islice(value.items(), index))
            out[new_key] = new_item
        return value if out is None else out

    def _list(self, value: list[Any] | tuple[Any, ...], depth: int) -> list[Any] | tuple[Any, ...]:
        out: list[Any] | None = None
        for index, item in enumerate(value):
            new = self.value(item, depth)
            if out is None:
                if new is item:
                    continue
                out = list(value[:index])
            out.append(new)
        return value if out is None else out

    def _fields(self, value: Any, depth: int) -> Any:
        """A model or dataclass with its fields repaired (a shallow copy; the same if none)."""
        names = (
            list(type(value).model_fields)
            if isinstance(value, BaseModel)
            else [f.name for f in dataclasses.fields(value)]
        )
        updates: dict[str, Any] = {}
        for name in names:
            old = getattr(value, name)
            new = self.value(old, depth)
            if new is not old:
                updates[name] = new
        extra = getattr(value, "__pydantic_extra__", None) if isinstance(value, BaseModel) else None
        new_extra = self.value(extra, depth - 1) if extra else extra
        if not updates and new_extra is extra:
            return value
        copied = copy.copy(value)
        for name, new in updates.items():
            object.__setattr__(copied, name, new)
        if new_extra is not extra:
            object.__setattr__(copied, "__pydantic_extra__", new_extra)
        return copied


def _is_dataclass(value: Any) -> bool:
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def _as_data(value: Any) -> dict[str, Any]:
    """A model's or dataclass's fields (and a model's extra fields) as a plain object, without
    the fields that are None (as inspect records a provider's response)."""
    if isinstance(value, BaseModel):
        data = {name: getattr(value, name) for name in type(value).model_fields}
        data.update(value.__pydantic_extra__ or {})
    else:
        data = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    return {k: v for k, v in data.items() if v is not None}


def refusal(tool: str, found: Repairs) -> str:
    """The tool error a repaired call gets instead of running."""
    what = []
    if found.surrogates:
        what.append(
            "a lone UTF-16 surrogate (such as \\ud800), which is not text and was replaced "
            "by U+FFFD"
        )
    if found.cuts:
        what.append(f"a value nested deeper than {MAX_DEPTH} levels, which was cut")
    return f"{tool} was not run: the call held {' and '.join(what)}. Send it again as plain JSON."


def _guard_call(call: ToolCall) -> tuple[ToolCall, Repairs]:
    walk = _Walk()
    # the arguments object is level 1, as inspect counts them
    arguments = walk.value(call.arguments, 0)
    rest = {
        name: walk.value(getattr(call, name))
        for name in ("id", "function", "parse_error", "view")
        if getattr(call, name) is not None
    }
    if not walk.found:
        return call, walk.found
    guarded = copy.copy(call)
    for name, value in rest.items():
        setattr(guarded, name, value)
    guarded.arguments = arguments
    guarded.parse_error = rest.get("parse_error") or refusal(guarded.function, walk.found)
    return guarded, walk.found


def guard_reply(message: ChatMessageAssistant) -> tuple[ChatMessageAssistant, list[Repair]]:
    """The reply repaired (the same message if it needed nothing) and what was repaired: one
    `Repair` per tool call, which will not run, and one with an empty `call_id` for the rest
    of the reply (its text, reasoning, metadata)."""
    repairs: list[Repair] = []
    guarded_calls = []
    for call in message.tool_calls or []:
        guarded, found = _guard_call(call)
        guarded_calls.append(guarded)
        if found:
            repairs.append(Repair(guarded.id, guarded.function, found.surrogates, found.cuts))
    walk = _Walk()
    updates = _field_updates(walk, message, skip={"tool_calls"})
    if repairs:
        updates["tool_calls"] = guarded_calls
    if walk.found:
        repairs.append(Repair("", "", walk.found.surrogates, walk.found.cuts))
    if not updates:
        return message, []
    return message.model_copy(update=updates), repairs


def guard_output(output: ModelOutput) -> tuple[ModelOutput, list[Repair]]:
    """The output repaired (the same output if it needed nothing) and what was repaired: the
    reply's repairs (`guard_reply`), where the rest of the reply counts the output's other
    fields and its other choices."""
    walk = _Walk()
    updates = _field_updates(walk, output, skip={"choices", "completion"})
    # the completion is the first choice's text again: repaired, but counted there
    completion = fix_text(output.completion)
    if completion is not output.completion:
        updates["completion"] = completion
    choices = list(output.choices)
    repairs: list[Repair] = []
    for index, choice in enumerate(output.choices):
        message, found = guard_reply(choice.message)
        if found:
            choices[index] = choice.model_copy(update={"message": message})
            updates["choices"] = choices
        if index == 0:
            repairs = found
        else:
            for repair in found:
                walk.found.surrogates += repair.surrogates
                walk.found.cuts += repair.cuts
    if walk.found:
        rest = [r for r in repairs if r.call_id == ""]
        surrogates = walk.found.surrogates + sum(r.surrogates for r in rest)
        cuts = walk.found.cuts + sum(r.cuts for r in rest)
        repairs = [r for r in repairs if r.call_id != ""] + [Repair("", "", surrogates, cuts)]
    if not updates:
        return output, []
    return output.model_copy(update=updates), repairs


def _field_updates(walk: _Walk, model: BaseModel, skip: set[str]) -> dict[str, Any]:
    """The repaired values of a model's fields but those in `skip`, by name, where repair
    changed them."""
    updates: dict[str, Any] = {}
    for name in type(model).model_fields:
        if name not in skip:
            old = getattr(model, name)
            new = walk.value(old)
            if new is not old:
                updates[name] = new
    return updates


def receive(output: ModelOutput) -> tuple[ModelOutput, list[Repair]]:
    """A reply as it comes from `Model.generate`, guarded (`guard_output`), with inspect's
    record of it (the transcript's last event, its model event) given the same repairs."""
    guarded, repairs = guard_output(output)
    event = transcript().history.last_event
    if isinstance(event, ModelEvent):
        guard_event(event, repaired=guarded is not output)
    return guarded, repairs


def guard_event(event: ModelEvent, repaired: bool) -> None:
    """Give inspect's record of a reply (its model event) the repairs the reply got: its
    output (a copy of the reply; walked again only if the reply was `repaired`), and the
    provider's raw response, with the attachments inspect moved its long strings to."""
    if repaired and event.output is not None:
        event.output = guard_output(event.output)[0]
    call = event.call
    if call is None or call.response is None:
        return
    call.response = _Walk(as_data=True).value(call.response)
    attachments = transcript().attachments
    for ref in _attachment_refs(call.response):
        held = attachments.get(ref)
        if held is not None:
            attachments[ref] = fix_text(held)


def _attachment_refs(value: Any) -> list[str]:
    refs: list[str] = []
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, str):
            if current.startswith(_ATTACHMENT):
                refs.append(current.removeprefix(_ATTACHMENT))
        elif isinstance(current, dict):
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
    return refs


def tolerate_deep_responses() -> None:
    """Let providers record a reply nested too deep for pydantic-core: `ModelCall.set_response`
    retries with the response cut at MAX_DEPTH (and its surrogates fixed) when converting it
    fails, instead of failing the model call, so the reply reaches the loop and its guard.
    A response that converts is recorded as before. Installed once per process."""
    tolerate_set_response(lambda response: _Walk(as_data=True).value(response))
