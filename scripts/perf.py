"""Measured speed, in one run: the harness against bare inspect-ai, store ops per level, worker
scaling, start-up and peak memory.

Run with `make perf` (three rounds, about 4 minutes on 2 cores; `--repeats N` for more). Every
ratio printed is between numbers measured in this same run, medians of interleaved rounds, in
CPU time. The bare-inspect baseline (`scripts/bare_inspect.py`) replays the harness run's own
samples and turns through inspect's eval set with a scripted provider and a trivial tool, on
equal terms with the harness (docs/performance.md); a second baseline also carries the same
conversation as the harness's model (its tool schemas, messages padded to the same sizes),
which shows what inspect itself costs for that much content. Runs of 1, 3 and 5 epochs: the
issue's target is at 3, and what more turns and episodes cost is taken between 1 and 5.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from scipy.stats import linregress
from tabulate import tabulate

from harness.results.summary import Summary
from harness.run.folder import Timing
from harness.todo import LEVELS

OPS = 20_000
T = TypeVar("T")


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
    """Wall seconds of `todo-bench run` on the headline suite (1 epoch) with this many workers,
    each in its own process as a user runs it (worker processes pay their own imports), and the
    episodes it ran, counted from its summary."""
    out = root / f"w{workers}"
    done = measured(
        [sys.executable, "-m", "harness.commands", "run", "--model", "sim/sloppy", "--epochs", "1"]
        + ["--seed", "0", "--workers", str(workers), "--display", "none"]
        + ["--out", str(out), "--fresh"]
    )
    summary = Summary.model_validate_json((out / "summary.json").read_text(encoding="utf-8"))
    return done["wall"], sum(len(v.per_episode) for v in summary.variants)


#: a command run under callgrind counts the instructions it executes: a deterministic measure
#: (with the hash seed fixed), where CPU time on this shared machine varies by up to 50%
CALLGRIND = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]


def measured(command: list[str], count: bool = False) -> dict[str, Any]:
    """Wall seconds, CPU seconds (user + system), peak RSS (MB) and standard output of a command
    in its own process; `count`: under callgrind, with the instructions it executed. CPU time is
    the measure: on a shared 2-core machine wall time is mostly noise."""
    timing = Path(tempfile.mktemp(prefix="todo-bench-time-"))
    started = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%M %U %S", "-o", str(timing), *(CALLGRIND if count else [])]
        + command,
        check=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE if count else subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": "0"} if count else None,
    )
    wall = time.perf_counter() - started
    rss, user, system = timing.read_text().split()[-3:]
    timing.unlink()
    result = {
        "wall": wall,
        "cpu": float(user) + float(system),
        "rss": int(rss) / 1024,
        "stdout": done.stdout,
    }
    if count:
        collected = re.findall(r"Collected : (\d+)", done.stderr)
        if not collected:
            raise RuntimeError(
                f"callgrind reported no count for {command[:3]}: {done.stderr[-500:]}"
            )
        result["instructions"] = int(collected[-1])
    return result


def harness_run(root: Path, epochs: int, count: bool = False) -> dict[str, Any]:
    out = root / f"h-{epochs}"
    done = measured(
        [sys.executable, "-m", "harness.commands", "run", "--variants", "L3-granular"]
        + ["--scenarios", "all", "--epochs", str(epochs), "--workers", "1"]
        + ["--display", "none", "--out", str(out), "--fresh"],
        count,
    )
    sizes = episode_sizes(out)  # the log is read once: the turns' call counts come from it
    phases = Timing.model_validate_json((out / "timing.json").read_text()).cpu_seconds
    assert phases is not None
    return {
        **done,
        "turns": call_counts(sizes),
        "sizes": sizes,
        "before": phases.before_episodes,
        "episodes": phases.episodes,
    }


def calls_per_turn(out: Path) -> list[list[int]]:
    """Per episode of a harness run, the tool calls of each model turn."""
    return call_counts(episode_sizes(out))


def call_counts(sizes: list[dict[str, Any]]) -> list[list[int]]:
    """Per episode, the tool calls of each model turn, from `episode_sizes`."""
    return [[len(turn["args"]) for turn in episode["turns"]] for episode in sizes]


def episode_sizes(out: Path) -> list[dict[str, Any]]:
    """Per episode of a harness run (logs in name order), the sizes of what its model
    saw and wrote: the system prompt, the task, and per model call the reply's text, each tool
    call's arguments (JSON) and its result, from the sample's events."""
    from inspect_ai.event import ModelEvent, ToolEvent
    from inspect_ai.log import read_eval_log

    episodes: list[dict[str, Any]] = []
    for path in sorted((out / "logs").glob("*/*.eval")):
        for sample in read_eval_log(str(path), resolve_attachments=True).samples or []:
            results = {
                e.id: len(str(e.result)) + (len(e.error.message) if e.error else 0)
                for e in sample.events
                if isinstance(e, ToolEvent)
            }
            models = [e for e in sample.events if isinstance(e, ModelEvent)]
            first = models[0].input if models else []
            turns = []
            for event in models:
                message = event.output.message
                calls = message.tool_calls or []
                turns.append(
                    {
                        "text": len(message.text),
                        "args": [len(json.dumps(c.arguments)) for c in calls],
                        "results": [results.get(c.id, 0) for c in calls],
                    }
                )
            episodes.append(
                {
                    "system": sum(len(m.text) for m in first if m.role == "system"),
                    "prompt": next((len(m.text) for m in first if m.role == "user"), 0),
                    "turns": turns,
                }
            )
    return episodes


#: the baseline started the way a run starts: its imports with the collector off (a run's
#: `harness/run/heap.py`); `--settle-heap` then collects and freezes before the eval
COLLECTOR_OFF = (
    "import gc, runpy, sys; gc.disable(); sys.argv = sys.argv[1:]; "
    "runpy.run_path(sys.argv[0], run_name='__main__')"
)


def bare_run(
    root: Path,
    turns: list[list[int]],
    tools: str,
    sizes: list[dict[str, Any]] | None = None,
    count: bool = False,
) -> dict[str, Any]:
    script = Path(__file__).with_name("bare_inspect.py")
    plan = root / "calls.json"
    plan.write_text(json.dumps(turns))
    extra: list[str] = []
    if sizes is not None:
        (root / "sizes.json").write_text(json.dumps(sizes))
        extra = ["--sizes", str(root / "sizes.json")]
    done = measured(
        [sys.executable, "-c", COLLECTOR_OFF, str(script), str(plan), "--log-dir", str(root / "b")]
        + ["--tools", tools, "--settle-heap"]
        + extra,
        count,
    )
    shutil.rmtree(root / "b", ignore_errors=True)
    report = json.loads(done["stdout"].strip().splitlines()[-1])
    return {
        **done,
        "turns": turns,
        "before": report["cpu_before_episodes"],
        "episodes": report["cpu_episodes"],
        "frozen": report["frozen_objects"],
    }


#: what each run is compared with: bare inspect with one trivial tool (the issue's baseline),
#: and bare inspect carrying the same conversation as the harness's model: its 12 tool schemas
#: and messages padded to the same sizes (what inspect itself costs for that much content)
KINDS = ("harness", "bare", "bare+same")
#: run sizes in epochs: the issue's target is at 3; what more episodes and turns cost is the
#: difference between 1 and 5 (twice the span of 1 -> 3, so half the noise per turn)
SIZES = (1, 3, 5)
SHORT, LONG = SIZES[0], SIZES[-1]


def one_round(
    root: Path,
    order: int,
    turns_of: dict[object, list[list[int]]],
    sizes_of: dict[object, list[dict[str, Any]]],
) -> dict[tuple[object, str], dict[str, Any]]:
    """Every size once, the three kinds back to back in a rotating order (interleaved, so a
    slow spell of the machine falls on all three); the first round runs the harness first to
    learn the turns the baselines replay (the simulated agent's turns never change)."""
    out: dict[tuple[object, str], dict[str, Any]] = {}
    for size in SIZES:
        kinds = KINDS[order:] + KINDS[:order] if size in turns_of else KINDS
        for kind in kinds:
            if kind == "harness":
                out[size, kind] = harness_run(root, size)
                turns_of.setdefault(size, out[size, kind]["turns"])
                sizes_of.setdefault(size, out[size, kind]["sizes"])
            elif kind == "bare":
                out[size, kind] = bare_run(root, turns_of[size], "note")
            else:  # the same conversation as the harness's model saw: schemas and sizes
                out[size, kind] = bare_run(root, turns_of[size], "harness", sizes_of[size])
    return out


def against_bare(root: Path, repeats: int) -> tuple[list[list[str]], list[list[str]]]:
    """Harness (L3-granular, sim/sloppy, one worker) against bare inspect on the same samples and
    turns: medians over `repeats` interleaved rounds, ratios paired within a round."""
    turns_of: dict[object, list[list[int]]] = {}
    sizes_of: dict[object, list[dict[str, Any]]] = {}
    rounds = []
    for r in range(repeats):
        done = one_round(root, r % len(KINDS), turns_of, sizes_of)
        rounds.append(done)
        # each pair as it finishes: a run killed half-way still says something
        for size in SIZES:
            cpu = {k: done[size, k]["cpu"] for k in KINDS}
            print(
                f"round {r + 1}, {size}: CPU harness {cpu['harness']:.2f} s, bare "
                f"{cpu['bare']:.2f} s ({cpu['harness'] / cpu['bare']:.2f}x), bare+same "
                f"{cpu['bare+same']:.2f} s ({cpu['harness'] / cpu['bare+same']:.2f}x)",
                flush=True,
            )
    return ratio_rows(rounds), phase_rows(rounds, extra_episodes(rounds))


def extra_episodes(rounds: list[dict[tuple[object, str], dict[str, Any]]]) -> int:
    return len(rounds[0][LONG, "harness"]["turns"]) - len(rounds[0][SHORT, "harness"]["turns"])


def ratio_rows(rounds: list[dict[tuple[object, str], dict[str, Any]]]) -> list[list[str]]:
    """The harness against each baseline per run size, per added turn and per added episode:
    medians of the rounds, ratios paired within a round."""

    def med(values: list[float]) -> float:
        return statistics.median(values)

    def spread(per_round: list[dict[str, float]], other: str) -> str:
        """The harness / baseline ratio: median [min, max] over the rounds' pairs."""
        ratios = [r["harness"] / r[other] for r in per_round if r[other] > 0]
        if not ratios:
            return ""
        return f"{med(ratios):.2f}x [{min(ratios):.2f}, {max(ratios):.2f}]"

    rows: list[list[str]] = []
    for size in SIZES:
        cpus = [{k: r[size, k]["cpu"] for k in KINDS} for r in rounds]
        walls = [{k: r[size, k]["wall"] for k in KINDS} for r in rounds]
        rss = [{k: r[size, k]["rss"] for k in KINDS} for r in rounds]
        turns = rounds[0][size, "harness"]["turns"]
        label = (
            f"{size} epoch(s): {len(turns)} episodes, {sum(map(len, turns))} turns, "
            f"{sum(map(sum, turns))} tool calls"
        )
        rows.append(
            [label]
            + [
                f"{med([c[k] for c in cpus]):.2f} s CPU ({med([w[k] for w in walls]):.1f} s wall), "
                f"{med([m[k] for m in rss]):.0f} MB"
                for k in KINDS
            ]
            + [spread(cpus, other) for other in KINDS[1:]]
        )
    turns_at = [sum(map(len, rounds[0][size, "harness"]["turns"])) for size in SIZES]
    episodes_at = [len(rounds[0][size, "harness"]["turns"]) for size in SIZES]

    # what more turns cost: the slope of the runs' CPU from their first episode on (the
    # episodes, the summary, exit) over their turns, fitted per round across the run sizes; the
    # start-up before the first episode is the same work at any size, and its import-time noise
    # (0.3-0.5 s between runs here) would otherwise enter every difference twice
    def slopes(value: Callable[[dict[str, Any]], float], x: list[int]) -> list[dict[str, float]]:
        return [
            {k: float(linregress(x, [value(r[size, k]) for size in SIZES]).slope) for k in KINDS}
            for r in rounds
        ]

    per_turn = slopes(lambda r: (r["cpu"] - r["before"]) * 1000, turns_at)
    growth = slopes(lambda r: r["rss"], episodes_at)
    sizes = ", ".join(map(str, SIZES))
    rows.append(
        [f"CPU per added turn (slope over {sizes} epochs)"]
        + [f"{med([t[k] for t in per_turn]):.1f} ms" for k in KINDS]
        + [spread(per_turn, other) for other in KINDS[1:]]
    )
    rows.append(
        [f"peak RSS per added episode (slope over {sizes})"]
        + [f"{med([g[k] for g in growth]):.2f} MB" for k in KINDS]
        + [spread(growth, other) for other in KINDS[1:]]
    )
    return rows


def instruction_runs(root: Path) -> dict[tuple[int, str], dict[str, Any]]:
    """Each kind at 1 and 3 epochs once under callgrind (a count repeats, so one round), two
    runs at a time (two cores); the harness first, for the turns the baselines replay."""
    runs: dict[tuple[int, str], dict[str, Any]] = {}
    with ThreadPoolExecutor(2) as pool:
        harness = {e: pool.submit(harness_run, root, e, True) for e in (1, 3)}
        runs.update({(e, "harness"): job.result() for e, job in harness.items()})
        jobs = {}
        for e in (1, 3):
            turns, sizes = runs[e, "harness"]["turns"], runs[e, "harness"]["sizes"]
            for kind, tools, padded in (("bare", "note", None), ("bare+same", "harness", sizes)):
                (root / f"{kind}-{e}").mkdir()
                jobs[e, kind] = pool.submit(
                    bare_run, root / f"{kind}-{e}", turns, tools, padded, True
                )
        runs.update({key: job.result() for key, job in jobs.items()})
    return runs


def instruction_rows(runs: dict[tuple[int, str], dict[str, Any]]) -> list[list[str]]:
    """The harness against each baseline in instructions executed: at 1 and 3 epochs, and per
    added turn (the difference; a count has no noise to average out)."""
    turns = {e: sum(map(len, runs[e, "harness"]["turns"])) for e in (1, 3)}
    rows = []
    for e in (1, 3):
        count = {k: runs[e, k]["instructions"] for k in KINDS}
        rows.append(
            [f"{e} epoch(s): {turns[e]} turns"]
            + [f"{count[k] / 1e9:.2f} G" for k in KINDS]
            + [f"{count['harness'] / count[k]:.2f}x" for k in KINDS[1:]]
        )
    added = {
        k: (runs[3, k]["instructions"] - runs[1, k]["instructions"]) / (turns[3] - turns[1])
        for k in KINDS
    }
    rows.append(
        ["per added turn (1 -> 3 epochs)"]
        + [f"{added[k] / 1e6:.1f} M" for k in KINDS]
        + [f"{added['harness'] / added[k]:.2f}x" for k in KINDS[1:]]
    )
    return rows


#: a run's CPU by phase: read by the harness into its timing.json and printed by the baseline
PHASES: tuple[tuple[str, Callable[[dict[str, Any]], float]], ...] = (
    ("before the first episode", lambda r: r["before"]),
    ("the episodes", lambda r: r["episodes"]),
    ("after them (summary, exit)", lambda r: r["cpu"] - r["before"] - r["episodes"]),
)


def phase_rows(
    rounds: list[dict[tuple[object, str], dict[str, Any]]], extra: int
) -> list[list[str]]:
    """Where the CPU of each kind goes at 3 epochs, medians over the rounds, and the episodes'
    CPU per added episode (shortest to longest run): the start-up and per-episode parts of the
    gap."""
    rows: list[list[str]] = []
    for label, part in PHASES:
        med = {k: statistics.median([part(r[3, k]) for r in rounds]) for k in KINDS}
        rows.append(
            [f"3 epochs: {label}"]
            + [f"{med[k]:.2f} s" for k in KINDS]
            + [f"{med['harness'] - med[k]:+.2f} s" for k in KINDS[1:]]
        )
    each = {
        k: (
            statistics.median([r[LONG, k]["episodes"] for r in rounds])
            - statistics.median([r[SHORT, k]["episodes"] for r in rounds])
        )
        / extra
        * 1000
        for k in KINDS
    }
    rows.append(
        [f"episodes' CPU per added episode ({SHORT} -> {LONG})"]
        + [f"{each[k]:.0f} ms" for k in KINDS]
        + [f"{each['harness'] - each[k]:+.0f} ms" for k in KINDS[1:]]
    )
    return rows


#: todo-bench calls whose start-up is measured, and the budget each is held to (CPU seconds)
STARTUP = (
    (["--version"], 1.5),
    (["--help"], 1.5),
    (["leaderboard", "results/latest"], 1.5),
    (["compare", "results/baseline", "results/latest"], 1.5),
    (["audit", "tests/fixtures/sessions"], 1.5),
)


#: imports measured on their own: inspect's (bare pays it too), then with the leaderboard's
#: statistics added, which a run needs for its summary and bare inspect does not compute
IMPORTS = (
    ("import inspect_ai.model (bare pays this too)", "inspect_ai.model"),
    (
        "  + the leaderboard's statistics (harness.stats.intervals)",
        "inspect_ai.model, harness.stats.intervals",
    ),
)


def cpu_seconds(command: list[str]) -> float:
    """User + system CPU seconds of a command run in its own process (children included)."""
    before = os.times()
    subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = os.times()
    return (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )


def startup_rows(repeats: int) -> list[list[str]]:
    """Median CPU of each todo-bench call against its budget, and Python's own start-up beside
    them."""
    python = statistics.median(
        [cpu_seconds([sys.executable, "-c", "pass"]) for _ in range(repeats)]
    )
    rows = [["python -c pass", f"{python:.2f}", "", ""]]
    # what a run imports that bare inspect does not, the largest first: the leaderboard's
    # statistics (scipy, statsmodels, with numpy and pandas); measured beside inspect's own
    for label, modules in IMPORTS:
        cpu = statistics.median(
            [cpu_seconds([sys.executable, "-c", f"import {modules}"]) for _ in range(repeats)]
        )
        rows.append([label, f"{cpu:.2f}", "", ""])
    for args, budget in STARTUP:
        cpu = statistics.median(
            [cpu_seconds([sys.executable, "-m", "harness.commands", *args]) for _ in range(repeats)]
        )
        rows.append(
            [
                f"todo-bench {' '.join(args)}",
                f"{cpu:.2f}",
                f"{budget:.1f}",
                "yes" if cpu <= budget else "NO",
            ]
        )
    return rows


def in_scratch(work: Callable[[Path], T]) -> T:
    """`work` on a fresh temporary folder, removed afterwards whatever happens."""
    root = Path(tempfile.mkdtemp(prefix="todo-bench-perf-"))
    try:
        return work(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def kinds_table(rows: list[list[str]], title: str, compared: str) -> str:
    """A table of the three kinds side by side, then the harness `compared` to each baseline
    (e.g. "/" with a unit, or "-")."""
    headers = [title, "harness", "bare inspect (equal terms)", "bare + schemas + same sizes"]
    headers += [f"harness {compared.replace('BASE', base)}" for base in KINDS[1:]]
    return tabulate(rows, headers=headers, tablefmt="github")


def print_instructions() -> int:
    if shutil.which("valgrind") is None:
        print("perf: --instructions needs valgrind (apt-get install valgrind)", file=sys.stderr)
        return 2
    print("counting instructions under callgrind (about 10 minutes on 2 cores)...", flush=True)
    rows = in_scratch(lambda root: instruction_rows(instruction_runs(root)))
    print(
        kinds_table(rows, "L3-granular, sim/sloppy, 1 worker: instructions (callgrind)", "/ BASE")
    )
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3, help="interleaved rounds (medians)")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="instead: instructions executed (valgrind's callgrind), a deterministic measure "
        "(about 10 minutes)",
    )
    args = parser.parse_args()
    if args.instructions:
        sys.exit(print_instructions())
    print(
        tabulate(
            startup_rows(args.repeats),
            headers=["todo-bench start-up", "CPU s (median)", "budget", "within"],
            tablefmt="github",
        ),
        flush=True,
    )
    print()
    rows, phases = in_scratch(lambda root: against_bare(root, args.repeats))
    title = f"L3-granular, sim/sloppy, 1 worker (median of {args.repeats} pairs)"
    print(kinds_table(rows, title, "/ BASE, CPU"))
    print()
    print(kinds_table(phases, f"CPU by phase (median of {args.repeats} rounds)", "- BASE"))
    print()
    rates = {level: store_ops_per_second(level) for level in LEVELS}
    print(
        tabulate(
            [[level, f"{rate:,.0f}", f"{rate / rates['L0']:.2f}"] for level, rate in rates.items()],
            headers=["store", "updates/s", "vs L0"],
            tablefmt="github",
        )
    )
    (one, episodes), (two, _) = in_scratch(
        lambda root: (bench_seconds(1, root), bench_seconds(2, root))
    )
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
