"""todo-bench as an inspect task.

Installed: `inspect eval todo_bench/todo_bench -T variant=L4-inject+gate`; in a checkout also
`inspect eval evals/todo_bench.py`.
"""

from inspect_ai import Task, task

# the `sim` and `recover` providers register on import (this module is the inspect entry point)
from harness.run.registry import RecoverModel, SimModel
from harness.run.task import build_task

__all__ = ["RecoverModel", "SimModel", "todo_bench"]


@task
def todo_bench(
    variant: str = "L0-rewrite",
    inject: bool = False,
    gate: bool = False,
    scenarios: str = "all",
    scenario_dir: str | None = None,
    max_turns: int | None = None,
    designs: str | None = None,
    heuristic_rules: str | None = None,
) -> Task:
    """Run every selected scenario under one todo design.

    Args:
        variant: L0-rewrite ... L4-inject, a product design (cc-todowrite, cc-tasks, codex-plan,
            inspect-todo_write) or a registered one; with +inject / +gate / +uncapped.
        inject: Inject the current list into every prompt (what L4 adds to L3).
        gate: Refuse the agent's "done" until every subtask is ticked.
        scenarios: Comma-separated scenario ids or tags, or "all".
        scenario_dir: Directory of scenario YAML files (default: the shipped suite).
        max_turns: Cap on every scenario's turn budget (slow real models).
        designs: Comma-separated `module:Class` designs to register (your own todo designs).
        heuristic_rules: Keyword table of the +heuristic gate (default: the seed's).
    """
    return build_task(
        variant, inject, gate, scenarios, scenario_dir, max_turns, designs, heuristic_rules
    )
