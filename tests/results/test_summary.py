"""summary.json as read back: a schema version this code does not know, or a count below zero,
is refused, never rendered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from harness.results.summary import SCHEMA_VERSION, SchemaVersionError, read_summary
from tests.helpers import ROOT

BASELINE = json.loads((ROOT / "results" / "baseline" / "summary.json").read_text("utf-8"))


def _write(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("version", [0, SCHEMA_VERSION + 1, 99])
def test_a_schema_version_outside_what_this_code_reads_is_refused(
    version: int, tmp_path: Path
) -> None:
    path = _write(tmp_path, {**BASELINE, "schema_version": version})
    with pytest.raises(SchemaVersionError, match=f"^summary schema version {version}; this "):
        read_summary(path)


def _variant(**change: Any) -> dict[str, Any]:
    return {**BASELINE, "variants": [{**BASELINE["variants"][0], **change}]}


@pytest.mark.parametrize(
    ("data", "field"),
    [
        (_variant(episodes=-5), "variants.0.episodes"),
        (_variant(pass_k_scenarios=-1), "variants.0.pass_k_scenarios"),
        (
            _variant(metrics={"task_success": {"mean": 0.5, "stderr": -0.1, "n": 3}}),
            "variants.0.metrics.task_success.stderr",
        ),
        (
            _variant(metrics={"task_success": {"mean": 0.5, "stderr": 0.1, "n": -3}}),
            "variants.0.metrics.task_success.n",
        ),
        ({**BASELINE, "epochs": 0}, "epochs"),
        ({**BASELINE, "epochs": -1}, "epochs"),
    ],
)
def test_a_negative_count_is_refused(data: dict[str, Any], field: str, tmp_path: Path) -> None:
    with pytest.raises(ValidationError) as refused:
        read_summary(_write(tmp_path, data))
    assert ".".join(str(p) for p in refused.value.errors()[0]["loc"]) == field


def test_older_schema_versions_still_read() -> None:
    old = sorted(
        path
        for path in (ROOT / "results").rglob("summary.json")
        if json.loads(path.read_text("utf-8")).get("schema_version") == 1
    )
    assert old  # the committed real-model runs
    for path in old:
        assert read_summary(path).schema_version == 1
