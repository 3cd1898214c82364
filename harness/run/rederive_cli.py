"""A shipping CLI's episode re-derived from its log, as far as the log allows.

What the log keeps for a `cli/...` row (`harness/agents/evidence.py`): the product's own record
of its calls and the final workspace. From them verify re-derives, with the run's own code:

- **the todo list after every call**: each todo call of the product's record run again through
  the design that reproduces the product (`CliEpisode.replay`, as the run did), against the
  ledger's todo events one by one; a call in the record and not in the ledger, or the other way,
  is a difference;
- **the bridge's view**: each of those calls is in the model's replies of the transcript with
  the same tool and arguments, and each todo call of the transcript is in the record;
- **the outcome checks**: the final workspace rebuilt from the kept files (each against its
  digest, and the file list against the record's) and the scenario's checks run on it.

What it cannot re-derive, and says so: what a shell command or another tool did to the live
workspace between calls (the subtask ticks the tracker made as the episode ran), and, for a
workspace past the kept size, the outcome checks. The score is then the stored record scored
again (`rescore_stored`).
"""

from __future__ import annotations

import asyncio
import base64
import json
import tempfile
from pathlib import Path
from typing import Any

from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, EvalSample

from harness.agents.cli_episode import CliEpisode, TodoSlot, todo_records
from harness.agents.evidence import CliEvidence, digest
from harness.episode.ledger import Ledger, TodoEvent
from harness.episode.record import EpisodeRecord
from harness.episode.tools import todo_tools
from harness.products.product import CliProduct
from harness.products.session_record import CallRecord
from harness.publishing.differences import differences, more
from harness.run.logged import scenario_episodes, stored
from harness.suite.checks import run_checks
from harness.suite.scenario import Scenario
from harness.suite.workspace import Workspace, WorkspaceError

#: what verify's OK line says it re-derived of a CLI row, and what it trusted
REDERIVED = (
    "in part: its todo list after every call from the product's record, checked against the "
    "transcript, and its outcome checks from the final workspace kept in the log"
)
TRUSTED = "what other tools did to the live workspace between calls (its subtask ticks)"


def cli_product(log: EvalLog) -> CliProduct | None:
    """The shipping CLI row a log was made with (its hooks included), or None."""
    from harness.todo.variants import Variant

    try:
        variant = Variant.parse(str((log.eval.task_args or {}).get("variant")))
    except ValueError:
        return None
    return variant.cli


def rederive_cli(log: EvalLog, product: CliProduct, where: str) -> list[str]:
    """Every sample of a CLI row's log (attachments resolved) re-derived; one line per
    difference, each led by `where` and the episode."""
    return asyncio.run(_all(log, product, where))


async def _all(log: EvalLog, product: CliProduct, where: str) -> list[str]:
    problems: list[str] = []
    for sample, episode, scenario in scenario_episodes(log, where, problems):
        evidence = stored(sample, CliEvidence)
        record = stored(sample, EpisodeRecord)
        found = await _episode(sample, product, scenario, evidence, record)
        problems += [f"rederive: {episode}: {line}" for line in found]
    return problems


async def _episode(
    sample: EvalSample,
    product: CliProduct,
    scenario: Scenario,
    evidence: dict[str, Any],
    record: dict[str, Any],
) -> list[str]:
    if "calls" not in evidence:
        return ["the log keeps no product record of the calls (made before todo-bench kept it)"]
    try:
        calls = [CallRecord.model_validate(c) for c in evidence["calls"]]
        ledger = Ledger.model_validate_json(str(record.get("ledger_json") or "{}"))
    except ValueError as error:
        return [f"record: not readable ({type(error).__name__})"]
    made = [e.call_id for e in ledger.events if isinstance(e, TodoEvent)]
    todo = todo_records(product, calls, made)
    problems = await _todo_states(product, scenario, ledger, todo)
    problems += _transcript(sample, product, todo)
    problems += _checks(scenario, evidence, record)
    return problems


