"""An episode re-derived from its transcript: the run's own solver run again on what the model
said.

For a harness-loop row, the task is built from the log's task arguments by the run's own code
(`build_task`: the scenarios, the variant, its todo design and policies), and each sample's
solver is run again outside any eval with a model that answers each call with the reply the
log's transcript recorded for it (`ModelEvent.output`, in order). Everything else (the
workspace built from the scenario, every tool call run through the workspace tools and the todo
design, the user turns and compactions where the scenario puts them, the gate, the ledger, the
outcome checks) is this code's, as in the run. The replay's record, tool results, messages and
score are then compared with the log's: any difference is one line naming the episode and the
field. No model of the log is built: its name and arguments are never read here.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from inspect_ai.event import ModelEvent, ToolEvent
from inspect_ai.log import EvalLog, EvalSample, EvalSampleSummary
from inspect_ai.model import (
    ChatMessage,
    ModelName,
    ModelOutput,
    get_model,
)
from inspect_ai.scorer import Target
from inspect_ai.solver import Generate, Solver, TaskState

from harness._inspect_private import outside_a_sample
from harness.episode.record import EpisodeRecord
from harness.publishing.binding import FOREIGN_ARGS
from harness.publishing.differences import differences, more
from harness.run.logged import same_scenario, scenario_episodes, stored
from harness.run.replay_model import REPLAY, ReplayAPI, TranscriptEnded
from harness.scoring.scorer import todo_scorer
from harness.suite.scenario import Scenario

#: the store fields of the episode record, compared one by one
RECORD_FIELDS = ("ledger_json", "checks", "final_files", "task_state")


def task_args(log: EvalLog) -> dict[str, Any] | None:
    """The arguments of `build_task` a harness-loop log was made with; None where the row
    cannot be re-derived here (a shipping CLI, or code from outside this todo-bench)."""
    from harness.todo.variants import Variant

    args = dict(log.eval.task_args or {})
    if any(args.get(name) for name in FOREIGN_ARGS):
        return None
    try:
        variant = Variant.parse(str(args.get("variant")))
    except ValueError:
        return None
    if variant.cli is not None:
        return None
    keep = ("variant", "inject", "gate", "scenarios", "max_turns")
    return {k: v for k, v in args.items() if k in keep and v is not None}


def rederive(log: EvalLog, summaries: list[EvalSampleSummary], where: str) -> list[str]:
    """Every sample of a successful harness-loop log (read with its attachments resolved)
    replayed; one line per difference, each led by `where` and the episode."""
    return asyncio.run(_rederive(log, summaries, where))


async def _rederive(log: EvalLog, summaries: list[EvalSampleSummary], where: str) -> list[str]:
    """`rederive` in one event loop (one per sample cost more than the episodes)."""
    from harness.run.task import build_task

    args = task_args(log)
    if args is None:
        return [f"rederive: {where}: not a harness-loop row of this todo-bench"]
    task = build_task(**args)
    samples = {str(s.id): s for s in task.dataset}
    summarized = {(str(s.id), s.epoch): s.scores for s in summaries}
    problems: list[str] = []
    for sample in log.samples or []:
        episode = f"{where} {sample.id} epoch {sample.epoch}"
        given = samples.get(str(sample.id))
        if given is None:
            problems.append(f"rederive: {episode}: not a scenario of the log's task")
            continue
        problems += [
            f"rederive: {episode}: {line}"
            for line in await _episode(
                task.solver, sample, dict(given.metadata or {}), str(given.input)
            )
        ]
        logged = (summarized.get((str(sample.id), sample.epoch)) or {}).get("todo_scorer")
        own = (sample.scores or {}).get("todo_scorer")
        if logged is not None and own is not None and logged.value != own.value:
            problems.append(f"rederive: {episode}: score: the log's sample summary differs")
    return problems


async def _episode(
    solver: Solver, sample: EvalSample, metadata: dict[str, Any], prompt: str
) -> list[str]:
    """One sample replayed and compared with its log."""
    scenario = metadata["scenario"]
    assert isinstance(scenario, Scenario)  # build_task's dataset holds scenarios, not dumps
    if not same_scenario(sample, scenario):
        return ["scenario: the log's scenario is not this todo-bench's"]
    outputs = [e.output for e in sample.events if isinstance(e, ModelEvent)]
    replayed, tools, used, failed = await _replay(solver, sample, metadata, prompt, outputs)
    if failed is not None:
        return [failed]
    problems = (
        []
        if used == len(outputs)
        else [f"transcript: {len(outputs) - used} model replies after the episode ended"]
    )
    problems += _record(sample, replayed)
    problems += _tools(sample, tools)
    problems += _messages(sample.messages, replayed.messages)
    problems += await _score(sample, replayed)
    return problems


async def _replay(
    solver: Solver,
    sample: EvalSample,
    metadata: dict[str, Any],
    prompt: str,
    outputs: list[ModelOutput],
) -> tuple[TaskState, list[ToolEvent], int, str | None]:
    """The solver run on the recorded replies: its final state, its tool events, how many
    replies it used, and why it could not finish (None: it did)."""
    from inspect_ai.model import ChatMessageUser

    model = get_model(f"{REPLAY}/transcript", outputs=outputs, memoize=False)
    state = TaskState(
        ModelName(f"{REPLAY}/transcript"),
        sample.id,
        sample.epoch,
        prompt,
        [ChatMessageUser(content=prompt)],
        metadata=metadata,
    )

    async def no_generate(*_: Any, **__: Any) -> TaskState:
        raise RuntimeError("the replayed solver called generate")

    failed = None
    with outside_a_sample(model) as transcript:
        try:
            state = await solver(state, _as_generate(no_generate))
        except TranscriptEnded:
            failed = f"transcript: it ends after {len(outputs)} model replies; the episode did not"
        except Exception as error:  # a hostile transcript: one line, never a traceback
            first = (str(error).splitlines() or [""])[0][:120]
            failed = (
                f"replay: the episode fails on its transcript ({type(error).__name__}: {first})"
            )
        tools = [e for e in transcript.events if isinstance(e, ToolEvent)]
    api = model.api
    assert isinstance(api, ReplayAPI)
    return state, tools, api.used, failed


def _as_generate(function: Any) -> Generate:
    generate: Generate = function
    return generate


def _record(sample: EvalSample, replayed: TaskState) -> list[str]:
    """The log's episode record (the sample's store) against the replay's, field by field."""
    kept = stored(sample, EpisodeRecord)
    again = replayed.store_as(EpisodeRecord)
    problems = []
    for name in RECORD_FIELDS:
        if name == "ledger_json":
            a, b = _json(kept.get(name, "")) or kept.get("ledger"), _json(again.ledger_json)
        else:
            a, b = kept.get(name), getattr(again, name)
        differs = differences(a, b, name)
        if differs:
            problems.append(f"record: {differs[0]}" + more(differs))
    return problems


