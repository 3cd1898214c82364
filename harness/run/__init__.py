"""A benchmark run: the inspect task, the runner (an eval set per variant across workers), and
`run_benchmark(plan)` which a script, a notebook or the CLI calls; around them the run folder,
verify and rescoring."""

from typing import TYPE_CHECKING

from harness._face import lazy

if TYPE_CHECKING:
    from harness.errors import UsageError
    from harness.run.benchmark import BenchmarkResult, run_benchmark
    from harness.run.options import RunOptions
    from harness.run.task import build_task

__getattr__ = lazy(
    __name__,
    {
        "RunOptions": "harness.run.options",
        "BenchmarkResult": "harness.run.benchmark",
        "UsageError": "harness.errors",
        "run_benchmark": "harness.run.benchmark",
        "build_task": "harness.run.task",
    },
)

__all__ = [
    "RunOptions",
    "BenchmarkResult",
    "UsageError",
    "run_benchmark",
    "build_task",
]
