"""sim/field: the profile the simulated agent loads is the one fitted, and refitting the corpus
gives it again (where the corpus is here)."""

from __future__ import annotations

import json

import pytest
import yaml

from harness.audit import expand, run_audit
from harness.audit.field import FieldRates, fit
from harness.audit.labels import load_labels
from harness.audit.model import AuditReport, SessionAudit, Transition
from harness.models.sim.profiles import load_profile
from tests.helpers import ROOT

CORPUS = ROOT.parent / "shared" / "realtraces"
RATES = ROOT / "results" / "field" / "rates.json"


def committed() -> FieldRates:
    return FieldRates.model_validate_json(RATES.read_text(encoding="utf-8"))


def test_the_shipped_profile_is_the_fitted_one() -> None:
    shipped = yaml.safe_load(
        (ROOT / "harness" / "models" / "sim" / "field.yaml").read_text("utf-8")
    )
    assert shipped == committed().profile().model_dump(exclude={"name", "seed"})
    profile = load_profile("field")
    for rate in committed().rates:
        assert getattr(profile, rate.name) == rate.value, rate.name
    assert profile.staleness_growth == 0.0


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"the real-session corpus is not here ({CORPUS})")
def test_refitting_the_corpus_gives_the_committed_rates() -> None:
    fresh = fit(run_audit(expand([str(CORPUS)])), load_labels())
    assert json.loads(fresh.model_dump_json()) == json.loads(RATES.read_text(encoding="utf-8"))


def transitions(*drops: tuple[int, int]) -> AuditReport:
    """Full-list sessions, one unasked transition each: (items left out, items before)."""
    sessions = []
    for n, (left, before) in enumerate(drops):
        changes = [{"category": "dropped", "text": f"x{i}"} for i in range(left)]
        t = Transition.model_validate(
            {"index": 0, "before_items": before, "before_unfinished": before, "changes": changes}
        )
        sessions.append(
            SessionAudit(path=f"s{n}.jsonl", format="claude-code", session=f"s{n}", transitions=[t])
        )
    return AuditReport(sessions=sessions, totals={})


def rate(report: AuditReport, name: str) -> dict[str, object]:
    (found,) = [r for r in fit(report, None).rates if r.name == name]
    return found.model_dump()


def test_a_rate_on_thin_evidence_keeps_the_prior_and_says_so() -> None:
    # one session, two items, one left out: 0.5 on its face, far too little to fit
    thin = rate(transitions((1, 2)), "drop")
    assert thin["source"] == "prior" and thin["fitted"] == 0.5
    assert thin["value"] == load_profile("sloppy").drop
    # enough sessions and opportunities: fitted, with a bootstrap interval around it
    enough = rate(transitions(*[(1, 10)] * 2, *[(0, 10)] * 2), "drop")
    assert enough["source"] == "fitted" and enough["value"] == 0.05
    assert 0 <= enough["ci_low"] < 0.05 < enough["ci_high"] <= 0.1  # type: ignore[operator]


def test_no_event_gets_an_exact_interval_not_a_point() -> None:
    none = rate(transitions(*[(0, 20)] * 4), "drop")
    assert none["value"] == 0.0 and none["ci_low"] == 0.0
    assert 0.03 < none["ci_high"] < 0.05  # type: ignore[operator]  # Clopper-Pearson, 0 of 80


def test_without_labels_a_junk_invention_rate_is_not_fitted() -> None:
    report = transitions(*[(0, 20)] * 4)
    assert rate(report, "invent")["source"] == "prior"
