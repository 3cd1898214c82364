"""Throughput of one run three ways, measured in one go on this machine: one process
(`--executor local --workers 1`), two local worker processes (`--workers 2`), and a two-node Ray
cluster started here (a head and a worker node on 127.0.0.1, one CPU each) with `--executor
ray`. Reports episodes per second, parallel efficiency against one process, and the driver's
overhead per shard (cluster slots x wall, less the shards' own time in their workers, per
shard). Writes results/cluster-scaling/{scaling.json,scaling.md}.

    .venv/bin/python scripts/cluster_scaling.py      # make bench's plan, 12 shards of 6 scenarios
    .venv/bin/python scripts/cluster_scaling.py --epochs 1 --shard-size 4

Needs the ray extra (`pip install -e '.[ray]'`; `make install` has it). Wall time, not CPU
time, is the measure here: parallel speed-up is what is asked. On a shared 2-core machine run it
when nothing else is.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

OUT = Path("results/cluster-scaling")
SLOTS = 2


def timed(args: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "harness.commands", "run", *args],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", default="headline")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--shard-size", type=int, default=6)
    options = parser.parse_args()
    try:
        import ray
        from ray.cluster_utils import Cluster
    except ImportError:
        print("needs the ray extra: pip install -e '.[ray]'", file=sys.stderr)
        return 2
    plan = ["--variants", options.variants, "--epochs", str(options.epochs), "--seed", "0"]
    plan += ["--display", "none", "--fresh"]
    root = Path(tempfile.mkdtemp(prefix="todo-bench-cluster-"))
    rows: dict[str, float] = {}
    rows["1 process"] = timed([*plan, "--workers", "1", "--out", str(root / "one")])
    print(f"1 process: {rows['1 process']:.1f} s", flush=True)
    rows["2 local workers"] = timed([*plan, "--workers", "2", "--out", str(root / "two")])
    print(f"2 local workers: {rows['2 local workers']:.1f} s", flush=True)
    nodes = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}
    )
    nodes.add_node(num_cpus=1)
    nodes.wait_for_nodes()
    try:
        ray_args = ["--executor", "ray", "--ray-address", str(nodes.address)]
        ray_args += ["--shard-size", str(options.shard_size), "--out", str(root / "ray")]
        rows["2-node Ray cluster"] = timed([*plan, *ray_args])
        print(f"2-node Ray cluster: {rows['2-node Ray cluster']:.1f} s", flush=True)
    finally:
        if ray.is_initialized():
            ray.shutdown()
        nodes.shutdown()  # type: ignore[no-untyped-call]
    summary = json.loads((root / "one" / "summary.json").read_text())
    episodes = sum(v["episodes"] for v in summary["variants"])
    same = all(
        (root / name / "summary.json").read_bytes() == (root / "one" / "summary.json").read_bytes()
        for name in ("two", "ray")
    )
    shards = json.loads((root / "ray" / "shards.json").read_text())
    shard_seconds = sum(s["seconds"] or 0.0 for s in shards)
    wall = rows["2-node Ray cluster"]
    overhead = (SLOTS * wall - shard_seconds) / len(shards)
    table = [
        [
            name,
            f"{seconds:.1f}",
            f"{episodes / seconds:.2f}",
            f"{rows['1 process'] / seconds:.2f}x",
            "" if name == "1 process" else f"{rows['1 process'] / seconds / SLOTS:.0%}",
        ]
        for name, seconds in rows.items()
    ]
    headers = ["executor", "wall s", "episodes/s", "speed-up", "parallel efficiency"]
    text = (
        f"{options.variants} x {summary['epochs']} epoch(s) x {len(summary['scenarios'])} "
        f"scenarios = {episodes} episodes, sim/sloppy, this machine (2 cores); "
        f"{len(shards)} shards of {options.shard_size} scenarios.\n\n"
        + tabulate(table, headers, tablefmt="github")
        + f"\n\nRay: the shards' own time in their workers {shard_seconds:.1f} s (median "
        f"{sorted(s['seconds'] or 0.0 for s in shards)[len(shards) // 2]:.1f} s per shard); the "
        f"driver's overhead (start-up, scheduling, worker start, upload) {overhead:.2f} s per "
        f"shard. Summaries byte-identical across the three: {same}.\n"
    )
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "scaling.md").write_text(text)
    (OUT / "scaling.json").write_text(
        json.dumps(
            {
                "episodes": episodes,
                "wall_seconds": rows,
                "shards": len(shards),
                "shard_seconds": shard_seconds,
                "overhead_per_shard": round(overhead, 3),
                "identical": same,
            },
            indent=2,
        )
        + "\n"
    )
    print(text)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
