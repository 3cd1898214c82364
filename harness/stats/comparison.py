"""`todo-bench compare BASE NEW`: the regression gate between two runs.

Runs must be comparable (same model, scenario set and content, epochs, schema, task and sim
versions, and for the exact comparison the same seed) or the comparison is refused. Runs made
with different seeds can be compared only with `--statistical`: their episodes are then paired
by scenario and epoch as independent draws of the same cell, not as replays. For a deterministic
model (the simulated agent) the comparison is exact: any difference in a watched metric fails,
since the same inputs must give the same numbers. Otherwise each watched metric of each variant
is tested on the pairs (`harness.stats.intervals`: exact McNemar for binary metrics, a paired
permutation
test for counts), all p-values are Holm-corrected together, and a change is a regression (or an
improvement) when its corrected p-value is below `alpha` and its size exceeds the metric's
tolerance; a smaller change is shown as not significant, never hidden.
"""

from __future__ import annotations

import html
import math
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, Field
from tabulate import tabulate

from harness.metrics import WATCHED as WATCHED  # declared once; tests read it from here
from harness.results.summary import Summary
from harness.stats.intervals import Test, holm, paired_test

#: what an exact comparison's failing row says in place of a p-value
EXACT_CHANGE = "changed (exact comparison: any change fails)"

Verdict = Literal["regression", "improvement", "changed", "not significant", "unchanged", "missing"]


class Finding(BaseModel):
    variant: str
    metric: str
    verdict: Verdict
    test: Test | None = None
    detail: str = ""


class Comparison(BaseModel):
    base: str
    new: str
    exact: bool
    alpha: float
    findings: list[Finding] = Field(default_factory=list)

    @property
    def failed(self) -> bool:
        return any(f.verdict in ("regression", "changed", "missing") for f in self.findings)


def mismatches(base: Summary, new: Summary, statistical: bool = False) -> list[str]:
    """Why two summaries cannot be compared fairly (empty when they can). A different seed is
    a mismatch for the exact comparison (it changes every episode of a deterministic model) but
    not for the statistical one, which treats the episodes as draws."""
    out = []
    if base.seed != new.seed and not statistical:
        out.append(f"seed {base.seed} vs {new.seed} (use --statistical to test the difference)")
    for name, a, b in (
        ("task version", base.provenance.task_version, new.provenance.task_version),
        ("sim version", base.provenance.sim_version, new.provenance.sim_version),
    ):
        if a != b:
            out.append(f"{name} {a} vs {b}")
    if base.schema_version != new.schema_version:
        out.append(f"schema version {base.schema_version} vs {new.schema_version}")
    if base.model != new.model:
        out.append(f"model {base.model} vs {new.model}")
    if base.epochs != new.epochs:
        out.append(f"epochs {base.epochs} vs {new.epochs}")
    if sorted(base.scenarios) != sorted(new.scenarios):
        out.append("scenario sets differ")
    elif base.provenance.scenario_hash != new.provenance.scenario_hash:
        out.append("scenario content differs")
    if not new.variants:
        out.append("the new run has no results")
    return out


#: a tolerance file is a few lines; anything larger is not one
MAX_TOLERANCE_BYTES = 65_536


def load_tolerances(path: Path | None) -> dict[str, float]:
    """A YAML mapping metric -> the change per episode that is tolerated (default 0). Any
    problem with the file (missing, not a regular file, too large, not YAML, not such a
    mapping) is a ValueError of one line naming it."""
    if path is None:
        return {}
    expected = f"expected metric: number (0 or more) for metrics in {', '.join(WATCHED)}"
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise ValueError(f"--tolerance {path}: not a regular file")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as handle:
            raw = handle.read(MAX_TOLERANCE_BYTES + 1)
    except OSError as error:
        raise ValueError(f"--tolerance {path}: cannot read ({error.strerror or error})") from None
    if len(raw) > MAX_TOLERANCE_BYTES:
        raise ValueError(f"--tolerance {path}: larger than {MAX_TOLERANCE_BYTES:,} bytes")
    try:
        data = yaml.safe_load(raw.decode("utf-8")) or {}
    except (UnicodeDecodeError, yaml.YAMLError) as error:
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ValueError(f"--tolerance {path}: not YAML ({first}); {expected}") from None
    if not isinstance(data, dict) or not all(
        isinstance(v, int | float)
        and not isinstance(v, bool)
        and math.isfinite(v)
        and v >= 0
        and k in WATCHED
        for k, v in data.items()
    ):
        raise ValueError(f"--tolerance {path}: {expected}")
    return {k: float(v) for k, v in data.items()}


