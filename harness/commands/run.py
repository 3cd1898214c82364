"""`todo-bench run`: a benchmark run from the command line (`run_benchmark` does the work)."""

from __future__ import annotations

import argparse
import shutil
import sys
import textwrap
from typing import Any, Literal, get_args, get_origin

import annotated_types
from pydantic.fields import FieldInfo

from harness import storage
from harness.commands.args import (
    Commands,
    integer,
    non_negative,
    number_between,
    positive,
    positive_at_most,
)
from harness.publishing.formats import leaderboard
from harness.run import heap
from harness.run.options import RunOptions
from harness.todo.variants import SWITCHES


def cmd_run(args: argparse.Namespace) -> int:
    # the run settles the collector once its imports are done (`harness/run/heap.py`)
    with heap.imports_uncollected():
        from harness.run.benchmark import run_benchmark
        from harness.run.sequential import run_sequential

        plan = RunOptions(**{name: getattr(args, name) for name in RunOptions.model_fields})
        result = run_sequential(plan) if plan.until_decided else run_benchmark(plan)
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


def add(sub: Commands, options: type[RunOptions] = RunOptions) -> None:
    """The `run` command; its flags are `options`' fields (`harness/run/options.py`)."""
    run = sub.add_parser(
        "run",
        help="run variants x scenarios x epochs (an inspect eval set)",
        epilog=_switches(),
        formatter_class=argparse.RawDescriptionHelpFormatter,  # the epilog is laid out already
    )
    for name, field in options.model_fields.items():
        run.add_argument(*_flags(name, field), dest=name, **_argument(field))
    run.set_defaults(func=cmd_run)


#: argparse's column of an option's help (its HelpFormatter's max_help_position)
HELP_COLUMN = 24


def _switches() -> str:
    """The variant switches SWITCHES declares, with what they cannot go without or with, laid
    out as the options above them are."""
    width = shutil.get_terminal_size().columns - 2  # argparse's width
    lines = textwrap.wrap(
        "variant switches, each added to a variant's name (--variants L4-inject+gate):", width
    )
    for name, switch in SWITCHES.items():
        needs = [f"needs +{other}" for other in switch.requires]
        needs += [f"not with +{other}" for other in switch.excludes]
        lines += textwrap.wrap(
            switch.help + "".join(f" ({need})" for need in needs),
            width,
            initial_indent=f"  +{name} ".ljust(HELP_COLUMN),
            subsequent_indent=" " * HELP_COLUMN,
        )
    return "\n".join(lines)


def _flags(name: str, field: FieldInfo) -> list[str]:
    long = "--" + name.replace("_", "-")
    short = _extra(field).get("flag")
    return [short, long] if short else [long]


def _extra(field: FieldInfo) -> dict[str, Any]:
    extra = field.json_schema_extra
    flags = extra.get("command_line") if isinstance(extra, dict) else None
    return flags if isinstance(flags, dict) else {}


def _argument(field: FieldInfo) -> dict[str, Any]:
    """argparse's keywords for one option: the type, bounds and choices come from the field."""
    default = field.get_default(call_default_factory=True)
    argument: dict[str, Any] = {"default": default, "help": field.description}
    if "metavar" in _extra(field):
        argument["metavar"] = _extra(field)["metavar"]
    kind = field.annotation
    if kind is bool:
        return {**argument, "action": "store_true"}
    if get_origin(kind) is list:
        return {**argument, "action": "append", "default": list(default)}
    if get_origin(kind) is Literal:
        return {**argument, "choices": list(get_args(kind))}
    if float in (kind, *get_args(kind)):
        above = next((m.gt for m in field.metadata if isinstance(m, annotated_types.Gt)), None)
        below = next((m.lt for m in field.metadata if isinstance(m, annotated_types.Lt)), None)
        return {**argument, "type": number_between(_number(above), _number(below))}
    if int in (kind, *get_args(kind)):
        low = [m.ge for m in field.metadata if isinstance(m, annotated_types.Ge)]
        high = [m.le for m in field.metadata if isinstance(m, annotated_types.Le)]
        if high and isinstance(high[0], int):
            argument["type"] = positive_at_most(high[0], _extra(field).get("why", ""))
        else:
            argument["type"] = positive if low == [1] else non_negative if low == [0] else integer
    return argument


def _number(bound: object) -> float | None:
    return float(bound) if isinstance(bound, int | float) else None
