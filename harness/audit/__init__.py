"""`todo-bench audit`: list integrity of real agents' session logs, by the benchmark's rules."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

from tabulate import tabulate

from harness.audit.model import CATEGORIES, AuditReport, SessionAudit
from harness.audit.readers import AuditError, read
from harness.audit.score import audit_events, totals

SUFFIXES = (".jsonl", ".json", ".eval")


def expand(paths: Iterable[str]) -> list[Path]:
    """Files named, and session logs found under folders named."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES))
        else:
            found.append(path)
    return found


def run_audit(paths: list[Path], progress: bool = False) -> AuditReport:
    """Audit every file; a file that cannot be read is one entry with its reason."""
    sessions: list[SessionAudit] = []
    from rich.progress import Progress

    with Progress(transient=True, disable=not progress) as bar:
        job = bar.add_task("auditing", total=len(paths))
        for path in paths:
            try:
                fmt, found = read(path)
                for name, events in found:
                    sessions.append(audit_events(events, str(path), fmt, name))
            except (AuditError, OSError, UnicodeDecodeError) as error:
                message = str(error) or type(error).__name__
                sessions.append(SessionAudit(path=str(path), format="?", session="", error=message))
            bar.advance(job)
    return AuditReport(sessions=sessions, totals=totals(sessions))


def render(report: AuditReport, fmt: str = "md") -> str:
    """The report as a markdown table (per session, then totals) or JSON."""
    if fmt == "json":
        return report.model_dump_json(indent=2)
    headers = ["session", "format", "todo calls", "transitions"]
    headers += [c.replace("_", " ") for c in CATEGORIES] + ["after compaction", "no-ops"]
    rows = []
    for s in report.sessions:
        if s.error:
            continue
        cells = [f"{s.counts[c]} ({s.counts[c + '_sanctioned']})" for c in CATEGORIES]
        name = f"{Path(s.path).name}:{s.session}" if s.format == "inspect" else Path(s.path).name
        rows.append(
            [name, s.format, s.todo_calls, len(s.transitions), *cells, s.after_compaction, s.no_ops]
        )
    t = report.totals
    rows.append(
        ["total", "", t.get("todo_calls", 0), t.get("transitions", 0)]
        + [f"{t.get(c, 0)} ({t.get(c + '_sanctioned', 0)})" for c in CATEGORIES]
        + [t.get("after_compaction", 0), t.get("no_ops", 0)]
    )
    table = tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)
    note = (
        "Cells: unsanctioned (sanctioned: a user message came between the two calls). "
        f"{t.get('sessions', 0)} sessions."
    )
    errors = [f"- {s.path}: {s.error}" for s in report.sessions if s.error]
    skipped = ["", "Not audited:", *errors] if errors else []
    return "\n".join([note, "", table, *skipped]) + "\n"


def main(paths: list[str], fmt: str) -> int:
    files = expand(paths)
    if not files:
        print("todo-bench: error: no session logs found", file=sys.stderr)
        return 2
    report = run_audit(files, progress=sys.stderr.isatty())
    for s in report.sessions:
        if s.error:
            print(f"todo-bench: skipped {s.path}: {s.error}", file=sys.stderr)
    print(render(report, fmt), end="")
    return 0 if any(not s.error for s in report.sessions) else 1
