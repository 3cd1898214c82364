"""The collector around a run: off while importing, then settled (imports frozen, collector on),
however the block ends; a command that fails early leaves it on."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.commands import main
from harness.errors import UsageError
from harness.run import heap


@pytest.fixture(autouse=True)
def _collector_restored(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(heap, "_settled", False)  # each test is a process's first settle
    yield
    gc.unfreeze()
    gc.enable()


def test_settle_freezes_what_survived_and_turns_the_collector_on() -> None:
    gc.unfreeze()
    gc.disable()
    heap.settle()
    assert gc.isenabled()
    assert gc.get_freeze_count() > 1_000  # this test process's modules, at least


def test_the_collector_is_off_inside_and_settled_after_even_on_error() -> None:
    gc.unfreeze()
    with pytest.raises(RuntimeError), heap.imports_uncollected():
        assert not gc.isenabled()
        raise RuntimeError("a run that fails while importing")
    assert gc.isenabled()
    assert gc.get_freeze_count() > 1_000


def test_a_block_that_settled_itself_is_not_settled_again() -> None:
    gc.unfreeze()
    with heap.imports_uncollected():
        heap.settle()
        gc.unfreeze()  # so a second settle would show as a freeze
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_a_collector_someone_turned_off_stays_off() -> None:
    gc.disable()
    with heap.imports_uncollected():
        pass
    assert not gc.isenabled()


def test_a_run_imports_with_the_collector_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness.run import benchmark

    seen: list[bool] = []

    def refused(plan: object) -> None:
        seen.append(gc.isenabled())
        raise UsageError("refused")

    monkeypatch.setattr(benchmark, "run_benchmark", refused)
    assert main(["run", "--out", str(tmp_path / "r")]) == 2
    assert seen == [False]
    assert gc.isenabled()


def test_a_run_refused_before_its_episodes_leaves_the_collector_on(tmp_path: Path) -> None:
    code = main(["run", "--scenarios", "no_such_scenario", "--out", str(tmp_path / "r")])
    assert code == 2
    assert gc.isenabled()


@pytest.mark.slow
def test_a_worker_process_imports_uncollected_and_runs_its_episodes_settled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    probe = tmp_path / "probe.txt"
    monkeypatch.setenv("TODO_BENCH_GC_PROBE", str(probe))
    args = ["run", "--out", str(tmp_path / "w"), "--display", "none", "--model", "sim/oracle"]
    args += ["--design", "tests.fixtures.designs.collector:CollectorProbeStore"]
    args += ["--variants", "collector-probe,L0-rewrite", "--scenarios", "excel_export"]
    args += ["--epochs", "1", "--workers", "2"]
    assert main(args) == 0
    lines = probe.read_text().split("\n")[:-1]
    assert lines  # the probe's variant ran, in a worker process
    for line in lines:
        enabled, frozen, full_passes = line.split()
        assert enabled == "True"
        assert int(frozen) > 100_000
        # the settling pass, perhaps one the episode made; the imports none (4 with it on)
        assert int(full_passes) <= 2, line


def test_a_second_settle_freezes_nothing_more() -> None:
    gc.unfreeze()
    heap.settle()
    frozen = gc.get_freeze_count()
    kept = [[i] for i in range(10_000)]  # what a first variant's eval might leave
    heap.settle()
    assert gc.get_freeze_count() == frozen and gc.isenabled()
    assert len(kept) == 10_000
