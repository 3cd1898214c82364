"""summary.json as read back: a schema version this code does not know, or a count below zero,
is refused, never rendered; its committed JSON Schema is the model's, and a price counts
prompt-cache reads at their own rate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from harness.results.summary import SCHEMA_VERSION, Price, SchemaVersionError, read_summary
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
    """A summary of schema version 1 (a sim run's, kept as it was written in 2026: no results
    folder holds one since the real-model runs were re-made) and any committed one read."""
    old = [ROOT / "tests" / "data" / "summary_schema_v1.json"] + sorted(
        path
        for path in (ROOT / "results").rglob("summary.json")
        if json.loads(path.read_text("utf-8")).get("schema_version") == 1
    )
    for path in old:
        assert json.loads(path.read_text("utf-8"))["schema_version"] == 1
        assert read_summary(path).schema_version == 1


def test_prompt_cache_reads_are_priced_at_the_cache_rate() -> None:
    price = Price(input=3.0, output=15.0, cache_read=0.3)
    # 1M input of which 0.5M cached, 0.1M output
    assert round(price.cost(1e6, 5e5, 1e5), 6) == round(1.5 + 0.15 + 1.5, 6)
    assert round(Price(input=3.0, output=15.0).cost(1e6, 5e5, 1e5), 6) == 4.5


def test_the_committed_json_schema_is_current_and_committed_summaries_follow_it() -> None:
    import jsonschema

    from harness.results.summary import Summary

    committed = json.loads(Path("results/summary.schema.json").read_text(encoding="utf-8"))
    # regenerate with: python -c "..." (see README, Publishing); a changed model needs both
    assert committed == json.loads(json.dumps(Summary.model_json_schema(), sort_keys=True))
    checked = 0
    for path in Path("results").rglob("summary.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("schema_version") == SCHEMA_VERSION:
            jsonschema.validate(data, committed)
            checked += 1
    assert checked >= 3  # latest, baseline and the committed sim runs
