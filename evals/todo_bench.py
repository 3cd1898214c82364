"""todo-bench as an inspect task.

Installed: `inspect eval todo_bench/todo_bench -T variant=L4-inject+gate`; in a checkout also
`inspect eval evals/todo_bench.py`.
"""

from typing import Any

from inspect_ai import Task, task

# the `sim` and `recover` providers register on import (this module is the inspect entry point)
from harness.run.inspect_extensions import RecoverModel, SimModel
from harness.run.options import task_parameters
from harness.run.task import build_task

__all__ = ["RecoverModel", "SimModel", "todo_bench"]


@task
@task_parameters  # its parameters and their help: harness.run.options.TaskOptions
def todo_bench(**options: Any) -> Task:
    """Run every selected scenario under one todo design."""
    return build_task(**options)
