"""Measured speed, in one run: the harness against bare inspect-ai, store ops per level, worker
scaling, start-up and peak memory.

Run with `make perf` (about 5 minutes on 2 cores). Every ratio printed is between numbers
measured in this same run. The bare-inspect baseline (`scripts/bare_inspect.py`) replays the
harness run's own samples and turns through inspect's eval set with a scripted provider and a
trivial tool, with the runner's log settings.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

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


def measured(command: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of a command run in its own process."""
    timing = Path(tempfile.mktemp(prefix="todo-bench-time-"))
    started = time.perf_counter()
    subprocess.run(
        ["/usr/bin/time", "-f", "%M", "-o", str(timing), *command],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - started
    rss = int(timing.read_text().split()[-1]) / 1024
    timing.unlink()
    return wall, rss


def harness_run(root: Path, epochs: int, scenarios: str = "all") -> dict[str, Any]:
    out = root / f"h-{scenarios}-{epochs}"
    wall, rss = measured(
        [sys.executable, "-m", "harness.cli", "run", "--variants", "L3-granular"]
        + ["--scenarios", scenarios, "--epochs", str(epochs), "--workers", "1"]
        + ["--display", "none", "--out", str(out), "--fresh"]
    )
    summary = json.loads((out / "summary.json").read_text())
    turns = [int(e["values"]["turns"]) for e in summary["variants"][0]["per_episode"]]
    return {"wall": wall, "rss": rss, "turns": turns}


def bare_run(root: Path, turns: list[int]) -> dict[str, Any]:
    script = Path(__file__).with_name("bare_inspect.py")
    wall, rss = measured(
        [sys.executable, str(script), ",".join(map(str, turns)), "--log-dir", str(root / "b")]
    )
    shutil.rmtree(root / "b", ignore_errors=True)
    return {"wall": wall, "rss": rss, "turns": turns}


def against_bare(root: Path) -> list[list[str]]:
    """Harness (L3-granular, sim/sloppy, one worker) and bare inspect on the same samples."""
    rows: list[list[str]] = []
    runs: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
    one = harness_run(root, 1, "main_and_test")
    one_bare = bare_run(root, one["turns"])
    rows.append(
        [
            "start-up (1 episode)",
            f"{one['wall']:.1f} s",
            f"{one_bare['wall']:.1f} s",
            f"{one['wall'] / one_bare['wall']:.2f}",
        ]
    )
    for epochs in (1, 3, 9):
        harness = harness_run(root, epochs)
        runs[epochs] = (harness, bare_run(root, harness["turns"]))
    for epochs, (harness, bare) in runs.items():
        h, b = harness, bare
        rows.append(
            [
                f"{epochs} epoch(s): {len(h['turns'])} episodes, {sum(h['turns'])} turns",
                f"{h['wall']:.1f} s, {h['rss']:.0f} MB",
                f"{b['wall']:.1f} s, {b['rss']:.0f} MB",
                f"{h['wall'] / b['wall']:.2f} time, {h['rss'] / b['rss']:.2f} RSS",
            ]
        )
    (h1, b1), (h9, b9) = runs[1], runs[9]
    extra_turns = sum(h9["turns"]) - sum(h1["turns"])
    per_turn_h = (h9["wall"] - h1["wall"]) / extra_turns * 1000
    per_turn_b = (b9["wall"] - b1["wall"]) / extra_turns * 1000
    rows.append(
        [
            "per added turn (1 -> 9 epochs)",
            f"{per_turn_h:.1f} ms",
            f"{per_turn_b:.1f} ms",
            f"{per_turn_h / per_turn_b:.2f}",
        ]
    )
    return rows


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="todo-bench-perf-"))
    try:
        rows = against_bare(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(
        tabulate(
            rows,
            headers=["L3-granular on sim/sloppy, 1 worker", "harness", "bare inspect", "ratio"],
            tablefmt="github",
        )
    )
    print()
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
