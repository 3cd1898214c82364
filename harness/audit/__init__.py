"""`todo-bench audit`: list integrity of real agents' session logs, by the benchmark's rules."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

from tabulate import tabulate

from harness.audit.model import CATEGORIES, AuditReport, SessionAudit
from harness.audit.score import audit_events, totals
from harness.products.reading import RecordError
from harness.sessions.readers import detect, read

SUFFIXES = (".jsonl", ".json", ".eval")


#: files an inspect log folder or a todo-bench run folder holds beside the logs
_NOT_SESSIONS = frozenset({"logs.json", "eval-set.json", "summary.json", "run.json", "timing.json"})


def expand(paths: Iterable[str], problems: list[str] | None = None) -> list[Path]:
    """Files named, and session logs found under folders named, each once. In a folder, JSON
    files that are not session exports (an inspect folder's `logs.json`, a corpus's side files)
    are passed over; a folder with no session log is a problem."""
    found: dict[Path, None] = {}
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            inside = [
                p
                for p in sorted(path.rglob("*"))
                if p.is_file()
                and p.suffix in SUFFIXES
                and p.name not in _NOT_SESSIONS
                and not (p.suffix == ".json" and not _is_opencode_export(p))
            ]
            if not inside and problems is not None:
                problems.append(f"{raw}: a folder with no session log")
            found.update(dict.fromkeys(p.resolve() for p in inside))
        else:
            found[path.resolve() if path.exists() else path] = None
    return list(found)


def _is_opencode_export(path: Path) -> bool:
    try:
        return detect(path) == "opencode"
    except RecordError:
        return False


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
            except (RecordError, OSError, UnicodeDecodeError) as error:
                message = str(error) or type(error).__name__
                sessions.append(SessionAudit(path=str(path), format="?", session="", error=message))
            except (ValueError, TypeError, KeyError, AttributeError) as error:
                # a shape no reader expected: this file is reported, the batch goes on
                message = f"unexpected content ({type(error).__name__}: {error})"
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
        cells = [
            f"{s.counts[c + '_unsanctioned']} ({s.counts[c + '_sanctioned']})" for c in CATEGORIES
        ]
        name = f"{Path(s.path).name}:{s.session}" if s.format == "inspect" else Path(s.path).name
        rows.append(
            [name, s.format, s.todo_calls, len(s.transitions), *cells, s.after_compaction, s.no_ops]
        )
    t = report.totals
    rows.append(
        ["total", "", t.get("todo_calls", 0), t.get("transitions", 0)]
        + [f"{t[c + '_unsanctioned']} ({t[c + '_sanctioned']})" for c in CATEGORIES]
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


def main(paths: list[str], fmt: str, labels: str | None = None) -> int:
    """The audit of `paths`, printed in `fmt`; with `labels` (a hand-labels YAML, docs/field.md)
    then how far the audit agrees with them, per category (markdown)."""
    from harness.audit.labels import LabelsError, agreement, agreement_table, load_labels

    try:
        labelled = None if labels is None else load_labels(Path(labels))
    except LabelsError as error:
        print(f"todo-bench: error: {error}", file=sys.stderr)
        return 2
    problems: list[str] = []
    files = expand(paths, problems)
    for problem in problems:
        print(f"todo-bench: {problem}", file=sys.stderr)
    if not files:
        print("todo-bench: error: no session logs found", file=sys.stderr)
        return 2
    report = run_audit(files, progress=sys.stderr.isatty())
    for s in report.sessions:
        if s.error:
            print(f"todo-bench: skipped {s.path}: {s.error}", file=sys.stderr)
        for note in s.notes:
            print(f"todo-bench: {s.path}: {note}", file=sys.stderr)
    print(render(report, fmt), end="")
    if labelled is not None:
        rows, missing = agreement(report, labelled)
        print(f"\nAgreement with the labels in {labels}:\n\n{agreement_table(rows)}", end="")
        for name in missing:
            print(f"todo-bench: label {name}: the audit has no such transition", file=sys.stderr)
    return 0 if any(not s.error for s in report.sessions) else 1