def compare(
    base: Summary,
    new: Summary,
    alpha: float = 0.05,
    tolerance: dict[str, float] | None = None,
    exact: bool | None = None,
) -> Comparison:
    """Every watched metric of every base variant, judged on the paired episodes (a metric
    one of the two summaries does not score at all is not judged)."""
    tolerance = tolerance or {}
    exact = base.simulated and new.simulated if exact is None else exact
    result = Comparison(base=base.model, new=new.model, exact=exact, alpha=alpha)
    new_by_name = {v.variant: v for v in new.variants}
    tests: list[Test] = []
    for variant in base.variants:
        other = new_by_name.get(variant.variant)
        if other is None:
            result.findings.append(
                Finding(variant=variant.variant, metric="*", verdict="missing", detail="not in NEW")
            )
            continue
        old_eps = {(e.scenario, e.epoch): e.values for e in variant.per_episode}
        new_eps = {(e.scenario, e.epoch): e.values for e in other.per_episode}
        keys = sorted(old_eps.keys() & new_eps.keys())
        for metric in WATCHED:
            if not _in_both(metric, old_eps.values(), new_eps.values()):
                continue  # made by a todo-bench without it (a baseline kept from before)
            a = [old_eps[k].get(metric, 0.0) for k in keys]
            b = [new_eps[k].get(metric, 0.0) for k in keys]
            tests.append(paired_test(variant.variant, metric, a, b))
    for test in holm(tests):
        result.findings.append(_judge(test, exact, alpha, tolerance.get(test.metric, 0.0)))
    return result


def _in_both(metric: str, old: Iterable[dict[str, float]], new: Iterable[dict[str, float]]) -> bool:
    """Both summaries score `metric`: one made before it was declared has it in no episode, and
    reading its absence as zero would call every loss in the other a regression."""
    return any(metric in values for values in old) and any(metric in values for values in new)


def _judge(test: Test, exact: bool, alpha: float, tolerance: float) -> Finding:
    worse = test.delta < 0 if WATCHED[test.metric] == "higher" else test.delta > 0
    if test.method == "no difference":
        return Finding(variant=test.variant, metric=test.metric, verdict="unchanged", test=test)
    if tolerance and abs(test.delta) <= tolerance:
        note = f"within tolerance {tolerance}"
        return Finding(
            variant=test.variant, metric=test.metric, verdict="unchanged", test=test, detail=note
        )
    if exact:
        # a deterministic model gives the same numbers for the same inputs: any change, even
        # one that cancels out on average, is news; a p-value would read as a verdict it is not
        side = "worse" if worse else "better" if test.delta else "the same"
        note = f"{EXACT_CHANGE}; {side} on average"
        return Finding(
            variant=test.variant, metric=test.metric, verdict="changed", test=test, detail=note
        )
    if test.p_holm < alpha:
        verdict: Verdict = "regression" if worse else "improvement"
        return Finding(variant=test.variant, metric=test.metric, verdict=verdict, test=test)
    # a change the test cannot tell from noise is still a change: shown with its interval and
    # p-value (it does not fail the gate), never reported as "no change"
    note = "worse on average" if worse else "better on average"
    return Finding(
        variant=test.variant, metric=test.metric, verdict="not significant", test=test, detail=note
    )


def _row(f: Finding, exact: bool) -> list[object]:
    """A finding's cells; the exact comparison tests nothing, so it shows no p-value."""
    t = f.test
    if t is None:
        return [f.variant, f.metric, f.verdict, "", "", "", "", "", f.detail]
    return [
        f.variant,
        f.metric,
        f.verdict,
        f"{t.base_mean:.3f}",
        f"{t.new_mean:.3f}",
        f"{t.delta:+.3f} [{t.ci_low:+.3f}, {t.ci_high:+.3f}]",
        "" if exact else f"{t.p_holm:.4f}",
        t.n,
        f.detail or t.method,
    ]


HEADERS = [
    "variant",
    "metric",
    "verdict",
    "base",
    "new",
    "delta [95% CI]",
    "p (Holm)",
    "pairs",
    "note",
]


def render(
    result: Comparison, fmt: Literal["text", "md"] = "text", everything: bool = False
) -> str:
    """The findings that matter (all of them with `everything`) as a table."""
    shown = [f for f in result.findings if everything or f.verdict != "unchanged"]
    mode = (
        "exact (deterministic model: any change fails)"
        if result.exact
        else (f"paired tests, Holm-corrected, alpha {result.alpha}")
    )
    verdict = "FAIL" if result.failed else "PASS"
    head = f"{verdict}: {result.base} -> {result.new}; {mode}."
    if not shown:
        return f"{head} No watched metric changed.\n"
    quiet = sum(f.verdict == "not significant" for f in result.findings)
    if quiet:
        head += f" {quiet} change(s) not significant at alpha {result.alpha} (shown, not failing)."
    table = tabulate(
        [_row(f, result.exact) for f in shown],
        headers=HEADERS,
        tablefmt="github" if fmt == "md" else "simple",
        disable_numparse=True,
    )
    return f"{head}\n\n{table}\n"


def junit(result: Comparison) -> str:
    """One test case per variant x metric; failures carry the numbers."""
    cases = []
    for f in result.findings:
        name = html.escape(f"{f.variant} {f.metric}", quote=True)
        body = ""
        if f.verdict in ("regression", "changed", "missing"):
            message = html.escape(
                " ".join(str(c) for c in _row(f, result.exact)[2:] if c != ""), quote=True
            )
            body = f'<failure message="{message}" type="{f.verdict}"/>'
        cases.append(f'  <testcase classname="todo-bench.compare" name="{name}">{body}</testcase>')
    failures = sum(f.verdict in ("regression", "changed", "missing") for f in result.findings)
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        f'<testsuite name="todo-bench compare" tests="{len(cases)}" failures="{failures}">\n'
        + "\n".join(cases)
        + "\n</testsuite>\n"
    )
