"""The `todo-bench` command: run the benchmark, publish and compare its results, audit real
sessions, check scenarios."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import NoReturn

from harness import runner
from harness.benchmark import UsageError
from harness.provenance import project_version
from harness.publish import FORMATS, leaderboard
from harness.scenario import (
    SCENARIO_DIR,
    Scenario,
    ScenarioError,
    check_unique_prompts,
    json_schema,
    load_scenarios,
)
from harness.sim.profiles import ProfileError
from harness.summary import (
    PRICES,
    SCHEMA_VERSION,
    Summary,
    read_summary,
)
from harness.variants import parse_variants


def cmd_run(args: argparse.Namespace) -> int:
    from harness.benchmark import BenchmarkPlan, run_benchmark

    plan = BenchmarkPlan(**{name: getattr(args, name) for name in BenchmarkPlan.model_fields})
    result = run_benchmark(plan)
    log_dir = result.run_dir / "logs"
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
    full = result.run_dir / "leaderboard.md"
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


def cmd_rescore(args: argparse.Namespace) -> int:
    """Re-score a run's kept logs with today's scorer (inspect's own `score`), then summarize."""
    from inspect_ai import score as inspect_score
    from inspect_ai.log import list_eval_logs, read_eval_log, write_eval_log

    from harness.benchmark import RunRecord, publish_run
    from harness.report import read_run, summarize
    from harness.scoring import todo_scorer
    from harness.summary import price_for
    from harness.versions import TASK_VERSION

    run_dir = Path(args.run)
    try:
        record = RunRecord.model_validate_json((run_dir / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UsageError(f"{run_dir}: no readable run.json (a todo-bench run folder)") from error
    logs = list_eval_logs(str(run_dir / "logs"), recursive=True)
    if not logs:
        raise UsageError(f"{run_dir}: no kept logs under logs/ to re-score")
    for info in logs:
        log = read_eval_log(info)
        if log.status != "success":
            continue  # an unfinished variant: resume the run, then re-score
        rescored = inspect_score(log, [todo_scorer()], action="overwrite", display="none")
        write_eval_log(rescored, info.name)
    results, problems = read_run(run_dir / "logs")
    if not results:
        raise UsageError(f"{run_dir}: no successful logs to summarize")
    origin = record.provenance.model_copy(update={"task_version": TASK_VERSION})
    summary = summarize(
        results,
        seed=record.seed,
        price=price_for(record.model),
        provenance=origin,
        problems=problems,
        expected=record.variants,
    )
    print(publish_run(summary, run_dir))
    print(f"re-scored {len(logs)} logs in {run_dir} with task version {TASK_VERSION}")
    return 0 if summary.complete else 1


def _summary_path(path: str) -> Path:
    candidate = Path(path)
    if candidate.is_dir():
        candidate = candidate / "summary.json"
    if not candidate.is_file():
        raise UsageError(f"{path}: no summary.json found")
    return candidate


def cmd_gate_accuracy(args: argparse.Namespace) -> int:
    from harness.gate_report import accuracy_table

    print(accuracy_table(_read(args.run), by_scenario=args.by_scenario))
    return 0


def cmd_factorial(args: argparse.Namespace) -> int:
    from harness.factorial import effects_table, main_effects

    try:
        effects = main_effects(_read(args.run), [m.strip() for m in args.metrics.split(",")])
    except ValueError as error:
        raise UsageError(f"{args.run}: {error}") from error
    print(effects_table(effects))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    run_dir = Path(args.run)
    summary = _read(args.run)
    folder = run_dir if run_dir.is_dir() else run_dir.parent
    for name, render in FORMATS.values():
        if name is not None:
            (folder / name).write_text(render(summary), encoding="utf-8")
            print(folder / name)
    return 0


def cmd_leaderboard(args: argparse.Namespace) -> int:
    print(leaderboard(_read(args.run), args.format))
    return 0


def _read(path: str) -> Summary:
    source = _summary_path(path)
    try:
        return read_summary(source)
    except ValueError as error:
        first = str(error).splitlines()
        reason = first[1].strip() if len(first) > 1 else first[0] if first else "invalid"
        raise UsageError(
            f"{source}: not a todo-bench summary of schema version {SCHEMA_VERSION} ({reason})"
        ) from error


def cmd_compare(args: argparse.Namespace) -> int:
    from harness.compare import compare, junit, load_tolerances, mismatches, render

    base, new = _read(args.base), _read(args.new)
    problems = mismatches(base, new, statistical=args.statistical)
    if problems and not args.allow_mismatch:
        raise UsageError(
            f"{args.base} and {args.new} are not comparable: {'; '.join(problems)} "
            "(--allow-mismatch to compare anyway)"
        )
    tolerance = load_tolerances(Path(args.tolerance) if args.tolerance else None)
    exact = False if args.statistical else None
    result = compare(base, new, alpha=args.alpha, tolerance=tolerance, exact=exact)
    print(render(result, args.format, everything=args.all), end="")
    if args.junit:
        Path(args.junit).write_text(junit(result), encoding="utf-8")
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        with open(step_summary, "a", encoding="utf-8") as handle:
            handle.write(render(result, "md") + "\n")
    return 1 if result.failed else 0


def cmd_scenarios(args: argparse.Namespace) -> int:
    if args.action == "schema":
        print(json_schema())
        return 0
    if args.action == "check":
        from harness.scenario_check import check_files

        paths = (
            [Path(p) for p in args.paths]
            if args.paths
            else sorted(Path(args.scenario_dir).glob("*.yaml"))
        )
        if not paths:
            raise UsageError(f"{args.scenario_dir}: no *.yaml scenario files found")
        lines, code = check_files(paths)
        for line in lines:
            print(line)
        print(f"{len(paths)} scenario files checked: {len(lines)} problems", file=sys.stderr)
        return code
    if args.action == "validate":
        return _validate(
            [Path(p) for p in args.paths] or sorted(Path(args.scenario_dir).glob("*.yaml")),
            args.scenario_dir,
        )
    scenarios = load_scenarios(Path(args.scenario_dir))
    from tabulate import tabulate

    rows = [[s.id, ",".join(s.tags), len(s.subtasks), s.title] for s in scenarios]
    print(tabulate(rows, headers=["id", "tags", "subtasks", "title"], tablefmt="github"))
    return 0


def _validate(files: list[Path], folder: str) -> int:
    """Every file on its own line, each verified even after a failure; exit 2 if any fails."""
    from harness.scenario_check import load_verified

    if not files:
        raise UsageError(f"{folder}: no *.yaml scenario files found")
    loaded: list[tuple[Path, Scenario]] = []
    failures = 0
    for path in files:
        try:
            loaded += [(path, s) for s in load_verified(path)]
            print(f"ok  {path}")
        except ScenarioError as error:
            print(f"ERR {error}")
            failures += 1
    try:
        check_unique_prompts(loaded)
    except ScenarioError as error:
        print(f"ERR {error}")
        failures += 1
    print(f"{len(files) - failures} of {len(files)} scenario files valid", file=sys.stderr)
    return 2 if failures else 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    from harness.calibrate import calibrate, write_profile

    if args.from_audit:
        from harness.audit.model import AuditReport
        from harness.calibrate import calibrate_from_audit

        source = Path(args.from_audit)
        try:
            report = AuditReport.model_validate_json(source.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise UsageError(
                f"{source}: not an audit JSON (todo-bench audit --format json)"
            ) from error
        profile, counts = calibrate_from_audit(report)
        if not args.out:
            raise UsageError("--from-audit needs --out PROFILE.yaml")
        out = Path(args.out)
        write_profile(profile, counts, f"audited sessions ({source})", out)
        print(out.read_text(encoding="utf-8"))
        print(f"wrote {out}; try: todo-bench run --model sim/file:{out}")
        return 0
    if not args.run:
        raise UsageError("calibrate needs a run folder, or --from-audit AUDIT.json")
    run_dir = Path(args.run)
    if not run_dir.is_dir():
        raise UsageError(f"{run_dir}: not a run folder")
    profile, counts, model = calibrate(run_dir)
    out = Path(args.out) if args.out else run_dir / "calibrated_profile.yaml"
    write_profile(profile, counts, model, out)
    print(out.read_text(encoding="utf-8"))
    print(f"wrote {out}; try: todo-bench run --model sim/file:{out}")
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from harness.audit import main as audit

    return audit(args.paths, args.format)


def cmd_replay(args: argparse.Namespace) -> int:
    from harness.audit import expand
    from harness.audit.replay import DEFAULT, render, run_replay

    variants = parse_variants(args.variants) if args.variants else parse_variants(list(DEFAULT))
    problems: list[str] = []
    files = expand(args.paths, problems)
    for problem in problems:
        print(f"todo-bench: {problem}", file=sys.stderr)
    if not files:
        raise UsageError("no session logs found")
    report = run_replay(files, variants)
    text = render(report, args.format)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    print(text, end="")
    return 0


class _Parser(argparse.ArgumentParser):
    """argparse with its errors in one line (no usage dump), exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _positive(text: str) -> int:
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _non_negative(text: str) -> int:
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None


def _add_run(sub: argparse._SubParsersAction[_Parser]) -> None:
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
    run.add_argument("--epochs", type=_positive, default=3, help="episodes per scenario (3)")
    run.add_argument("--seed", type=int, default=0, help="seed of the simulated agent and sampling")
    run.add_argument("--gate", action="store_true", help="add the completion gate to every variant")
    run.add_argument("--inject", action="store_true", help="inject the list into every prompt")
    run.add_argument("--out", help="run folder (default results/runs/<run-id>; rerun to resume)")
    run.add_argument("--prices", default=str(PRICES), help="price table (USD per 1M tokens)")
    run.add_argument(
        "--heuristic-rules",
        default=None,
        metavar="FILE",
        help="keyword table of the +heuristic gate (default: harness/heuristic_rules.yaml)",
    )
    run.add_argument("--fresh", action="store_true", help="discard an earlier run in the folder")
    run.add_argument(
        "--max-retries", type=_non_negative, default=3, help="model API retries per call"
    )
    run.add_argument(
        "--timeout",
        type=_positive,
        default=300,
        help="seconds any one model request may take, each retry included (300)",
    )
    run.add_argument(
        "--max-tokens",
        type=_positive,
        default=1024,
        help="max output tokens per model reply (real models)",
    )
    run.add_argument(
        "--max-turns",
        type=_positive,
        default=None,
        help="cap every scenario's turn budget (for slow real models)",
    )
    run.add_argument(
        "--retry-attempts", type=_non_negative, default=2, help="eval-set task retries"
    )
    run.add_argument(
        "--workers",
        type=_positive,
        default=min(2, os.cpu_count() or 1),
        help="processes running variants in parallel (default: up to 2)",
    )
    run.add_argument("--max-samples", type=_positive, default=None, help="episodes run at once")
    run.add_argument(
        "--display",
        default=runner.OWN_DISPLAY,
        choices=[runner.OWN_DISPLAY, "full", "conversation", "rich", "plain", "log", "none"],
        help="progress: one bar for the whole run across workers (episodes, elapsed, ETA; a "
        "line per tenth when not on a terminal); or one of inspect's displays (first worker)",
    )
    run.set_defaults(func=cmd_run)


def _add_publishing(sub: argparse._SubParsersAction[_Parser]) -> None:
    """Commands on a finished run: report, gate-accuracy, factorial, rescore, leaderboard."""
    rep = sub.add_parser(
        "report", help="write a run's leaderboard as md, html, tex and csv (json: summary.json)"
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
    resc.add_argument("run", help="run folder (with run.json and logs/)")
    resc.set_defaults(func=cmd_rescore)

    board = sub.add_parser("leaderboard", help="print a run's leaderboard")
    board.add_argument("run", help="run folder or summary.json")
    board.add_argument(
        "--format",
        default="md",
        choices=list(FORMATS),
        help="md (default, every column), brief (the headline columns in 120 columns), a "
        "self-contained html page, latex (booktabs), csv or json",
    )
    board.set_defaults(func=cmd_leaderboard)


def _add_compare(sub: argparse._SubParsersAction[_Parser]) -> None:
    """The regression gate between two runs."""
    comp = sub.add_parser(
        "compare",
        help="regression gate: exit 1 if NEW is worse than BASE, 2 if they are not comparable",
        description="Pairs the episodes of two runs by scenario and epoch. A deterministic model "
        "(the simulated agent) is compared exactly: any change in a watched metric fails. "
        "Otherwise each metric is tested (exact McNemar for binary metrics, a paired "
        "permutation test for counts) with Holm correction across metrics and variants.",
    )
    comp.add_argument("base", help="run folder or summary.json of the baseline")
    comp.add_argument("new", help="run folder or summary.json to judge")
    comp.add_argument("--alpha", type=float, default=0.05, help="significance after Holm (0.05)")
    comp.add_argument("--tolerance", metavar="FILE", help="YAML: metric -> tolerated change")
    comp.add_argument(
        "--format", default="text", choices=["text", "md"], help="md for a pull-request comment"
    )
    comp.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report")
    comp.add_argument("--all", action="store_true", help="show unchanged metrics too")
    comp.add_argument(
        "--allow-mismatch", action="store_true", help="compare runs of other models or suites"
    )
    comp.add_argument(
        "--statistical",
        action="store_true",
        help="use the statistical tests even for a deterministic model",
    )
    comp.set_defaults(func=cmd_compare)


def _add_real_sessions(sub: argparse._SubParsersAction[_Parser]) -> None:
    """Commands on real agents' session logs and runs: calibrate, audit, replay."""
    cal = sub.add_parser("calibrate", help="estimate sim fault rates from a real run's ledgers")
    cal.add_argument("run", nargs="?", help="run folder (its logs are read)")
    cal.add_argument(
        "--from-audit",
        metavar="AUDIT.json",
        help="fit list-fault rates from `todo-bench audit --format json` of real sessions",
    )
    cal.add_argument("--out", help="profile file (default RUN/calibrated_profile.yaml)")
    cal.set_defaults(func=cmd_calibrate)

    aud = sub.add_parser(
        "audit",
        help="list integrity of real agents' session logs (Claude Code, Codex, OpenCode, inspect)",
        description="Reads session logs (files or folders) and counts, per transition between two "
        "todo calls, dropped / reworded / completed-removed items, status regressions and "
        "additions, sanctioned when a user message came between. A file it cannot read gets "
        "one line on stderr; the rest go on.",
    )
    aud.add_argument("paths", nargs="+", help="session log files or folders")
    aud.add_argument("--format", default="md", choices=["md", "json"], help="output format")
    aud.set_defaults(func=cmd_audit)

    rep = sub.add_parser(
        "replay",
        help="replay real agents' todo lists through every design's backend",
        description="Counterfactual replay: each transition of each session log, sent the way "
        "each design takes it; per design what it refused (caught), made explicit, cost "
        "(friction, rejected calls, todo tokens). First-try counts: a real agent would have "
        "reacted to a refusal.",
    )
    rep.add_argument("paths", nargs="+", help="session log files or folders")
    rep.add_argument("--variants", help="designs to replay (default: L0-L3 and the products)")
    rep.add_argument("--format", default="md", choices=["md", "json"], help="output format")
    rep.add_argument("--out", help="also write the table to this file")
    rep.set_defaults(func=cmd_replay)


def _add_scenarios(sub: argparse._SubParsersAction[_Parser]) -> None:
    """Scenario files: list, schema, check."""
    scen = sub.add_parser(
        "scenarios",
        help="list, validate, check (replay, gate, sensitivity, lint) or print the schema",
        description="check exits 0 when every scenario is sound, 1 when it finds problems, "
        "2 when a file is not a valid scenario; one line per problem names file and field.",
    )
    scen.add_argument("action", choices=["list", "validate", "check", "schema"])
    scen.add_argument("paths", nargs="*", help="scenario files (default: the scenario dir)")
    scen.add_argument(
        "--scenario-dir", default=str(SCENARIO_DIR), help="folder of scenario YAML files"
    )
    scen.set_defaults(func=cmd_scenarios)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="todo-bench", description=__doc__)
    parser.add_argument("--version", action="version", version=f"todo-bench {project_version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    _add_run(sub)
    _add_publishing(sub)
    _add_compare(sub)
    _add_real_sessions(sub)
    _add_scenarios(sub)
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
    except KeyboardInterrupt:
        print("todo-bench: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
