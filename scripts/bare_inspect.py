"""The bare-inspect baseline for `make perf`: the same samples, turns and tool calls per turn as a
harness run, through inspect's own eval set with a scripted provider (mockllm) and a trivial
tool, and the runner's log settings. What the harness costs beyond this is the harness's own.

The loop is the harness's, stripped: each turn asks the model with a fixed list of tool schemas
and runs the calls with `execute_tools`. The schemas are handed to inspect the way the harness
hands them to the simulated agent (`harness._inspect_private.SharedToolInfo`: built once, never
copied), so neither side pays inspect's per-call copies of them. `--tools harness` also offers
the harness's own schemas (L3-granular's todo tools and the seven workspace tools, never
called): what inspect itself costs per model call for a tool list of that size, apart from what
the harness does. `--tools harness-defs` offers them as ToolDefs, inspect's usual way, which
inspect converts and deep-copies on every call (`scripts/profile_schemas.py` shows the cost).

`--sizes SIZES.json` (per sample: the harness model's system prompt, task, and per turn its
reply's text, each call's arguments and result, in characters; `make perf` takes them from the
harness run's log) pads every message to those sizes, so that inspect carries as many bytes
per sample as it did for the harness.

The baseline is on equal terms with the harness: it skips inspect's per-sample openai/anthropic
provider state the way the harness does for the simulated agent (both models keep none), and
with `--settle-heap` (which `make perf` passes, starting the script with the collector off) it
treats Python's garbage collector as a run does: off while importing, then the imports' garbage
collected and the rest frozen before the eval.

`python scripts/bare_inspect.py CALLS.json --log-dir D [--epochs E] [--tools T] [--sizes S]`
(T: note, harness or harness-defs), where CALLS.json lists per sample the tool calls of each
turn (the last turn answers in text), prints as JSON its wall seconds, peak RSS (MB) and CPU
seconds before the eval set and in it.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import time
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval_set
from inspect_ai.dataset import Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    ModelOutput,
    ModelUsage,
    execute_tools,
    get_model,
)
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import Tool, ToolCall, ToolChoice, ToolDef, ToolInfo, tool

from harness._inspect_private import SharedToolInfo
from harness.run import heap


@tool
def note() -> Tool:
    async def execute(text: str, reply: int = 0) -> str:
        """Record a note.

        Args:
            text: The note.
            reply: Length of the reply, if not the default.
        """
        return "y" * reply if reply else f"noted: {text}"

    return execute


#: with `--sizes`: per sample, the sizes of what the harness's model saw and wrote (system
#: prompt, task, and per turn the reply's text, each call's arguments and result), replayed as
#: padding so that inspect carries as many bytes as it did for the harness
SIZES: list[dict[str, Any]] = []


def _turn_sizes(sample: int, turn: int) -> dict[str, Any]:
    turns = SIZES[sample]["turns"] if sample < len(SIZES) else []
    return turns[turn] if turn < len(turns) else {}


@scorer(metrics=[mean()])
def turns_scorer() -> Any:
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=sum(isinstance(m, ChatMessageAssistant) for m in state.messages))

    return score


def scripted(
    input: list[ChatMessage], tools: list[ToolInfo], choice: ToolChoice, config: GenerateConfig
) -> ModelOutput:
    """Each turn makes the sample's tool calls for that turn (the plan is in its prompt, at
    least one call so that the loop goes on), the last one answers in text."""
    prompt = next(m.text for m in input if isinstance(m, ChatMessageUser))
    sample = int(prompt.split("sample=")[1].split(" ")[0])
    plan = [int(n) for n in prompt.split("calls=")[1].split(" ")[0].split(",")]
    done = sum(isinstance(m, ChatMessageAssistant) for m in input)
    sizes = _turn_sizes(sample, done)
    text = "z" * int(sizes.get("text", 0))
    if done + 1 >= len(plan):
        output = ModelOutput.from_content(model="mockllm", content=text or "Done.")
    else:
        args, results = sizes.get("args", []), sizes.get("results", [])
        calls = [
            ToolCall(
                id=f"c{done}-{i}",
                function="note",
                # the JSON of {"text": ..., "reply": n} is about as long as the harness's call
                arguments={"text": "x" * max(0, int(args[i]) - 24), "reply": int(results[i])}
                if i < len(args) and i < len(results)
                else {"text": f"step {done}.{i}"},
            )
            for i in range(max(1, plan[done]))
        ]
        output = ModelOutput.from_message(
            ChatMessageAssistant(content=text, tool_calls=calls, model="mockllm")
        )
    # usage given, as the simulated agent gives it (else mockllm counts with tiktoken, online)
    read = sum(len(m.text) for m in input) // 4
    output.usage = ModelUsage(input_tokens=read, output_tokens=8, total_tokens=read + 8)
    return output


def harness_schemas() -> list[ToolDef]:
    """The harness's L3-granular tools as inspect sees them, each with a trivial body."""
    from harness.episode.ledger import Ledger
    from harness.episode.tools import Episode, todo_tools, workspace_tools
    from harness.suite.scenario import SCENARIO_DIR, load_file
    from harness.suite.tracker import TaskStateTracker
    from harness.suite.workspace import Workspace
    from harness.todo import LEVELS

    scenario = load_file(SCENARIO_DIR / "main_and_test.yaml")[0]
    workspace = Workspace.create(scenario)
    try:
        episode = Episode(
            store=LEVELS["L3"](),
            workspace=workspace,
            ledger=Ledger(scenario=scenario.id, variant="bare"),
            tracker=TaskStateTracker(scenario, workspace),
        )
        defs = [*todo_tools(episode), *workspace_tools(episode)]
    finally:
        workspace.cleanup()

    async def unused(**kwargs: object) -> str:
        return "ok"

    return [
        ToolDef(unused, name=d.name, description=d.description, parameters=d.parameters)
        for d in defs
    ]


