"""The audit against hand labels of real sessions (`results/field/labels.yaml`, ids only) and the
corpus they label (`../shared/realtraces`, not in this repository): every session read, and the
per-category precision and recall that docs/field.md publishes."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.audit import expand, run_audit
from harness.audit.labels import agreement, load_labels
from harness.audit.model import AuditReport
from tests.helpers import ROOT

CORPUS = ROOT.parent / "shared" / "realtraces"
pytestmark = pytest.mark.skipif(
    not CORPUS.is_dir(), reason=f"the real-session corpus is not here ({CORPUS})"
)


@pytest.fixture(scope="module")
def report() -> AuditReport:
    return run_audit(expand([str(CORPUS)]))


def test_every_real_session_is_read(report: AuditReport) -> None:
    assert len(report.sessions) == 82 and not [s.path for s in report.sessions if s.error]
    assert report.totals["todo_calls"] == 1339  # the corpus README's count


def test_labels_cover_every_tool_and_name_transitions_the_audit_has(report: AuditReport) -> None:
    labels = load_labels()
    assert len(labels) >= 200
    formats = {Path(s.path).stem: s.format for s in report.sessions}
    assert {formats[label.session] for label in labels} == {"claude-code", "codex", "opencode"}
    assert agreement(report, labels)[1] == []


def test_precision_and_recall_as_published(report: AuditReport) -> None:
    # docs/field.md, "How far the audit agrees": (audit, labelled, agreed) per category
    table = {
        (a.basis, a.category): (a.audit, a.labelled, a.agreed)
        for a in agreement(report, load_labels())[0]
    }
    assert table == {
        ("total", "dropped"): (18, 12, 12),
        ("total", "reworded"): (16, 24, 16),
        ("total", "completed_removed"): (91, 89, 89),
        ("total", "status_regressions"): (0, 0, 0),
        ("total", "added"): (138, 130, 130),
        ("unasked", "dropped"): (15, 11, 10),
        ("unasked", "reworded"): (7, 17, 7),
        ("unasked", "completed_removed"): (7, 7, 7),
        ("unasked", "status_regressions"): (0, 0, 0),
        ("unasked", "added"): (23, 19, 18),
    }