async def _todo_states(
    product: CliProduct, scenario: Scenario, ledger: Ledger, calls: list[CallRecord]
) -> list[str]:
    """The ledger's todo events against the product's record run again through the design."""
    events = [e for e in ledger.events if isinstance(e, TodoEvent)]
    by_id = {c.id: c for c in calls}
    problems = [
        f"todo: {c.tool} call {c.id} is in the product's record, not in the ledger"
        for c in calls
        if c.id not in {e.call_id for e in events}
    ]
    with tempfile.TemporaryDirectory(prefix="todo-bench-rederive-") as scratch:
        workspace = Workspace.create(scenario, under=Path(scratch))
        again = CliEpisode(product, scenario, workspace, Path(scratch) / "journal.jsonl")
        tools = {t.name: t for t in todo_tools(again.episode)}
        for event in events:
            call = by_id.get(event.call_id)
            if call is None:
                problems.append(f"todo: {event.tool} call {event.call_id} is not in the record")
                continue
            if (call.tool, call.args) != (event.tool, event.args):
                problems.append(f"todo: call {event.call_id}: the record holds other arguments")
                continue
            slot = TodoSlot(event.turn, event.call_id, event.tool, event.args)
            try:
                problems += [f"todo: {line}" for line in await again.replay(slot, call, tools)]
            except Exception as error:  # a hostile record: one line, never a traceback
                problems.append(f"todo: call {event.call_id} fails ({type(error).__name__})")
                continue
            made = again.ledger.events[-1].model_dump(mode="json")
            differs = differences(event.model_dump(mode="json"), made, f"call {event.call_id}")
            if differs:
                problems.append(f"todo: {differs[0]}" + more(differs))
    return problems


def _transcript(sample: EvalSample, product: CliProduct, calls: list[CallRecord]) -> list[str]:
    """The todo calls the model made, as the transcript's model replies hold them, against the
    record (the conversation the bridge hands back may name a call otherwise: Gemini CLI's
    calls carry ids the bridge derives)."""
    said: dict[str, tuple[str, str]] = {}
    for message in (e.output.message for e in sample.events if isinstance(e, ModelEvent)):
        for call in message.tool_calls or []:
            if call.function in product.todo_tools:
                said[call.id] = (call.function, json.dumps(call.arguments, sort_keys=True))
    problems = []
    for kept in calls:
        seen = said.pop(kept.id, None)
        if seen is None:
            problems.append(f"transcript: {kept.tool} call {kept.id} is not in the transcript")
        elif seen != (kept.tool, json.dumps(kept.args, sort_keys=True)):
            problems.append(f"transcript: call {kept.id} has other arguments in the transcript")
    problems += [
        f"transcript: {tool} call {i} is not in the product's record"
        for i, (tool, _) in said.items()
    ]
    return problems


def _checks(scenario: Scenario, evidence: dict[str, Any], record: dict[str, Any]) -> list[str]:
    """The final workspace against its digests and the record's file list, and the outcome
    checks run on it against the record's."""
    digests, files = dict(evidence.get("digests") or {}), dict(evidence.get("files") or {})
    if sorted(digests) != sorted(record.get("final_files") or []):
        return ["workspace: the kept files are not the record's final files"]
    if not files:
        return []  # past the kept size: the checks are trusted (said on the OK line)
    if sorted(files) != sorted(digests):
        return ["workspace: the kept files are not the digested ones"]
    with tempfile.TemporaryDirectory(prefix="todo-bench-rederive-") as scratch:
        workspace = Workspace(Path(scratch))
        for name, text in files.items():
            try:
                data = base64.b64decode(text, validate=True)
                target = workspace.resolve(name)
            except (ValueError, WorkspaceError):
                return [f"workspace: {name!r} is not a file of the workspace"]
            if digest(data) != digests[name]:
                return [f"workspace: {name} is not the file its digest names"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        again = [c.model_dump(mode="json") for c in run_checks(workspace, scenario)]
    differs = differences(record.get("checks"), again, "checks")
    return [f"checks: {differs[0]}" + more(differs)] if differs else []
