"""One metric declaration (`harness/metrics.py`) and everything derived from it agree: a metric
missing from any of the places it must reach fails here."""

from __future__ import annotations

from harness.metrics import BY_NAME, DECLARED, METRICS, TABLES, WATCHED
from harness.results.compare import WATCHED as COMPARE_WATCHED
from harness.results.publish import COLUMNS
from harness.scoring.scorer import Counts
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
