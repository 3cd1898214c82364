"""One metric declaration (`harness/metrics.py`) and everything derived from it agree: a metric
missing from any of the places it must reach fails here."""

from __future__ import annotations

import inspect

import pytest

import harness.scoring.scorer as scoring
from harness.metrics import BY_NAME, DECLARED, METRICS, TABLES, WATCHED
from harness.publishing.cells import COLUMNS
from harness.scoring.scorer import PRODUCES, Counts, UndeclaredMetric, produces, unproduced
from harness.stats.comparison import WATCHED as COMPARE_WATCHED
from tests.helpers import ROOT

REFERENCE = (ROOT / "docs" / "metrics.md").read_text("utf-8")


def test_every_metric_is_declared_once_with_a_doc_and_a_direction() -> None:
    names = [m.name for m in DECLARED]
    assert len(names) == len(set(names))
    for metric in DECLARED:
        assert metric.doc and metric.direction in ("higher", "lower", "none"), metric.name
        assert (metric.header is None) == (metric.table is None), metric.name


def test_the_scorer_reports_exactly_the_declared_episode_metrics_in_order() -> None:
    assert list(Counts().values) == list(METRICS)


def test_every_declared_episode_metric_has_a_detector_that_produces_it() -> None:
    """A metric declared in harness/metrics.py that no detector writes would report 0."""
    assert unproduced() == []


def test_the_check_finds_a_declared_metric_no_detector_produces() -> None:
    assert unproduced([*METRICS, "fake_metric"]) == ["fake_metric"]
    without = {name: made for name, made in PRODUCES.items() if name != "detect_turns"}
    assert set(unproduced(METRICS, without)) == PRODUCES["detect_turns"]


def test_each_detector_names_every_metric_it_declares_and_is_the_one_detect_runs() -> None:
    """A declaration is not a production: the detector's own code must name each metric."""
    assert set(PRODUCES) == {
        "detect_todo_faults", "detect_outcome", "detect_turns", "detect_updates",
        "detect_deployed",
    }  # fmt: skip
    detect_source = inspect.getsource(scoring.detect)
    for name, metrics in PRODUCES.items():
        assert f"{name}(" in detect_source, name
        source = inspect.getsource(getattr(scoring, name).__wrapped__)
        assert [m for m in sorted(metrics) if f'"{m}"' not in source] == [], name


def test_a_detector_writing_a_metric_it_does_not_declare_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(scoring, "PRODUCES", {})

    @produces("turns")
    def sloppy(counts: Counts) -> None:
        counts.values["turns"] += 1
        counts.values["dropped_todos"] += 1

    counts = Counts()
    with pytest.raises(UndeclaredMetric, match="dropped_todos"):
        sloppy(counts)
    assert counts.values.written == {"turns"}
    assert counts.values.allowed is None  # the guard is lifted after the detector
    with pytest.raises(ValueError, match="no_such_metric"):
        produces("no_such_metric")


def test_every_watched_metric_is_on_the_leaderboard_and_has_a_sense_of_worse() -> None:
    on_board = {name for name, _ in COLUMNS}
    for name, direction in WATCHED.items():
        assert name in on_board, f"{name} can fail CI but is on no leaderboard"
        assert BY_NAME[name].direction == direction
    assert COMPARE_WATCHED is WATCHED


def test_leaderboard_headers_are_unique_and_every_column_is_declared() -> None:
    headers = [header for _, columns in TABLES for _, header in columns]
    assert len(headers) == len(set(headers))
    assert all(name in BY_NAME for _, columns in TABLES for name, _ in columns)


def test_the_metric_reference_names_every_metric() -> None:
    missing = [m.name for m in DECLARED if f"`{m.name}`" not in REFERENCE]
    assert missing == []
