"""Shards: a deterministic split, a shard's log put whole into the store, and a summary from
shard logs equal to the one-process run's, with nothing counted twice and damaged logs skipped."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from harness.results.run_logs import read_run
from harness.run.benchmark import _missing_episodes
from harness.run.runner import WorkerPlan, run_variant
from harness.run.shards import Shard, done_episodes, run_shard, shard_folder, split
from harness.stats.aggregate import summarize
from harness.todo.variants import parse_variants

SCENARIOS = ["compaction", "excel_export", "rename_chain"]


def plan(root: Path) -> WorkerPlan:
    return WorkerPlan(
        model="sim/sloppy",
        model_args={"seed": 0},
        variants=parse_variants("L0-rewrite"),
        scenarios=",".join(SCENARIOS),
        scenario_dir=None,
        epochs=2,
        log_root=str(root),
        display="none",
        generate={},
        retry_attempts=0,
    )


def test_the_split_is_deterministic_and_covers_every_scenario_once() -> None:
    variants = parse_variants("L0-rewrite,L3-granular")
    shards = split(variants, ["a", "b", "c", "d", "e"], 2)
    assert [s.id for s in shards] == [
        "L0-rewrite#000", "L0-rewrite#001", "L0-rewrite#002",
        "L3-granular#000", "L3-granular#001", "L3-granular#002",
    ]  # fmt: skip
    assert [s.scenarios for s in shards[:3]] == [["a", "b"], ["c", "d"], ["e"]]
    assert split(variants, ["a", "b", "c", "d", "e"], 2) == shards
    assert len(split(variants, ["a"], 10)) == 2
    with pytest.raises(ValueError):
        split(variants, ["a"], 0)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[WorkerPlan, list[Shard], Path]:
    """The same plan run once whole and once as two shards."""
    whole = tmp_path_factory.mktemp("whole")
    assert run_variant(plan(whole), plan(whole).variants[0], "none")
    sharded = plan(tmp_path_factory.mktemp("sharded"))
    shards = split(sharded.variants, SCENARIOS, 2)
    for shard in shards:
        assert run_shard(sharded, shard) == len(shard.scenarios) * 2
    return sharded, shards, whole


def test_a_sharded_run_summarizes_exactly_as_the_whole_run(
    runs: tuple[WorkerPlan, list[Shard], Path],
) -> None:
    sharded, shards, whole = runs
    one, problems_one = read_run(whole)
    many, problems_many = read_run(sharded.log_root)
    assert problems_one == problems_many == []
    assert len(many[0].episodes) == 6
    first = summarize(one, seed=0).model_dump_json()
    assert summarize(many, seed=0).model_dump_json() == first
    # each shard's folder holds one whole log and nothing half-written
    for shard in shards:
        assert done_episodes(sharded, shard) == len(shard.scenarios) * 2
        (log,) = Path(shard_folder(sharded, shard)).iterdir()
        assert log.suffix == ".eval"


def test_a_damaged_log_is_skipped_with_a_warning(
    runs: tuple[WorkerPlan, list[Shard], Path], tmp_path: Path
) -> None:
    sharded, shards, _ = runs
    good, _ = read_run(sharded.log_root)
    folder = Path(shard_folder(sharded, shards[0]))
    (log,) = folder.glob("*.eval")
    damaged = folder / ("2099-01-01T00-00-00-00-00_todo-bench_damaged.eval")
    damaged.write_bytes(log.read_bytes()[:500])  # half an object
    warnings: list[str] = []
    try:
        again, problems = read_run(sharded.log_root, warn=warnings.append)
        assert [w for w in warnings if "ignored unreadable log" in w and "damaged" in w]
        assert again == good and problems == []
        assert done_episodes(sharded, shards[0], warnings.append) == 4  # the whole log counts
        assert not damaged.exists() and damaged.with_name(damaged.name + ".damaged").exists()
    finally:
        damaged.unlink(missing_ok=True)
        damaged.with_name(damaged.name + ".damaged").unlink(missing_ok=True)


def _rewritten(log: Path, target: Path, member: str, data: bytes) -> None:
    """A copy of a log with one part replaced (every checksum right: only its content is bad)."""
    with zipfile.ZipFile(log) as source, zipfile.ZipFile(target, "w") as copy:
        for info in source.infolist():
            body = data if info.filename == member else source.read(info.filename)
            copy.writestr(info.filename, body, compress_type=zipfile.ZIP_DEFLATED)


def _flipped(log: Path, target: Path, member: str) -> None:
    """A copy of a log with a byte of one part's stored data changed (its checksum fails)."""
    raw = bytearray(log.read_bytes())
    with zipfile.ZipFile(log) as archive:
        info = archive.getinfo(member)
    # the local header: 30 bytes, then the name and the extra field, then the data
    name_length = int.from_bytes(raw[info.header_offset + 26 : info.header_offset + 28], "little")
    extra_length = int.from_bytes(raw[info.header_offset + 28 : info.header_offset + 30], "little")
    start = info.header_offset + 30 + name_length + extra_length
    raw[start + info.compress_size // 2] ^= 0xFF
    target.write_bytes(bytes(raw))


def test_a_shard_log_with_damaged_summaries_runs_again_and_is_kept_aside(
    runs: tuple[WorkerPlan, list[Shard], Path], tmp_path: Path
) -> None:
    """Its header is whole and says success, but the part a summary reads is not: the shard is
    not done (a rerun heals the run), and the object is kept under a name that says so."""
    sharded, shards, _ = runs
    copy = plan(tmp_path)
    folder = Path(shard_folder(copy, shards[0]))
    folder.mkdir(parents=True)
    (log,) = Path(shard_folder(sharded, shards[0])).glob("*.eval")
    _rewritten(log, folder / log.name, "summaries.json", b"{not json")
    warnings: list[str] = []
    assert done_episodes(copy, shards[0], warnings.append) == 0
    (line,) = warnings
    assert "damaged log" in line and "its shard runs again" in line
    assert [p.name for p in folder.iterdir()] == [f"{log.name}.damaged"]
    run_shard(copy, shards[0])  # the rerun
    assert done_episodes(copy, shards[0], warnings.append) == 4


def test_a_log_with_one_damaged_sample_is_reported(
    runs: tuple[WorkerPlan, list[Shard], Path], tmp_path: Path
) -> None:
    sharded, shards, _ = runs
    copy = plan(tmp_path)
    folder = Path(shard_folder(copy, shards[0]))
    folder.mkdir(parents=True)
    (log,) = Path(shard_folder(sharded, shards[0])).glob("*.eval")
    sample = next(n for n in zipfile.ZipFile(log).namelist() if n.startswith("samples/"))
    _flipped(log, folder / log.name, sample)
    warnings: list[str] = []
    read_run(copy.log_root, warn=warnings.append)
    (line,) = warnings
    assert "ignored unreadable log" in line and sample in line
    assert done_episodes(copy, shards[0], warnings.append) == 0


def test_a_missing_shard_shows_as_missing_episodes(
    runs: tuple[WorkerPlan, list[Shard], Path], tmp_path: Path
) -> None:
    sharded, shards, _ = runs
    partial = plan(tmp_path)
    only = shards[0]
    run_shard(partial, only)
    results, _ = read_run(partial.log_root)
    assert _missing_episodes(results, {"L0-rewrite": 6}) == ["L0-rewrite: 2 of 6 episodes missing"]
    assert _missing_episodes(read_run(sharded.log_root)[0], {"L0-rewrite": 6}) == []
    assert done_episodes(partial, shards[1]) == 0


def test_an_episode_in_two_logs_counts_once(
    runs: tuple[WorkerPlan, list[Shard], Path],
) -> None:
    sharded, _, whole = runs
    # the whole run's log and the shards' logs in one folder: every episode is in two logs
    (log,) = whole.rglob("*.eval")
    copy = Path(sharded.log_root) / "L0-rewrite" / log.name
    copy.write_bytes(log.read_bytes())
    try:
        results, _ = read_run(sharded.log_root)
        assert len(results[0].episodes) == 6
    finally:
        copy.unlink()
