"""Commands for results handed in from outside: submit, verify, site."""

from __future__ import annotations

import argparse
import getpass
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from harness import storage
from harness.commands.args import Commands, read, summary_path
from harness.errors import UsageError


def cmd_submit(args: argparse.Namespace) -> int:
    from harness.publishing.submission import manifest_for, write

    if storage.is_url(args.run):
        raise UsageError(f"{args.run}: submit reads a local run folder (copy it here first)")
    run = Path(summary_path(args.run)).parent
    summary = read(args.run)  # its problems in one line
    out = Path(args.out or f"{run.resolve().name}-submission")
    agent = args.agent_description or (
        "todo-bench's own agent loop (harness/episode/loop.py) with the todo designs "
        "of the variants listed"
    )
    when = args.when or datetime.now(UTC).replace(microsecond=0)
    manifest = manifest_for(
        run,
        summary,
        who=args.who or _login(),
        agent=agent,
        when=when,
        include_logs=args.include_logs,
    )
    write(run, out, manifest)
    logs = "logs included" if manifest.logs_included else f"{len(manifest.logs)} log digests"
    logs = logs if manifest.logs else "no logs in the run folder (verify cannot recompute it)"
    print(f"{out}: submission of {manifest.model}, {manifest.episodes} episodes, {logs}")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from harness.publishing.intake import Limits
    from harness.run.verify import verify

    limits = Limits(
        max_members=args.max_members,
        max_bytes=args.max_bytes,
        max_ratio=args.max_ratio,
        max_json_bytes=args.max_json_bytes,
        max_json_depth=args.max_json_depth,
    )
    found = verify(Path(args.submission), limits)
    for problem in found.problems:
        print(f"{args.submission}: {problem}")
    if found.problems:
        return 2
    checked = "schema, digests, versions, scenario hash"
    if found.manifest is not None and found.manifest.logs_included:
        rows = ", ".join(found.rederived) or "no row"
        checked += (
            f", every log bound to the run, every episode of {rows} re-derived from its "
            "transcript, the summary from the logs' scores"
        )
    left = f"; not checked: {'; '.join(found.unchecked)}" if found.unchecked else ""
    print(f"{args.submission}: OK ({checked}){left}")
    return 0


def cmd_site(args: argparse.Namespace) -> int:
    from harness.publishing.site import build

    pages = build(
        Path(args.submissions),
        Path(args.out),
        field=Path(args.field) if args.field else None,
        methods=[Path(p) for p in args.methods],
    )
    print(f"{args.out}: {len(pages)} pages (open {Path(args.out) / 'index.html'})")
    return 0


def _bounds(parser: argparse.ArgumentParser) -> None:
    """The flags that raise what reading one submission may cost (defaults: `Limits`)."""
    from harness.publishing.intake import DEFAULT

    bounds = parser.add_argument_group("bounds (what reading a submission may cost)")
    for flag, kind, what in (
        ("--max-members", int, "files and folders in the archive or folder"),
        ("--max-bytes", int, "bytes of its files, expanded"),
        ("--max-ratio", float, "an archive's expanded size over its size"),
        ("--max-json-bytes", int, "bytes of one JSON file"),
        ("--max-json-depth", int, "nesting levels of one JSON file"),
    ):
        default = getattr(DEFAULT, flag.removeprefix("--").replace("-", "_"))
        bounds.add_argument(
            flag, type=_positive(kind), default=default, help=f"{what} (default {default})"
        )


def _positive(kind: type[int] | type[float]) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"{text} is below 1")
        return value

    return parse


def _when(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 time: {text!r}") from None
    if moment.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text!r} names no time zone (add Z or +00:00)")
    return moment.astimezone(UTC)


def _login() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        raise UsageError("--who: no login name to default to; say who ran it") from None


def add(sub: Commands) -> None:
    """Submit a run, verify a submission, build a leaderboard site from many."""
    sub_ = sub.add_parser(
        "submit",
        help="write a run's submission (a folder, .zip or .tar.gz): summary, run record, logs "
        "or their digests, who, when, cost, versions",
        description="Writes submission.json (schema: results/submission.schema.json) beside "
        "the run's summary.json and run.json; the logs are listed by sha256 and included with "
        "--include-logs (without them verify cannot recompute the numbers, and says so).",
    )
    sub_.add_argument("run", help="run folder (summary.json; run.json and logs/ where it has them)")
    sub_.add_argument("--out", help="the submission: a new folder, or a path ending .zip/.tar.gz")
    sub_.add_argument("--who", default=None, help="who ran it (default: the login name)")
    sub_.add_argument("--agent-description", help="the agent and its designs, in your words")
    sub_.add_argument(
        "--when",
        type=_when,
        default=None,
        help="when, ISO 8601 with a time zone (default: now; for a run handed in later)",
    )
    sub_.add_argument("--include-logs", action="store_true", help="include the logs themselves")
    sub_.set_defaults(func=cmd_submit)

    ver = sub.add_parser(
        "verify",
        help="check a submission without trusting it: one line per problem, exit 2 when it "
        "does not hold",
        description="Checks the schema, every digest, the manifest against the summary, the "
        "task and sim versions against this todo-bench's, the scenario set's hash against the "
        "scenarios the summary names, and, where the logs are included, that rescoring them "
        "gives the summary. What it could not check is said on the OK line.",
    )
    ver.add_argument("submission", help="a submission folder, .zip or .tar.gz")
    _bounds(ver)
    ver.set_defaults(func=cmd_verify)

    site = sub.add_parser(
        "site",
        help="build a static leaderboard site from a folder of submissions",
        description="Every submission is checked first (as verify does, without rescoring); "
        "one that fails is refused. The site needs no server and fetches nothing.",
    )
    site.add_argument("submissions", help="a folder of submissions (folders or archives)")
    site.add_argument("--out", required=True, help="the site's folder (written afresh)")
    site.add_argument(
        "--field",
        default=None,
        help="the field evidence folder for a page of its own (results/field in a checkout)",
    )
    site.add_argument(
        "--methods",
        nargs="*",
        default=[],
        help="markdown pages for the methods page (docs/metrics.md, docs/statistics.md)",
    )
    site.set_defaults(func=cmd_site)
