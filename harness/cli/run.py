"""`todo-bench run`: a benchmark run from the command line (`run_benchmark` does the work)."""

from __future__ import annotations

import argparse
import os
import sys

from harness import storage
from harness.cli.args import Commands, non_negative, positive, positive_at_most
from harness.results.publish import leaderboard
from harness.results.summary import PRICES
from harness.run import heap, runner
from harness.run.benchmark import MAX_EPISODES, MAX_EPOCHS
from harness.suite.scenario import SCENARIO_DIR


def cmd_run(args: argparse.Namespace) -> int:
    # the run settles the collector once its imports are done (`harness/run/heap.py`)
    with heap.imports_uncollected():
        from harness.run.benchmark import BenchmarkPlan, run_benchmark

        plan = BenchmarkPlan(**{name: getattr(args, name) for name in BenchmarkPlan.model_fields})
        result = run_benchmark(plan)
    log_dir = storage.join(result.run_dir, "logs")
    if result.summary is None:
        for problem in result.problems:
            print(f"todo-bench: {problem}", file=sys.stderr)
        print(
            f"todo-bench: no successful logs in {log_dir}; rerun the same command to resume",
            file=sys.stderr,
        )
        return 1
    # a terminal gets the headline columns; every column is in the run folder's leaderboard.md
    print(leaderboard(result.summary, "brief"))
    full = storage.join(result.run_dir, "leaderboard.md")
    print(f"full leaderboard: {full} (todo-bench report writes html, tex and csv)")
    print(f"run folder: {result.run_dir}  (logs: inspect view --log-dir {log_dir})")
    print(f"wall time: {result.elapsed:.1f} s", file=sys.stderr)
    if not result.complete:
        for problem in result.problems:
            print(f"todo-bench: {problem}", file=sys.stderr)
        print(
            "todo-bench: the run is INCOMPLETE (so marked in its leaderboard); "
            "rerun the same command to resume",
            file=sys.stderr,
        )
        return 1
    return 0


def add(sub: Commands) -> None:
    """The `run` command and its options."""
    run = sub.add_parser("run", help="run variants x scenarios x epochs (an inspect eval set)")
    run.add_argument("--model", default="sim/sloppy", help="any inspect model (default sim/sloppy)")
    run.add_argument(
        "-M",
        "--model-arg",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="model argument, e.g. -M drop=0.2 for sim or -M emulate_tools=true",
    )
    run.add_argument(
        "--variants",
        default="headline",
        help="comma-separated variants, or the sets 'headline' (default) and 'products'",
    )
    run.add_argument(
        "--design",
        action="append",
        default=[],
        metavar="MODULE:CLASS",
        help="register your own todo design (a TodoStore subclass) for this run; repeatable",
    )
    run.add_argument("--scenarios", default="all", help="comma-separated ids or tags")
    run.add_argument(
        "--scenario-dir", default=str(SCENARIO_DIR), help="folder of scenario YAML files"
    )
    run.add_argument(
        "--epochs",
        type=positive_at_most(MAX_EPOCHS, f" (a run is at most {MAX_EPISODES:,} episodes)"),
        default=3,
        help=f"episodes per scenario (3; at most {MAX_EPOCHS:,}, and a run at most "
        f"{MAX_EPISODES:,} episodes: variants x scenarios x epochs)",
    )
    run.add_argument("--seed", type=int, default=0, help="seed of the simulated agent and sampling")
    run.add_argument("--gate", action="store_true", help="add the completion gate to every variant")
    run.add_argument("--inject", action="store_true", help="inject the list into every prompt")
    run.add_argument(
        "--out",
        help="run folder, a path or an object-store URL such as s3://bucket/prefix (default "
        "results/runs/<run-id>; rerun to resume); a folder of published results (a "
        "summary.json without run.json) is refused unless --fresh",
    )
    run.add_argument(
        "--publish",
        metavar="DIR",
        help="when the run is complete, also publish it into DIR as a whole set: summary.json, "
        "leaderboard .md, .html, .tex, .csv and .png (make bench: results/latest); without it a "
        "run writes only its run folder",
    )
    run.add_argument("--prices", default=str(PRICES), help="price table (USD per 1M tokens)")
    run.add_argument(
        "--heuristic-rules",
        default=None,
        metavar="FILE",
        help="keyword table of the +heuristic gate (default: the shipped heuristic_rules.yaml)",
    )
    run.add_argument("--fresh", action="store_true", help="discard an earlier run in the folder")
    run.add_argument(
        "--max-retries", type=non_negative, default=3, help="model API retries per call"
    )
    run.add_argument(
        "--timeout",
        type=positive,
        default=180,
        help="seconds any one model request may take, each retry included (180)",
    )
    run.add_argument(
        "--silence-limit",
        type=positive,
        default=300,
        help="stop the run when the model has answered nothing for this many seconds (300; "
        "a line says so every minute of silence); a rerun resumes",
    )
    run.add_argument(
        "--max-tokens",
        type=positive,
        default=1024,
        help="max output tokens per model reply (real models)",
    )
    run.add_argument(
        "--max-turns",
        type=positive,
        default=None,
        help="cap every scenario's turn budget (for slow real models)",
    )
    run.add_argument("--retry-attempts", type=non_negative, default=2, help="eval-set task retries")
    run.add_argument(
        "--workers",
        type=positive,
        default=min(2, os.cpu_count() or 1),
        help="processes running variants in parallel (default: up to 2)",
    )
    run.add_argument("--max-samples", type=positive, default=None, help="episodes run at once")
    run.add_argument(
        "--display",
        default=runner.OWN_DISPLAY,
        choices=[runner.OWN_DISPLAY, "full", "conversation", "rich", "plain", "log", "none"],
        help="progress: one bar for the whole run across workers (episodes, elapsed, ETA; a "
        "line per tenth when not on a terminal); or one of inspect's displays (first worker)",
    )
    run.add_argument(
        "--executor",
        choices=["local", "ray"],
        default="local",
        help="local: worker processes on this machine (default); ray: the run's shards as "
        "tasks on a Ray cluster (pip install 'todo-bench[ray]')",
    )
    run.add_argument(
        "--ray-address",
        default=None,
        help="the Ray cluster to use with --executor ray (ray://host:10001, host:6379 or auto; "
        "default: start a local one)",
    )
    run.add_argument(
        "--shard-size",
        type=positive,
        default=4,
        help="scenarios per shard with --executor ray (a shard: one variant, every epoch)",
    )
    run.add_argument(
        "--shard-retries",
        type=non_negative,
        default=2,
        help="re-runs of a shard whose worker died, with --executor ray",
    )
    run.set_defaults(func=cmd_run)
