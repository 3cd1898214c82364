"""todo-bench as an inspect task: `inspect eval evals/todo_bench.py -T variant=L0-rewrite`."""

from harness.task import todo_bench

__all__ = ["todo_bench"]
