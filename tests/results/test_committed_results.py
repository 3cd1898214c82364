"""The committed results are today's by meaning: every committed simulated-agent summary carries
today's task and sim versions and the hash of the scenarios it names, and a spot re-run of a few
cells reproduces their per-episode values exactly (`make regress` reruns the whole suite in CI).

A comment or a refactor changes neither versions nor numbers, so it fails nothing here; a change
that moves a number fails the spot re-run until it bumps a version and regenerates (CHANGELOG.md).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.commands import main
from harness.results.provenance import scenario_hash
from harness.results.summary import SCHEMA_VERSION, Summary, read_summary
from harness.suite.scenario import SCENARIO_DIR, load_scenarios, select
from harness.versions import SIM_VERSION, TASK_VERSION
from tests.helpers import ROOT

RESULTS = ROOT / "results"
LATEST = RESULTS / "latest" / "summary.json"
#: the spot cells: designs that differ in kind (rewrite, granular, gated) on scenarios that
#: exercise rewriting, renames and compaction; epoch 1 of the committed seed-0 run
SPOT_VARIANTS = ("L0-rewrite", "L3-granular", "L4-inject+gate")
SPOT_SCENARIOS = ("excel_export", "rename_chain", "compaction")


#: the example repository's gate baseline (examples/gate_repo), regenerated with the rest
EXAMPLE_BASELINE = ROOT / "examples" / "gate_repo" / "todo-bench" / "baseline.json"


def committed_sim_summaries() -> Iterator[Path]:
    for path in [*sorted(RESULTS.rglob("summary.json")), EXAMPLE_BASELINE]:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("simulated") and data.get("schema_version") == SCHEMA_VERSION:
            yield path


@pytest.mark.parametrize(
    "path", list(committed_sim_summaries()), ids=lambda p: str(p.relative_to(ROOT))
)
def test_every_committed_sim_summary_carries_todays_versions(path: Path) -> None:
    summary = read_summary(path)
    origin = summary.provenance
    stale = "regenerate it (scripts/regenerate.sh) and say why in CHANGELOG.md"
    assert origin.task_version == TASK_VERSION, f"task version {origin.task_version}: {stale}"
    assert origin.sim_version == SIM_VERSION, f"sim version {origin.sim_version}: {stale}"
    shipped = load_scenarios(SCENARIO_DIR)
    if not set(summary.scenarios) <= {s.id for s in shipped}:
        return  # a suite generated for the run (scripts/scaling.py): its versions are checked
    scenarios = select(shipped, summary.scenarios)
    assert origin.scenario_hash == scenario_hash(scenarios), f"scenarios changed: {stale}"


def spot_values(summary: Summary, epoch: int) -> dict[tuple[str, str], dict[str, float]]:
    return {
        (v.variant, e.scenario): e.values
        for v in summary.variants
        if v.variant in SPOT_VARIANTS
        for e in v.per_episode
        if e.scenario in SPOT_SCENARIOS and e.epoch == epoch
    }


def spot_differences(committed: Summary, fresh: Summary) -> list[str]:
    """Every spot cell and metric whose value differs, as 'variant/scenario metric: a -> b'."""
    before, after = spot_values(committed, 1), spot_values(fresh, 1)
    out = [f"{cell}: missing" for cell in sorted(before.keys() ^ after.keys())]
    for cell in sorted(before.keys() & after.keys()):
        for metric in sorted(before[cell].keys() | after[cell].keys()):
            a, b = before[cell].get(metric), after[cell].get(metric)
            if a != b:
                out.append(f"{'/'.join(cell)} {metric}: {a} -> {b}")
    return out


def spot_run(out: Path) -> Summary:
    committed = read_summary(LATEST)
    args = ["run", "--out", str(out), "--display", "none", "--model", committed.model]
    args += ["--seed", str(committed.seed), "--epochs", "1", "--workers", "1"]
    args += ["--variants", ",".join(SPOT_VARIANTS), "--scenarios", ",".join(SPOT_SCENARIOS)]
    assert main(args) == 0
    return read_summary(out / "summary.json")


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Summary:
    return spot_run(tmp_path_factory.mktemp("spot") / "run")


def test_a_spot_rerun_reproduces_the_committed_episodes_exactly(fresh: Summary) -> None:
    committed = read_summary(LATEST)
    assert len(spot_values(committed, 1)) == len(SPOT_VARIANTS) * len(SPOT_SCENARIOS)
    assert spot_differences(committed, fresh) == [], (
        "today's code scores the committed cells differently: bump the task or sim version "
        "(harness/versions.py), add a CHANGELOG.md line and regenerate"
    )


def test_the_spot_check_catches_a_planted_scoring_change(fresh: Summary) -> None:
    committed = read_summary(LATEST)
    planted = fresh.model_copy(deep=True)
    variant = next(v for v in planted.variants if v.variant == "L0-rewrite")
    episode = next(e for e in variant.per_episode if e.scenario == "rename_chain")
    episode.values["dropped_todos"] += 1
    assert spot_differences(committed, planted) == [
        "L0-rewrite/rename_chain dropped_todos: "
        f"{episode.values['dropped_todos'] - 1} -> {episode.values['dropped_todos']}"
    ]
