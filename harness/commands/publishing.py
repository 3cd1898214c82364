"""Commands on a finished run: report, leaderboard, rescore, gate-accuracy, factorial."""

from __future__ import annotations

import argparse

from harness import storage
from harness.commands.args import Commands, read, summary_path
from harness.errors import UsageError
from harness.publishing.formats import FORMATS, leaderboard


def cmd_rescore(args: argparse.Namespace) -> int:
    """Re-score a run's kept logs with today's scorer (inspect's own `score`), then summarize;
    or a published board's kept episodes (episodes.json.gz), then publish it again."""
    from harness.results.kept import EPISODES
    from harness.run.folder import RunFolder
    from harness.versions import TASK_VERSION

    where = str(args.run)
    if not storage.is_file(storage.join(where, "run.json")) and storage.is_file(
        storage.join(where, EPISODES)
    ):
        return _rescore_published(where)
    folder = RunFolder(where)
    summary, rescored = folder.rescore()
    print(folder.publish(summary))
    print(f"re-scored {rescored} logs in {folder.path} with task version {TASK_VERSION}")
    return 0 if summary.complete else 1


def _rescore_published(where: str) -> int:
    import time

    from harness.publishing.outputs import publish_set
    from harness.results.summary import read_summary
    from harness.run.rescore_kept import rescore_kept

    started = time.monotonic()
    summary = rescore_kept(where, read_summary(storage.join(where, "summary.json")))
    publish_set(summary, where)
    count = sum(v.episodes for v in summary.variants)
    print(f"re-scored {count} kept episodes in {where} ({time.monotonic() - started:.1f} s)")
    return 0 if summary.complete else 1


def cmd_gate_accuracy(args: argparse.Namespace) -> int:
    from harness.stats.gate_report import accuracy_table

    print(accuracy_table(read(args.run), by_scenario=args.by_scenario))
    return 0


def cmd_factorial(args: argparse.Namespace) -> int:
    from harness.stats.factorial import effects_table, main_effects

    try:
        effects = main_effects(read(args.run), [m.strip() for m in args.metrics.split(",")])
    except ValueError as error:
        raise UsageError(f"{args.run}: {error}") from error
    print(effects_table(effects))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from harness.publishing.outputs import SCREENSHOT, retake_screenshot

    summary = read(args.run)
    folder = storage.parent(summary_path(args.run))
    for name, render in FORMATS.values():
        if name is not None:
            storage.write_text(storage.join(folder, name), render(summary))
            print(storage.join(folder, name))
    # the page's screenshot shows the page: retaken with it (removed where no chromium is)
    picture = retake_screenshot(folder)
    if picture.startswith(","):
        print(storage.join(folder, SCREENSHOT))
    elif picture:
        print(picture.removeprefix("; "))
    return 0


def cmd_leaderboard(args: argparse.Namespace) -> int:
    print(leaderboard(read(args.run), args.format))
    return 0


def add(sub: Commands) -> None:
    """Commands on a finished run: report, gate-accuracy, factorial, rescore, leaderboard."""
    rep = sub.add_parser(
        "report",
        help="write a run's leaderboard as md, html, tex (body and standalone) and csv (json: "
        "summary.json)",
    )
    rep.add_argument("run", help="run folder or summary.json")
    rep.set_defaults(func=cmd_report)

    acc = sub.add_parser(
        "gate-accuracy",
        help="the deployable gate (+heuristic) against the oracle: precision, recall, false "
        "blocks, missed false completions",
    )
    acc.add_argument("run", help="run folder or summary.json")
    acc.add_argument("--by-scenario", action="store_true", help="one row per variant x scenario")
    acc.set_defaults(func=cmd_gate_accuracy)

    fac = sub.add_parser(
        "factorial",
        help="the main effect of each switch (+heuristic, +planner, ...) on a run of "
        "--variants seed-factorial, clustered by scenario",
    )
    fac.add_argument("run", help="run folder or summary.json")
    fac.add_argument(
        "--metrics",
        default="task_success,false_completion,blocked_completions,false_blocks,turns,input_tokens",
        help="comma-separated metrics (summary.json names)",
    )
    fac.set_defaults(func=cmd_factorial)

    resc = sub.add_parser(
        "rescore",
        help="re-score a run's kept logs with today's scorer, then rewrite its summary",
        description="Runs today's scorer over the run's kept inspect logs (inspect's own score) "
        "and writes summary.json and leaderboard.md again, recording today's task version: a "
        "detector fix costs seconds, not a rerun. It assumes what changed since the logs were "
        "made is scoring only (detectors, checks, matcher); a change to prompts, tools or the "
        "loop needs a rerun.",
    )
    resc.add_argument(
        "run",
        help="run folder (with run.json and logs/), or a published board (summary.json and "
        "episodes.json.gz)",
    )
    resc.set_defaults(func=cmd_rescore)

    board = sub.add_parser("leaderboard", help="print a run's leaderboard")
    board.add_argument("run", help="run folder or summary.json")
    board.add_argument(
        "--format",
        default="md",
        choices=list(FORMATS),
        help="md (default, every column), brief (the headline columns in 120 columns), a "
        "self-contained html page, latex (booktabs tables to \\input in a paper), "
        "latex-standalone (the same in a document that compiles on its own), csv or json",
    )
    board.set_defaults(func=cmd_leaderboard)
