"""What running a shipping CLI through the harness costs (docs/agents.md): one scenario through
Claude Code as a board row (`cli/claude-code-todowrite`: the episode's filter on every model
request, the workspace observed each turn, the product's record read back and scored) against a
bare inspect-swe eval of the same CLI, model, sample and working directory (`claude_code()` with
nothing of the harness but the scenario's files and the workspace note the simulated agent
reads); and the CLI's own start-up, from the agent's launch to its first model request.

`python scripts/agents_perf.py [--rounds N] [--scenario ID]` (`make perf-agents`; default 3
rounds of main_and_test on sim/oracle, interleaved, about 3 minutes on 2 cores; needs
`make agents`). Wall and CPU per episode: this process's CPU plus its reaped children's (the
CLI runs as a child); medians of the rounds, and the ratio harness / bare of the same round.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval
from inspect_ai.agent import as_solver
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import ToolChoice, ToolInfo
from inspect_swe import claude_code
from tabulate import tabulate

from harness.agents.binaries import binary
from harness.agents.sandboxes import host_search_path
from harness.products.catalog import PRODUCTS
from harness.run.task import build_task, scenario_samples
from harness.suite.cli_tools import workspace_note
from harness.suite.scenario import load_scenarios, select
from harness.suite.workspace import Workspace

PRODUCT = PRODUCTS["cli/claude-code-todowrite"]
MODEL = "sim/oracle"


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _measured(run: Callable[[], None]) -> tuple[float, float]:
    wall, cpu = time.monotonic(), _cpu()
    run()
    return time.monotonic() - wall, _cpu() - cpu


def _check(logs: list[Any]) -> None:
    (log,) = logs
    if log.status != "success":
        sys.exit(f"agents_perf: the episode failed: {log.error}")


def harness_episode(scenario: str, logs: Path) -> None:
    """The board row, as `todo-bench run` runs it."""
    task = build_task(variant=PRODUCT.name, scenarios=scenario, cli_sandbox="local")
    _check(eval(task, model=MODEL, display="none", log_dir=str(logs)))


#: the time the bare agent was launched and the time of its first model request
STARTS: list[tuple[float, float]] = []


def bare_episode(scenario: str, logs: Path) -> None:
    """The same CLI, model, sample and files through inspect-swe alone."""
    (chosen,) = select(load_scenarios(), scenario)
    workspace = Workspace.create(chosen)
    home = Path(tempfile.mkdtemp(prefix="agents-perf-home-"))
    path = host_search_path(PRODUCT)
    launched: list[float] = []
    first: list[float] = []

    async def stamp(
        model: Model,
        messages: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice | None,
        config: GenerateConfig,
    ) -> ModelOutput | None:
        if not first:
            first.append(time.monotonic())
        return None

    agent = as_solver(
        claude_code(
            version="sandbox",
            model_config=PRODUCT.model_config_id,
            cwd=str(workspace.root),
            env={**PRODUCT.env, "HOME": str(home), "PATH": path},
            filter=stamp,
            system_prompt=workspace_note(str(workspace.root)),
        )
    )

    @solver
    def launch() -> Solver:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            launched.append(time.monotonic())
            return await agent(state, generate)

        return solve

    task = Task(dataset=scenario_samples([chosen]), solver=launch(), sandbox="local")
    try:
        with host_env(PATH=path, HOME=str(home)):
            _check(eval(task, model=MODEL, display="none", log_dir=str(logs)))
    finally:
        workspace.cleanup()
        shutil.rmtree(home, ignore_errors=True)
    STARTS.append((launched[0], first[0]))


@contextlib.contextmanager
def host_env(**values: str) -> Iterator[None]:
    """The process's environment while the bare CLI runs: bare inspect-swe in the local sandbox
    finds the CLI on this process's PATH and writes its settings under this process's HOME."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    if "PATH" in values:  # in front of this process's
        os.environ["PATH"] = values["PATH"] + os.pathsep + (saved["PATH"] or "")
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--scenario", default="main_and_test")
    parser.add_argument("--json", help="also write the numbers here")
    args = parser.parse_args()
    binary(PRODUCT)  # one line saying how to install it, if it is not
    logs = Path(tempfile.mkdtemp(prefix="agents-perf-"))
    runs: dict[str, list[tuple[float, float]]] = {"harness": [], "bare": []}
    episodes = {"harness": harness_episode, "bare": bare_episode}
    for name, episode in episodes.items():  # warm: imports, the provider, the CLI's own cache
        episode(args.scenario, logs / f"warm-{name}")
    STARTS.clear()
    for round_ in range(args.rounds):
        order = list(episodes) if round_ % 2 == 0 else list(reversed(episodes))
        for name in order:
            runs[name].append(
                _measured(functools.partial(episodes[name], args.scenario, logs / name))
            )
            print(f"round {round_ + 1} {name}: wall {runs[name][-1][0]:.1f} s, "
                  f"cpu {runs[name][-1][1]:.1f} s", file=sys.stderr)  # fmt: skip
    shutil.rmtree(logs, ignore_errors=True)
    medians = {
        name: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r))
        for name, r in runs.items()
    }
    ratio_wall = statistics.median(
        h[0] / b[0] for h, b in zip(runs["harness"], runs["bare"], strict=True)
    )
    ratio_cpu = statistics.median(
        h[1] / b[1] for h, b in zip(runs["harness"], runs["bare"], strict=True)
    )
    start_up = statistics.median(first - launched for launched, first in STARTS)
    rows = [
        ["bare inspect-swe", f"{medians['bare'][0]:.1f}", f"{medians['bare'][1]:.1f}", "1.00"],
        [
            f"harness ({PRODUCT.name})",
            f"{medians['harness'][0]:.1f}",
            f"{medians['harness'][1]:.1f}",
            f"wall {ratio_wall:.2f}, cpu {ratio_cpu:.2f}",
        ],
    ]
    print(f"{args.scenario} on {MODEL}, {args.rounds} rounds (medians):")
    print(
        tabulate(rows, headers=["episode", "wall s", "cpu s", "harness / bare"], tablefmt="github")
    )
    print(f"CLI start-up (launch to first model request, bare): {start_up:.1f} s")
    if args.json:
        numbers = {
            "scenario": args.scenario,
            "rounds": args.rounds,
            "runs": runs,
            "ratio_wall": ratio_wall,
            "ratio_cpu": ratio_cpu,
            "start_up_seconds": start_up,
        }
        Path(args.json).write_text(json.dumps(numbers, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
