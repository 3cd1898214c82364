"""`make perf`'s tables: where each kind's CPU goes at 3 epochs, the episodes' CPU per added
episode (1 -> 5 epochs), and the ratios per added turn and episode, as medians over the rounds
(exact arithmetic on made-up rounds)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import load_script


def _run(cpu: float, before: float, episodes: float) -> dict[str, Any]:
    return {"cpu": cpu, "before": before, "episodes": episodes}


def test_phases_are_medians_and_differences_per_kind() -> None:
    perf = load_script("perf")
    rounds = []
    for slow in (0.0, 1.0, 5.0):  # one slow round moves no median
        rounds.append(
            {
                (1, "harness"): _run(6.0, 3.0, 2.5),
                (3, "harness"): _run(9.0 + slow, 3.0, 5.5 + slow),
                (5, "harness"): _run(12.0, 3.0, 8.6 + slow),
                (1, "bare"): _run(4.0, 2.0, 1.9),
                (3, "bare"): _run(6.0, 2.0, 3.9),
                (5, "bare"): _run(8.0, 2.0, 5.9),
                (1, "bare+same"): _run(4.5, 2.1, 2.0),
                (3, "bare+same"): _run(6.5, 2.1, 4.2),
                (5, "bare+same"): _run(8.5, 2.1, 6.4),
            }
        )
    rows = perf.phase_rows(rounds, extra=48)
    assert rows == [
        ["3 epochs: before the first episode", "3.00 s", "2.00 s", "2.10 s", "+1.00 s", "+0.90 s"],
        ["3 epochs: the episodes", "6.50 s", "3.90 s", "4.20 s", "+2.60 s", "+2.30 s"],
        [
            "3 epochs: after them (summary, exit)",
            "0.50 s",
            "0.10 s",
            "0.20 s",
            "+0.40 s",
            "+0.30 s",
        ],
        [
            "episodes' CPU per added episode (1 -> 5)",
            "148 ms",
            "83 ms",
            "92 ms",
            "+65 ms",
            "+56 ms",
        ],
    ]


def _sized(cpu: float, before: float, rss: float, episodes: int, turns: int) -> dict[str, Any]:
    """A made-up run of `episodes` episodes with `turns` turns each."""
    return {
        "cpu": cpu,
        "before": before,
        "episodes": cpu - before,
        "wall": cpu,
        "rss": rss,
        "turns": [[1] * turns] * episodes,
    }


def test_per_added_turn_leaves_out_the_start_up_its_runs_share() -> None:
    perf = load_script("perf")
    rounds = []
    # the harness's start-up is 1 s noisier in the 5-epoch runs of two rounds; from the first
    # episode on it spends 2 s per 400 turns (5 ms a turn), bare 1 s (2.5 ms), bare+same 0.5 s
    # then 0.7 s (a least-squares slope of 1.5 ms)
    for noise in (0.0, 1.0, 1.0):
        rounds.append(
            {
                (1, "harness"): _sized(5.0, 3.0, 210, 10, 20),
                (3, "harness"): _sized(7.0, 3.0, 220, 30, 20),
                (5, "harness"): _sized(9.0 + noise, 3.0 + noise, 230, 50, 20),
                (1, "bare"): _sized(4.0, 2.0, 110, 10, 20),
                (3, "bare"): _sized(5.0, 2.0, 115, 30, 20),
                (5, "bare"): _sized(6.0, 2.0, 120, 50, 20),
                (1, "bare+same"): _sized(4.0, 2.0, 110, 10, 20),
                (3, "bare+same"): _sized(4.5, 2.0, 115, 30, 20),
                (5, "bare+same"): _sized(5.2, 2.0, 120, 50, 20),
            }
        )
    rows = perf.ratio_rows(rounds)
    assert [row[0] for row in rows[:3]] == [
        "1 epoch(s): 10 episodes, 200 turns, 200 tool calls",
        "3 epoch(s): 30 episodes, 600 turns, 600 tool calls",
        "5 epoch(s): 50 episodes, 1000 turns, 1000 tool calls",
    ]
    assert rows[1][1:] == [
        "7.00 s CPU (7.0 s wall), 220 MB",
        "5.00 s CPU (5.0 s wall), 115 MB",
        "4.50 s CPU (4.5 s wall), 115 MB",
        "1.40x [1.40, 1.40]",
        "1.56x [1.56, 1.56]",
    ]
    assert rows[3] == [
        "CPU per added turn (slope over 1, 3, 5 epochs)",
        "5.0 ms",
        "2.5 ms",
        "1.5 ms",
        "2.00x [2.00, 2.00]",
        "3.33x [3.33, 3.33]",
    ]
    assert rows[4] == [
        "peak RSS per added episode (slope over 1, 3, 5)",
        "0.50 MB",
        "0.25 MB",
        "0.25 MB",
        "2.00x [2.00, 2.00]",
        "2.00x [2.00, 2.00]",
    ]


def test_instruction_rows_compare_counts_at_each_size_and_per_added_turn() -> None:
    perf = load_script("perf")
    counts = {
        (1, "harness"): 12e9,
        (3, "harness"): 20e9,
        (1, "bare"): 10e9,
        (3, "bare"): 14e9,
        (1, "bare+same"): 10e9,
        (3, "bare+same"): 15e9,
    }
    runs = {
        (e, kind): {"instructions": n, "turns": [[1] * 10] * (10 * e)}
        for (e, kind), n in counts.items()
    }
    assert perf.instruction_rows(runs) == [
        ["1 epoch(s): 100 turns", "12.00 G", "10.00 G", "10.00 G", "1.20x", "1.20x"],
        ["3 epoch(s): 300 turns", "20.00 G", "14.00 G", "15.00 G", "1.43x", "1.33x"],
        ["per added turn (1 -> 3 epochs)", "40.0 M", "20.0 M", "25.0 M", "2.00x", "1.60x"],
    ]


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_a_counted_command_reports_the_instructions_it_executed() -> None:
    perf = load_script("perf")
    small = perf.measured([sys.executable, "-c", "pass"], count=True)
    more = perf.measured([sys.executable, "-c", "sum(range(3_000_000))"], count=True)
    assert small["instructions"] > 1_000_000  # the interpreter's start-up
    # three million additions cost more than a few instructions each
    assert more["instructions"] - small["instructions"] > 30_000_000
    assert small["stdout"] == "" and small["cpu"] > 0


def test_tables_name_each_comparison_and_scratch_folders_go() -> None:
    perf = load_script("perf")
    table = perf.kinds_table([["row", "1", "2", "3", "4", "5"]], "title", "/ BASE, CPU")
    assert [cell.strip() for cell in table.splitlines()[0].split("|")[1:-1]] == [
        "title",
        "harness",
        "bare inspect (equal terms)",
        "bare + schemas + same sizes",
        "harness / bare, CPU",
        "harness / bare+same, CPU",
    ]
    seen: list[Path] = []

    def fails(root: Path) -> None:
        seen.append(root)
        (root / "half-written").write_text("x")
        raise RuntimeError("a run failed")

    with pytest.raises(RuntimeError, match="a run failed"):
        perf.in_scratch(fails)
    assert seen and not seen[0].exists()
    assert perf.in_scratch(lambda root: root.is_dir())
