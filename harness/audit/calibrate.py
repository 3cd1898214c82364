"""Estimate simulated-agent fault rates from a real run's ledgers, as a `sim/file:` profile.

Rates are per opportunity, computed from the same ledgers the scorers read; staleness growth is
set to 0 because a single run cannot separate base rate from growth.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import yaml
from inspect_ai.log import list_eval_logs, read_eval_log

from harness.audit.field import fit
from harness.audit.model import AuditReport
from harness.episode.ledger import ClaimEvent, Ledger, TodoEvent, WorkspaceEvent
from harness.episode.record import EpisodeRecord
from harness.models.sim.profiles import Profile

#: single-item operations (by the design's op kind, whatever its tools are called)
GRANULAR = {"add", "update", "rename", "delete"}


def _ratio(hits: float, chances: float) -> float:
    return round(min(1.0, hits / chances), 4) if chances else 0.0


def tally(run_dir: Path) -> tuple[Counter[str], str]:
    """Sum fault counts and their opportunities over every scored episode of a run."""
    counts: Counter[str] = Counter()
    model = ""
    for info in list_eval_logs(str(run_dir), recursive=True):
        log = read_eval_log(info.name)
        if log.status != "success":
            continue
        model = log.eval.model
        for sample in log.samples or []:
            score = (sample.scores or {}).get("todo_scorer")
            if score is None or not isinstance(score.value, dict) or not score.metadata:
                continue
            values: dict[str, Any] = score.value
            ledger = Ledger.model_validate(sample.store_as(EpisodeRecord).ledger_data())
            for key in (
                "dropped_todos",
                "lost_history",
                "mutated_text",
                "invented_todos",
                "false_todo_completions",
                "fake_tool_calls",
                "turns",
                "false_completion",
                "false_completion_past_gate",
            ):
                counts[key] += int(values.get(key, 0))
            todo = ledger.of(TodoEvent)
            rewrites = [e for e in todo if e.op == "rewrite" and e.before]
            counts["rewrites"] += len(rewrites)
            counts["rewrite_items"] += sum(len(e.before) for e in rewrites)
            counts["renumbered_rewrites"] += sum(
                1
                for e in rewrites
                if {i.text for i in e.before} & {i.text for i in e.after}
                and any(b.text == a.text and b.id != a.id for b in e.before for a in e.after)
            )
            granular = [e for e in todo if e.op in GRANULAR]
            counts["granular_ops"] += len(granular)
            counts["wrong_ids"] += sum(
                1 for e in granular if not e.accepted and "No todo with id" in (e.error or "")
            )
            counts["rejected"] += sum(1 for e in todo if not e.accepted)
            counts["workspace_calls"] += len(ledger.of(WorkspaceEvent))
            counts["claims"] += len(ledger.of(ClaimEvent))
            counts["completions"] += sum(
                1
                for e in todo
                if e.accepted
                for i in e.after
                if i.status == "completed"
                and all(b.id != i.id or b.status != "completed" for b in e.before)
            )
    return counts, model


def calibrate(run_dir: Path) -> tuple[Profile, Counter[str], str]:
    counts, model = tally(run_dir)
    if not counts["turns"]:
        raise ValueError(f"{run_dir}: no scored episodes with ledgers found")
    losses = counts["dropped_todos"] + counts["lost_history"]
    profile = Profile(
        name=f"calibrated-{model.replace('/', '_')}",
        drop=_ratio(losses, counts["rewrite_items"]),
        mutate=_ratio(counts["mutated_text"], counts["rewrite_items"]),
        renumber=_ratio(counts["renumbered_rewrites"], counts["rewrites"]),
        invent=_ratio(counts["invented_todos"], counts["rewrites"]),
        wrong_id=_ratio(counts["wrong_ids"], counts["granular_ops"]),
        staleness_growth=0.0,
        premature_done=_ratio(
            counts["false_completion"] - counts["false_completion_past_gate"], counts["turns"]
        ),
        early_complete=_ratio(counts["false_todo_completions"], counts["completions"]),
        prose_call=_ratio(counts["fake_tool_calls"], counts["turns"]),
        wrong_result=_ratio(counts["false_completion_past_gate"], counts["workspace_calls"]),
    )
    return profile, counts, model


def write_profile(profile: Profile, counts: Counter[str], model: str, path: Path) -> None:
    header = (
        f"# sim profile calibrated from a run of {model}; load with --model sim/file:{path}\n"
        f"# opportunities counted: {dict(sorted(counts.items()))}\n"
    )
    body = yaml.safe_dump(profile.model_dump(), sort_keys=False)
    path.write_text(header + body, encoding="utf-8")


def calibrate_from_audit(report: AuditReport, base: str = "sloppy") -> tuple[Profile, Counter[str]]:
    """List-fault rates from audited real sessions (`harness.audit.field`: per tool family, a
    minimum of evidence, intervals), the rest kept from a base profile. No hand labels: the
    audit cannot tell a junk invention from benign self-extension, so `invent` stays the base's.
    The counts are each rate's events and opportunities."""
    rates = fit(report, None, base)
    counts: Counter[str] = Counter()
    for rate in rates.rates:
        counts[f"{rate.name}_events"] = rate.events
        counts[f"{rate.name}_opportunities"] = rate.opportunities
        counts[f"{rate.name}_fitted"] = int(rate.source == "fitted")
    return rates.profile(), counts