def shared(defs: list[ToolDef]) -> list[ToolInfo]:
    """Schemas as the harness hands them to the simulated agent: built once, never copied."""
    return [
        SharedToolInfo(name=d.name, description=d.description, parameters=d.parameters)
        for d in defs
    ]


@solver
def tool_loop(schemas: list[Tool | ToolDef | ToolInfo], tools: list[Tool]) -> Solver:
    """Ask the model with these schemas until it answers in text; run its calls each turn."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        sample = int(state.input_text.split("sample=")[1].split(" ")[0])
        if sample < len(SIZES) and SIZES[sample].get("system"):
            state.messages.insert(0, ChatMessageSystem(content="s" * SIZES[sample]["system"]))
        while True:
            state.output = await model.generate(state.messages, schemas)
            state.messages.append(state.output.message)
            if not state.output.message.tool_calls:
                return state
            result = await execute_tools(state.messages, tools)
            state.messages.extend(result.messages)

    return solve


def prompt_for(sample: int, calls: list[int]) -> str:
    """The sample's task: its plan, padded to the harness's task length under `--sizes`."""
    text = f"Work. sample={sample} calls={','.join(map(str, calls))} "
    want = int(SIZES[sample].get("prompt", 0)) if sample < len(SIZES) else 0
    return text + "p" * max(0, want - len(text))


def run(
    turns: list[list[int]],
    epochs: int,
    log_dir: str,
    tools: str = "note",
    sizes: list[dict[str, Any]] | None = None,
    settle: bool = False,
) -> dict[str, float]:
    SIZES[:] = sizes or []
    notes = note()
    schemas: list[Tool | ToolDef | ToolInfo]
    if tools == "harness-defs":
        schemas = [ToolDef(notes), *harness_schemas()]
    else:
        schemas = [
            *shared([ToolDef(notes)]),
            *(shared(harness_schemas()) if tools == "harness" else []),
        ]
    task = Task(
        dataset=[Sample(input=prompt_for(i, t), id=f"s{i}") for i, t in enumerate(turns)],
        solver=tool_loop(schemas, [notes]),
        scorer=turns_scorer(),
    )
    # on equal terms with the harness, which skips inspect's per-sample openai/anthropic state
    # for models that keep none (harness/run/runner.py): mockllm keeps none either
    from inspect_ai.model import _assistant_internal as internal

    flags = {
        f: getattr(internal, f) for f in ("_HAS_OPENAI", "_HAS_ANTHROPIC") if hasattr(internal, f)
    }
    for flag in flags:
        setattr(internal, flag, False)
    if settle:  # the imports' garbage collected, the rest frozen, as a run does
        heap.settle()
    started = time.perf_counter()
    cpu_before = _cpu()
    try:
        ok, _ = eval_set(
            [task],
            log_dir=log_dir,
            model=get_model("mockllm/model", custom_outputs=scripted),
            epochs=epochs,
            display="none",
            log_dir_allow_dirty=True,
            log_realtime=False,
            score_display=False,
        )
    finally:
        for flag, value in flags.items():  # as they were: this also runs inside the tests
            setattr(internal, flag, value)
    assert ok
    cpu_after = _cpu()
    return {
        "seconds": time.perf_counter() - started,
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        # the phases `make perf` sets beside a harness run's (its timing.json)
        "cpu_before_episodes": cpu_before,
        "cpu_episodes": cpu_after - cpu_before,
        "frozen_objects": gc.get_freeze_count(),
    }


def _cpu() -> float:
    """CPU seconds of this process so far (user + system)."""
    times = os.times()
    return times.user + times.system


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("calls", help="JSON file: per sample, the tool calls of each turn")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--log-dir", required=True)
    parser.add_argument("--tools", choices=["note", "harness", "harness-defs"], default="note")
    parser.add_argument("--sizes", help="JSON file: per sample, the sizes to replay as padding")
    parser.add_argument(
        "--settle-heap",
        action="store_true",
        help="collect the imports' garbage and freeze the rest before the eval, as a harness run "
        "does (harness/run/heap.py; `make perf` also starts this script with the collector off)",
    )
    args = parser.parse_args()
    turns = json.loads(Path(args.calls).read_text())
    sizes = json.loads(Path(args.sizes).read_text()) if args.sizes else None
    report = run(turns, args.epochs, args.log_dir, args.tools, sizes, args.settle_heap)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
