"""Field rates: the simulated agent's list-fault rates fitted on audited real sessions.

Each rate is fitted from the tool family where its opportunity exists: dropping, rewording and
forgetting at a compaction from full-list rewrites (Claude Code `TodoWrite`, Codex `update_plan`,
OpenCode `todowrite`), a wrong id from the id-based Task tools. Only unsanctioned transitions count
(no user message between the two calls), no-ops aside. A junk invention (the sim's `invent`: an
unasked item that is no part of the work) is counted from the hand labels, since the audit cannot
tell it from the benign self-extension real agents do ("Run tests and lint" added after the work).

Intervals: a percentile bootstrap over sessions (scipy, 2,000 resamples, fixed seed) of the ratio
of summed events to summed opportunities; with no event at all, the exact Clopper-Pearson interval
(statsmodels). A rate resting on fewer than `MIN_OPPORTUNITIES` opportunities or `MIN_SESSIONS`
sessions keeps the base profile's value (the prior) and says so, clipped into the data's interval
where there is one (thin data still rules values out). Staleness growth is 0: a corpus cannot
separate a base rate from its growth with staleness. Rates no log can show (early
"done" claims, early ticks, wrong results, calls written as prose, relisting, repair) are the base
profile's.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
from pydantic import BaseModel
from scipy.stats import bootstrap
from statsmodels.stats.proportion import proportion_confint

from harness.audit.labels import Label
from harness.audit.model import AuditReport, SessionAudit, Transition
from harness.models.sim.profiles import Profile, load_profile
from harness.products.catalog import TASK_TOOLS

MIN_OPPORTUNITIES = 30
MIN_SESSIONS = 3
#: label tags of an unasked addition that is no part of the work (none was found in the corpus)
JUNK = "junk"


class Rate(BaseModel):
    """One fitted rate with its evidence."""

    name: str
    family: str
    value: float
    fitted: float | None  # the data's estimate, kept even when the prior is used
    ci_low: float | None
    ci_high: float | None
    events: int
    opportunities: int
    sessions: int
    source: str  # "fitted" or "prior"
    basis: str  # what was counted over what


class FieldRates(BaseModel):
    """Every rate of the field profile, with the corpus it was fitted on."""

    base: str
    sessions: int
    transitions: int
    rates: list[Rate]

    def profile(self, name: str = "field") -> Profile:
        values = {r.name: r.value for r in self.rates}
        return load_profile(self.base, {**values, "staleness_growth": 0.0}).model_copy(
            update={"name": name}
        )


PerSession = dict[str, tuple[int, int]]  # session -> (events, opportunities)


def _plain(t: Transition) -> bool:
    return not t.sanctioned and not t.no_op


def _count(
    sessions: Iterable[SessionAudit],
    keyed: bool,
    events: Callable[[Transition], int],
    chances: Callable[[Transition], int],
    where: Callable[[Transition], bool],
) -> PerSession:
    out: PerSession = {}
    for s in sessions:
        hits = total = 0
        for t in s.transitions:
            if t.keyed == keyed and _plain(t) and where(t):
                hits += events(t)
                total += chances(t)
        if total:
            out[s.session or s.path] = (hits, total)
    return out


def _category(name: str) -> Callable[[Transition], int]:
    return lambda t: sum(c.category == name for c in t.changes)


def _left_out(t: Transition) -> int:
    """Items gone from the list (the sim's `drop`/`forget` leave out any item, done or not)."""
    return sum(c.category in ("dropped", "completed_removed") for c in t.changes)


def _interval(per: PerSession) -> tuple[float | None, float | None]:
    hits = np.array([h for h, _ in per.values()], dtype=float)
    chances = np.array([c for _, c in per.values()], dtype=float)
    if not len(hits):
        return None, None
    if hits.sum() == 0:
        low, high = proportion_confint(0, int(chances.sum()), alpha=0.05, method="beta")
        return float(low), float(high)
    if len(hits) < 2:
        return None, None
    result = bootstrap(
        (hits, chances),
        lambda h, c: h.sum() / c.sum(),
        paired=True,
        vectorized=False,
        n_resamples=2000,
        method="percentile",
        random_state=np.random.default_rng(0),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def _rate(name: str, family: str, basis: str, per: PerSession, prior: float) -> Rate:
    events = sum(h for h, _ in per.values())
    chances = sum(c for _, c in per.values())
    fitted = events / chances if chances else None
    low, high = _interval(per)
    enough = chances >= MIN_OPPORTUNITIES and len(per) >= MIN_SESSIONS
    if enough and fitted is not None:
        value = round(fitted, 4)
    else:
        value = prior if low is None or high is None else round(min(max(prior, low), high), 4)
    return Rate(
        name=name,
        family=family,
        value=value,
        fitted=None if fitted is None else round(fitted, 4),
        ci_low=None if low is None else round(low, 4),
        ci_high=None if high is None else round(high, 4),
        events=events,
        opportunities=chances,
        sessions=len(per),
        source="fitted" if enough else "prior",
        basis=basis,
    )


def fit(report: AuditReport, labels: list[Label] | None, base: str = "sloppy") -> FieldRates:
    """The field rates of an audited corpus (see the module docstring)."""
    prior = load_profile(base)
    sessions = [s for s in report.sessions if not s.error]
    full, tasks = "full-list rewrite", "id-based tasks"

    def items(t: Transition) -> int:
        return t.before_items

    rates = [
        _rate(
            "drop",
            full,
            "items left out of an unasked rewrite, unfinished or completed / items before it "
            "(no compaction between)",
            _count(sessions, False, _left_out, items, lambda t: not t.after_compaction),
            prior.drop,
        ),
        _rate(
            "mutate",
            full,
            "items reworded in an unasked rewrite / items before it",
            _count(sessions, False, _category("reworded"), items, lambda t: True),
            prior.mutate,
        ),
        _rate(
            "forget",
            full,
            "items left out of the first rewrite after a compaction / items before it",
            _count(sessions, False, _left_out, items, lambda t: t.after_compaction),
            prior.forget,
        ),
        _rate(
            "invent",
            full,
            "junk items added unasked (hand labels; none: not fitted) / unasked rewrites",
            _junk(sessions, labels) if labels is not None else {},
            prior.invent,
        ),
        _rate(
            "wrong_id",
            tasks,
            "Task-tool updates the product answered 'Task not found' / Task updates and gets",
            _wrong_ids(sessions),
            prior.wrong_id,
        ),
    ]
    return FieldRates(
        base=base,
        sessions=len(sessions),
        transitions=sum(len(s.transitions) for s in sessions),
        rates=rates,
    )


def _junk(sessions: list[SessionAudit], labels: list[Label]) -> PerSession:
    junk: dict[str, int] = defaultdict(int)
    for label in labels:
        if JUNK in label.tags:
            junk[label.session] += label.added[0]
    out: PerSession = {}
    for s in sessions:
        stem = Path(s.path).stem
        chances = sum(1 for t in s.transitions if not t.keyed and _plain(t))
        if chances:
            out[stem] = (junk.get(stem, 0), chances)
    return out


#: the id-based tools' calls that name an existing task (an update or a get): each a chance to
#: name a wrong one
_BY_ID = tuple(name for t in TASK_TOOLS for name in (t.update, *t.reads[1:]))


def _wrong_ids(sessions: list[SessionAudit]) -> PerSession:
    out: PerSession = {}
    for s in sessions:
        tools = s.calls_by_tool
        chances = sum(tools.get(name, 0) for name in _BY_ID) + s.counts.get("task_not_found", 0)
        if chances:
            out[s.session or s.path] = (s.counts.get("task_not_found", 0), chances)
    return out
