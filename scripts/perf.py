"""Measured speed, in one run: store ops per level, sim episodes per second, worker scaling.

Run with `make perf`. Every ratio printed is between numbers measured in this same run.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

from harness.progress import RunProgress
from harness.runner import RunPlan, run
from harness.todo import LEVELS
from harness.variants import parse_variants

OPS = 20_000


def store_ops_per_second(level: str) -> float:
    store = LEVELS[level]()
    rows = [{"id": str(i), "text": f"item {i}", "status": "pending"} for i in range(1, 11)]
    full = "todo" in store.TOOLS
    if not full:
        for row in rows:
            store.add(row["text"])
    started = time.perf_counter()
    for i in range(OPS):
        if full:
            rows[i % 10] = {**rows[i % 10], "status": "completed" if i % 2 else "pending"}
            store.write(rows)
        else:
            store.update_status(str(i % 10 + 1), "completed" if i % 2 else "pending")
    return OPS / (time.perf_counter() - started)


def bench_seconds(workers: int, root: Path) -> tuple[float, int]:
    variants = parse_variants("headline")
    plan = RunPlan(
        model="sim/sloppy",
        model_args={"seed": 0},
        variants=variants,
        scenarios="all",
        scenario_dir=None,
        epochs=1,
        log_root=root / f"w{workers}",
        display="none",
        generate={},
        retry_attempts=1,
    )
    started = time.perf_counter()
    assert run(plan, workers, RunProgress(0, enabled=False))
    return time.perf_counter() - started, len(variants) * 10


def main() -> None:
    rates = {level: store_ops_per_second(level) for level in LEVELS}
    print(
        tabulate(
            [[level, f"{rate:,.0f}", f"{rate / rates['L0']:.2f}"] for level, rate in rates.items()],
            headers=["store", "updates/s", "vs L0"],
            tablefmt="github",
        )
    )
    root = Path(tempfile.mkdtemp(prefix="todo-bench-perf-"))
    try:
        one, episodes = bench_seconds(1, root)
        two, _ = bench_seconds(2, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print()
    print(
        tabulate(
            [
                ["1 worker", f"{one:.1f}", f"{episodes / one:.2f}", "1.00"],
                ["2 workers", f"{two:.1f}", f"{episodes / two:.2f}", f"{one / two:.2f}"],
            ],
            headers=["headline suite, 1 epoch, sim/sloppy", "seconds", "episodes/s", "speed-up"],
            tablefmt="github",
        )
    )


if __name__ == "__main__":
    main()
