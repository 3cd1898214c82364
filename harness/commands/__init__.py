"""The `todo-bench` command: run the benchmark, publish and compare its results, audit real
sessions, check scenarios. One module per command group, each adding its own sub-parser."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
import warnings

from harness.commands import (
    compare,
    hooks,
    power,
    publishing,
    run,
    scenarios,
    sessions,
    submissions,
)
from harness.commands.args import Parser
from harness.errors import UsageError
from harness.models.sim.profiles import ProfileError
from harness.results.provenance import project_version
from harness.run import runner, terminate
from harness.storage import StoreError
from harness.suite.scenario import ScenarioError

#: the command groups, in the order `--help` lists them
GROUPS = (run, publishing, submissions, compare, power, sessions, scenarios, hooks)
DESCRIPTION = (
    "Run the benchmark, publish and compare its results, audit real sessions, check scenarios."
)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="todo-bench", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"todo-bench {project_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    for group in GROUPS:
        group.add(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code = int(args.func(args))
        sys.stdout.flush()  # a closed pipe shows up here, inside the handler, not at exit
        return code
    except BrokenPipeError:
        # `todo-bench scenarios schema | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (UsageError, ScenarioError, ProfileError, ValueError) as error:
        print(f"todo-bench: error: {error}", file=sys.stderr)
        return 2
    except StoreError as error:
        print(f"todo-bench: {error}; rerun the same command to resume", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        # a second Ctrl-C while the run winds down must not kill it mid-exit (exit -2)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        print("todo-bench: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130


#: seconds an interrupted process gets to exit on its own before it is ended
EXIT_GRACE = 2.0
#: seconds an interrupted eval gets to wind down (within the 5 s a Ctrl-C promises)
WIND_DOWN = 4.0


def entry() -> None:
    """The `todo-bench` command as a process (`main` is the same command for callers in a
    process of their own, such as tests). After a Ctrl-C the process ends within EXIT_GRACE
    seconds even if a thread outlives the run: a second Ctrl-C during the event loop's shutdown
    can leave one of anyio's worker threads waiting for work, and the interpreter's exit waits
    for it forever (found: one two-Ctrl-C run in eight hung after printing its last line); and
    an eval whose wind-down after the first Ctrl-C does not finish is ended WIND_DOWN seconds
    after it (harness/run/runner.py). A SIGTERM is a Ctrl-C to the run (run/terminate.py)."""
    runner.end_interrupted_evals_after(WIND_DOWN)
    terminate.as_ctrl_c()
    code = main()
    if code == 130:
        # coroutines the interrupt left unawaited are collected at exit: no news to the user
        warnings.filterwarnings("ignore", "coroutine .* was never awaited", RuntimeWarning)
        threading.Thread(target=_end, args=(code,), daemon=True).start()
    sys.exit(code)


def _end(code: int) -> None:
    time.sleep(EXIT_GRACE)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


__all__ = ["build_parser", "entry", "main"]
