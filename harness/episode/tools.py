"""Inspect tools for one episode: todo tools per level plus workspace tools, all recorded."""

from __future__ import annotations

import functools
import inspect as pyinspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, get_type_hints

from inspect_ai.tool import ToolDef, ToolError, ToolParams

from harness.episode.ledger import Ledger, TickEvent, TodoEvent, WorkspaceEvent
from harness.suite.tracker import TaskStateTracker
from harness.suite.workspace import Workspace, malformed, perform
from harness.suite.workspace_tools import SPECS, WorkspaceToolSpec
from harness.todo.base import CapExceeded, TodoRejected, TodoStore
from harness.todo.specs import ToolSpec


@dataclass
class Episode:
    """Everything one episode's tools act on and record into."""

    store: TodoStore
    workspace: Workspace
    ledger: Ledger
    tracker: TaskStateTracker
    turn: int = 0
    on_tick: Callable[[list[str]], None] | None = None


def _todo_tool(episode: Episode, spec: ToolSpec) -> ToolDef:
    async def run(**kwargs: Any) -> str:
        before = list(episode.store.items)
        saved = episode.store.snapshot()
        over_cap = False
        try:
            result = spec.run(episode.store, kwargs)
            problem = episode.store.problems()
            if problem is not None:
                cap = episode.store.max_items
                over_cap = cap is not None and len(episode.store.items) > cap
                raise TodoRejected(problem)
            accepted, error = True, None
        except TodoRejected as rejected:
            result, accepted, error = "", False, str(rejected)
            over_cap = over_cap or isinstance(rejected, CapExceeded)
        except Exception as failure:  # a malformed call must not end the episode
            result, accepted, error = "", False, malformed(spec.name, failure)
        if not accepted:
            episode.store.restore(saved)
        episode.ledger.events.append(
            TodoEvent(
                turn=episode.turn,
                call_id="",  # filled in by the agent loop, which knows the call ids
                tool=spec.name,
                op=spec.kind,
                args=kwargs,
                accepted=accepted,
                error=error,
                over_cap=over_cap,
                before=before,
                after=list(episode.store.items),
            )
        )
        if error is not None:
            raise ToolError(error)
        return result

    cap = episode.store.max_items
    description = spec.description
    if spec.name == "todo":
        description = (
            description.replace("20", str(cap))
            if cap
            else description.replace("at most 20 items, ", "")
        )
    return _define(run, spec.name, spec.params, spec.signature, description)


def record_workspace_call(
    episode: Episode, name: str, args: dict[str, Any], result: str, ok: bool
) -> None:
    """A workspace call in the ledger, and the subtasks it ticked (its `call_id` and those of
    its ticks are filled in by whoever knows the call ids)."""
    episode.ledger.events.append(
        WorkspaceEvent(
            turn=episode.turn, call_id="", tool=name, args=args, ok=ok, result=result[:500]
        )
    )
    ticked = [s.id for s in episode.tracker.observe(name, args, ok)]
    if ticked:
        episode.ledger.events.append(TickEvent(turn=episode.turn, call_id="", subtasks=ticked))
        if episode.on_tick:
            episode.on_tick(ticked)


def _workspace_tool(episode: Episode, spec: WorkspaceToolSpec, op: Callable[..., str]) -> ToolDef:
    name = spec.name

    async def run(**kwargs: Any) -> str:
        result, ok = perform(name, op, kwargs)
        record_workspace_call(episode, name, kwargs, result, ok)
        if not ok:
            raise ToolError(result)
        return result

    return _define(run, name, spec.params, spec.signature, spec.description)


def _define(
    run: Callable[..., Awaitable[str]],
    name: str,
    params: dict[str, str],
    signature: Callable[..., Awaitable[str]],
    description: str,
) -> ToolDef:
    """A tool whose schema inspect reads from `signature`, a typed stub, and `params`' docs."""
    stub_signature, hints = _stub(signature)
    run.__signature__ = stub_signature  # type: ignore[attr-defined]
    run.__annotations__ = hints
    run.__name__ = name
    key = (name, tuple(params.items()), signature)
    if key not in _SCHEMAS:
        _SCHEMAS[key] = ToolDef(
            run, name=name, description=description, parameters=params
        ).parameters
    return ToolDef(run, name=name, description=description, parameters=_SCHEMAS[key])


#: each tool's JSON schema, derived once per process rather than once per episode (inspect
#: derives it by parsing the stub's signature, which cost more than a short episode's turns)
_SCHEMAS: dict[tuple[Any, ...], ToolParams] = {}


@functools.cache
def _stub(signature: Callable[..., Awaitable[str]]) -> tuple[pyinspect.Signature, dict[str, Any]]:
    """The stub's signature and its annotations evaluated (its module defers them as strings)."""
    return pyinspect.signature(signature), get_type_hints(signature)


def todo_tools(episode: Episode) -> list[ToolDef]:
    """The todo tools this episode's design offers, in a stable order."""
    return [_todo_tool(episode, spec) for spec in episode.store.tool_specs()]


def workspace_tools(episode: Episode) -> list[ToolDef]:
    """The seven workspace tools, every path sandboxed: one per spec, each run by the
    workspace's method of the same name."""
    ws = episode.workspace
    return [_workspace_tool(episode, spec, getattr(ws, spec.name)) for spec in SPECS]