def _json(text: str) -> Any:
    try:
        return json.loads(text) if text else None
    except ValueError:
        return text


def _tools(sample: EvalSample, replayed: list[ToolEvent]) -> list[str]:
    """Each tool call's recorded result against the one the replay's tools gave."""
    logged = [e for e in sample.events if isinstance(e, ToolEvent)]
    if len(logged) != len(replayed):
        return [f"tools: {len(logged)} tool calls in the transcript, {len(replayed)} replayed"]
    for before, again in zip(logged, replayed, strict=True):
        if _tool_view(before) != _tool_view(again):
            return [
                f"tools: the result of call {before.id} ({before.function}) is not what the "
                "replay gives"
            ]
    return []


def _tool_view(event: ToolEvent) -> Any:
    error = [event.error.type, event.error.message] if event.error else None
    result = (
        event.result if isinstance(event.result, str | int | float | bool) else str(event.result)
    )
    return [event.id, event.function, event.arguments, result, error]


def _messages(logged: list[ChatMessage], replayed: list[ChatMessage]) -> list[str]:
    """The log's final messages against the replay's (ids aside: they are random)."""
    if len(logged) != len(replayed):
        return [f"messages: {len(logged)} in the log, {len(replayed)} replayed"]
    for index, (a, b) in enumerate(zip(logged, replayed, strict=True)):
        if _message_view(a) != _message_view(b):
            return [f"messages: message {index} ({a.role}) is not what the replay gives"]
    return []


def _message_view(message: ChatMessage) -> Any:
    data = message.model_dump(mode="json", exclude={"id", "source", "metadata", "model"})
    return json.dumps(data, sort_keys=True, default=str)


async def _score(sample: EvalSample, replayed: TaskState) -> list[str]:
    """The log's score against this scorer's on the replayed episode."""
    logged = (sample.scores or {}).get("todo_scorer")
    if logged is None:
        return ["score: the log holds no todo_scorer score"]
    again = await todo_scorer()(replayed, Target(""))
    if again is None:  # the scorer always scores; the type allows a scorer that does not
        return ["score: this scorer gave none"]
    problems = []
    for name in ("value", "answer", "explanation"):
        differs = differences(getattr(logged, name), getattr(again, name), f"score.{name}")
        if differs:
            problems.append(f"score: {differs[0]}" + more(differs))
    for key in ("checks", "task_state", "findings"):
        differs = differences(
            (logged.metadata or {}).get(key), (again.metadata or {}).get(key), f"score.{key}"
        )
        if differs:
            problems.append(f"score: {differs[0]}" + more(differs))
    return problems


def rescore_stored(log: EvalLog, where: str) -> list[str]:
    """A row that cannot be replayed here (a shipping CLI's): each sample's stored record
    scored by this scorer, against the log's score; the record itself is trusted."""
    return asyncio.run(_rescore_stored(log, where))


async def _rescore_stored(log: EvalLog, where: str) -> list[str]:
    """`rescore_stored` in one event loop."""
    problems: list[str] = []
    for sample, episode, scenario in scenario_episodes(log, where, problems):
        state = TaskState(
            ModelName(f"{REPLAY}/record"),
            sample.id,
            sample.epoch,
            "",
            [],
            metadata={"scenario": scenario},
            store=dict(sample.store),
        )
        problems += [f"rederive: {episode}: {line}" for line in await _score(sample, state)]
    return problems
