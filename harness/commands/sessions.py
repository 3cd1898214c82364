"""Commands on real agents' sessions and runs: calibrate, audit, replay."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.commands.args import Commands
from harness.errors import UsageError
from harness.todo.variants import parse_variants


def cmd_calibrate(args: argparse.Namespace) -> int:
    from harness.audit.calibrate import calibrate, write_profile

    if args.from_audit:
        from harness.audit.calibrate import calibrate_from_audit
        from harness.audit.model import AuditReport

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

    return audit(args.paths, args.format, args.labels)


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


def add(sub: Commands) -> None:
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
        help="list integrity of real agents' session logs (Claude Code, Codex, OpenCode, Gemini "
        "CLI, inspect)",
        description="Reads session logs (files or folders) and counts, per transition between two "
        "todo calls, dropped / reworded / completed-removed items, status regressions and "
        "additions, sanctioned when a user message came between. A file it cannot read gets "
        "one line on stderr; the rest go on.",
    )
    aud.add_argument("paths", nargs="+", help="session log files or folders")
    aud.add_argument("--format", default="md", choices=["md", "json"], help="output format")
    aud.add_argument(
        "--labels",
        metavar="YAML",
        help="hand labels of the sessions' transitions (docs/field.md: results/field/labels.yaml "
        "is the format); after the audit, its precision and recall against them per category",
    )
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
