"""Hand labels of real sessions' transitions, and how far the audit agrees with them.

A label names a transition by session (the log file's stem) and todo call (0-based, reads
included: the call that made the list after), and counts each category as [unasked, asked]
(`docs/field.md` has the guide). The audit is scored per category on what changed (`total`:
its counts against the labels' unasked + asked) and on what nobody asked for (`unasked`: its
unsanctioned counts, where any user message between two calls sanctions everything, against the
labels' unasked counts, where only a change the user's words asked for is sanctioned).
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, Field
from tabulate import tabulate

from harness.audit.model import CATEGORIES, AuditReport

LABELS = Path(__file__).resolve().parents[2] / "results" / "field" / "labels.yaml"


class Label(BaseModel):
    """One hand-labelled transition (ids and counts only: no session text)."""

    session: str
    call: int
    dropped: tuple[int, int] = (0, 0)
    reworded: tuple[int, int] = (0, 0)
    completed_removed: tuple[int, int] = (0, 0)
    status_regressions: tuple[int, int] = (0, 0)
    added: tuple[int, int] = (0, 0)
    tags: list[str] = Field(default_factory=list)

    def count(self, category: str, which: str) -> int:
        pair: tuple[int, int] = getattr(self, category)
        unasked, asked = pair
        return {"unasked": unasked, "asked": asked, "total": unasked + asked}[which]


class Agreement(BaseModel):
    """Per category: the audit's count, the labels' count, and the count both agree on."""

    category: str
    basis: str  # "total" or "unasked"
    audit: int
    labelled: int
    agreed: int

    @property
    def precision(self) -> float | None:
        return self.agreed / self.audit if self.audit else None

    @property
    def recall(self) -> float | None:
        return self.agreed / self.labelled if self.labelled else None


class LabelsError(ValueError):
    """A labels file that cannot be read; the message names it and says why, in one line."""


def load_labels(path: Path = LABELS) -> list[Label]:
    """The labels of a YAML file: a list of `Label` fields (results/field/labels.yaml)."""
    try:
        rows = yaml.safe_load(path.read_text(encoding="utf-8")) or []
        if not isinstance(rows, list):
            raise ValueError("not a list of labels")
        return [Label.model_validate(row) for row in rows]
    except (OSError, UnicodeDecodeError, yaml.YAMLError, ValueError) as error:
        why = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise LabelsError(f"{path}: {why}") from None


def agreement(report: AuditReport, labels: list[Label]) -> tuple[list[Agreement], list[str]]:
    """Per category and basis, how the audit's counts meet the labels' on the labelled
    transitions; and the labels whose transition the audit does not have."""
    found: dict[tuple[str, int], dict[tuple[str, str], int]] = {}
    for session in report.sessions:
        stem = Path(session.path).stem
        for t in session.transitions:
            counts = {(c, side): 0 for c in CATEGORIES for side in ("total", "unasked")}
            for change in t.changes:
                counts[(change.category, "total")] += 1
                if not t.sanctioned:
                    counts[(change.category, "unasked")] += 1
            found[(stem, t.call)] = counts
    missing = [
        f"{label.session}:{label.call}"
        for label in labels
        if (label.session, label.call) not in found
    ]
    out = []
    for basis in ("total", "unasked"):
        for category in CATEGORIES:
            audit = labelled = agreed = 0
            for label in labels:
                seen = found.get((label.session, label.call))
                if seen is None:
                    continue
                a, b = seen[(category, basis)], label.count(category, basis)
                audit, labelled, agreed = audit + a, labelled + b, agreed + min(a, b)
            out.append(
                Agreement(
                    category=category, basis=basis, audit=audit, labelled=labelled, agreed=agreed
                )
            )
    return out, missing


def agreement_table(rows: list[Agreement]) -> str:
    """The agreement as docs/field.md publishes it (markdown)."""

    def share(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    headers = ["category", "basis", "audit", "labels", "agreed", "precision", "recall"]
    body = [
        [a.category, a.basis, a.audit, a.labelled, a.agreed, share(a.precision), share(a.recall)]
        for a in sorted(rows, key=lambda a: a.basis != "total")
    ]
    return tabulate(body, headers=headers, tablefmt="github") + "\n"
