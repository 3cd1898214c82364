"""How many CLI episodes a machine runs in a given time when they run side by side
(docs/agents.md): one board row (`cli/claude-code-todowrite`, the simulated agent taking
`--latency` seconds over each request, as a hosted model does) run with N episodes at once
(N epochs of one scenario, `max_samples` N), for each N of `--concurrency`; wall time, episodes
a minute, the speed-up against one at a time from the same invocation, and CPU per episode (this
process's and its reaped children's: the CLIs run as children).

`python scripts/agents_concurrency.py [--concurrency 1,2,4,8] [--latency 5] [--scenario ID]`
(`make perf-agents-concurrency`; needs `make agents`). The episodes' summaries must not depend on
N: each run's per-episode scores are checked equal to the first run's (same epochs compared).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from inspect_ai import eval
from tabulate import tabulate

from harness.agents.binaries import binary
from harness.products.catalog import PRODUCTS
from harness.run.task import build_task

PRODUCT = PRODUCTS["cli/claude-code-todowrite"]


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run(scenario: str, episodes: int, latency: float, logs: Path) -> tuple[float, float, list[Any]]:
    """Wall seconds, CPU seconds and per-episode scores of `episodes` episodes at once."""
    task = build_task(variant=PRODUCT.name, scenarios=scenario, cli_sandbox="local")
    wall, cpu = time.monotonic(), _cpu()
    (log,) = eval(
        task,
        model="sim/sloppy",
        model_args={"latency": latency} if latency else {},
        epochs=episodes,
        max_samples=episodes,
        display="none",
        log_dir=str(logs),
    )
    wall, cpu = time.monotonic() - wall, _cpu() - cpu
    if log.status != "success":
        sys.exit(f"agents_concurrency: the run of {episodes} failed: {log.error}")
    scores = sorted(
        (s.epoch, {n: v.value for n, v in (s.scores or {}).items()}) for s in log.samples or []
    )
    return wall, cpu, scores


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", default="1,2,4,8")
    parser.add_argument("--latency", type=float, default=5.0, help="seconds per request")
    parser.add_argument("--scenario", default="main_and_test")
    parser.add_argument("--json", help="also write the numbers here")
    args = parser.parse_args()
    levels = [int(n) for n in args.concurrency.split(",")]
    binary(PRODUCT)  # one line saying how to install it, if it is not
    logs = Path(tempfile.mkdtemp(prefix="agents-concurrency-"))
    try:
        run(args.scenario, 1, 0.0, logs / "warm")  # imports, the CLI's own caches
        measured: dict[int, tuple[float, float]] = {}
        first: list[Any] | None = None
        for level in levels:
            wall, cpu, scores = run(args.scenario, level, args.latency, logs / str(level))
            first = first or scores
            same = [s for s in scores if s[0] <= len(first)]
            if same != first[: len(same)]:
                sys.exit(f"agents_concurrency: at {level} at once the episodes scored otherwise")
            measured[level] = (wall, cpu)
            print(f"{level} at once: wall {wall:.1f} s, cpu {cpu:.1f} s", file=sys.stderr)
    finally:
        shutil.rmtree(logs, ignore_errors=True)
    base_rate = levels[0] / measured[levels[0]][0]
    rows = [
        [
            level,
            f"{wall:.1f}",
            f"{60 * level / wall:.2f}",
            f"{level / wall / base_rate:.2f}x",
            f"{cpu / level:.1f}",
        ]
        for level, (wall, cpu) in measured.items()
    ]
    print(
        f"{PRODUCT.name}, {args.scenario} on sim/sloppy with {args.latency:g} s a request, "
        f"episodes at once against {levels[0]} at once (one invocation):"
    )
    headers = ["at once", "wall s", "episodes / min", "speed-up", "cpu s / episode"]
    print(tabulate(rows, headers=headers, tablefmt="github"))
    if args.json:
        numbers = {"latency": args.latency, "scenario": args.scenario, "measured": measured}
        Path(args.json).write_text(json.dumps(numbers, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
