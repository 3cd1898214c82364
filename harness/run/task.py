"""Build the inspect Task for one variant; `evals/todo_bench.py` is its thin @task entry."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.util import SandboxEnvironmentSpec

from harness.episode.gate.heuristic import load_table
from harness.episode.loop import todo_agent
from harness.run.options import TaskOptions
from harness.scoring.scorer import todo_scorer
from harness.suite.scenario import Scenario, load_scenarios, scenario_folder, select
from harness.todo.registry import load as load_design
from harness.todo.variants import Variant
from harness.versions import TASK_VERSION


def scenario_samples(scenarios: list[Scenario]) -> MemoryDataset:
    return MemoryDataset(
        [
            Sample(
                id=s.id,
                input=s.prompt,
                # the scenario itself, not its dump: inspect deep-copies every sample's metadata
                # once per declared metric, and a scenario copies as itself (frozen); the log
                # holds its JSON as before
                metadata={"scenario": s, "tags": s.tags},
            )
            for s in scenarios
        ],
        name="todo-bench-scenarios",
    )


#: the installed inspect package (`evals/` in a checkout, mapped by pyproject.toml)
EVAL_MODULE = "todo_bench.todo_bench"


def eval_entry() -> Callable[..., Task]:
    """The @task function of the `todo_bench` package, so runs are identical to `inspect eval
    todo_bench/todo_bench`. Found by module, so it works wherever the wheel is installed (the
    package sits above `harness`, hence the import by name rather than a static one)."""
    module = importlib.import_module(EVAL_MODULE)
    entry: Callable[..., Task] = module.todo_bench
    return entry


def build_task(variant: Variant | str = "L0-rewrite", **options: Any) -> Task:
    """Run every selected scenario under one todo design; the options are `TaskOptions`'
    (an unknown one, or a value of the wrong type, is a ValidationError naming it). The variant
    is used as given; a label (`-T variant=...`, a retry's arguments from the log) names one."""
    # first: a label may name one of these designs
    for spec in str(options.get("designs") or "").split(","):
        if spec.strip():
            load_design(spec.strip())
    given = TaskOptions(variant=variant, **options)
    chosen = given.variant.switched(inject=given.inject, gate=given.gate)
    pool = load_scenarios(scenario_folder(given.scenario_dir or None))
    if (cap := given.max_turns) is not None:
        pool = [s.model_copy(update={"max_turns": min(s.max_turns, cap)}) for s in pool]
    chosen_scenarios = select(pool, given.scenarios)
    metadata: dict[str, object] = {"variant": chosen.label}
    if chosen.cli is not None:
        from harness.agents.sandboxes import spec as sandbox_spec
        from harness.agents.solver import cli_agent
        from harness.agents.support import agent_record, left_out

        # said when the run starts (harness/run/prepare.py) and on the board; never run
        # without its feature, never counted as a failure
        left = left_out(chosen.cli, chosen_scenarios)
        chosen_scenarios = [s for s in chosen_scenarios if s.id not in left]
        solver = cli_agent(chosen.cli, given.cli_sandbox)
        sandbox: SandboxEnvironmentSpec | None = sandbox_spec(given.cli_sandbox)
        metadata["agent"] = agent_record(chosen.cli, left, given.cli_sandbox).model_dump()
    else:
        rules = load_table(Path(given.heuristic_rules)) if given.heuristic_rules else None
        solver, sandbox = todo_agent(chosen, rules), None
    return Task(
        dataset=scenario_samples(chosen_scenarios),
        solver=solver,
        sandbox=sandbox,
        scorer=todo_scorer(),
        name="todo_bench",
        # bump when scoring changes, so logs scored differently are told apart
        version=TASK_VERSION,
        metadata=metadata,
    )
