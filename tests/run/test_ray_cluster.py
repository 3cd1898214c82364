"""`--executor ray` on a real two-node Ray cluster (a head and a worker node on 127.0.0.1,
started here) writing to a real S3 endpoint (moto's server, started here): the summary is
byte-identical to the one-process run's; a worker killed mid-shard is retried; a rerun runs only
the shards missing from the store; a damaged object is skipped with a warning; a shard out of
retries fails the run, which is then published as incomplete, never as a whole one."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from harness import storage
from harness.commands import main
from harness.results.summary import read_summary
from harness.run.ray_executor import KILL_SWITCH
from tests.helpers import ROOT
from tests.objectstore import BUCKET, s3_endpoint

# one xdist worker runs the whole module: one cluster and one endpoint at a time on this machine
pytestmark = [pytest.mark.heavy, pytest.mark.xdist_group("ray-cluster")]
ray = pytest.importorskip("ray", reason="the ray extra is not installed")

PLAN = [
    "--variants", "L0-rewrite,L3-granular",
    "--scenarios", "excel_export,rename_chain,compaction,main_and_test",
    "--epochs", "1", "--seed", "0", "--display", "none",
]  # fmt: skip
SHARDS = ["--shard-size", "2"]  # 4 shards


@pytest.fixture(scope="module")
def store() -> Iterator[str]:
    with s3_endpoint():
        yield f"s3://{BUCKET}"


@pytest.fixture(scope="module")
def cluster(store: str) -> Iterator[str]:
    from ray.cluster_utils import Cluster

    nodes = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}
    )
    nodes.add_node(num_cpus=1)
    nodes.wait_for_nodes()
    try:
        yield str(nodes.address)
    finally:
        if ray.is_initialized():
            ray.shutdown()
        nodes.shutdown()  # type: ignore[no-untyped-call]


@pytest.fixture(scope="module")
def one_process(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    out = tmp_path_factory.mktemp("local") / "run"
    assert main(["run", *PLAN, "--out", str(out)]) == 0
    return (out / "summary.json").read_bytes()


def ray_run(cluster: str, out: str, *extra: str) -> int:
    return main(["run", *PLAN, *SHARDS, "--executor", "ray", "--ray-address", cluster,
                 "--out", out, *extra])  # fmt: skip


def shard_records(out: str) -> dict[str, dict[str, object]]:
    return {
        row["id"]: row for row in json.loads(storage.read_text(storage.join(out, "shards.json")))
    }


@contextmanager
def one_worker_killed(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Arm the kill switch: the first worker to claim it SIGKILLs itself after its shard's
    first episode (a real kill of a real worker, at a moment no load can shift)."""
    switch = folder / "kill-one-worker"
    switch.write_text("armed")
    monkeypatch.setenv(KILL_SWITCH, str(switch))
    yield switch
    monkeypatch.delenv(KILL_SWITCH)


def test_the_default_suite_on_ray_into_s3_equals_make_bench(cluster: str, store: str) -> None:
    out = f"{store}/default"
    args = ["run", "--variants", "headline", "--epochs", "3", "--seed", "0", "--display", "none"]
    ray_args = ["--executor", "ray", "--ray-address", cluster, "--shard-size", "6"]
    assert main([*args, *ray_args, "--out", out]) == 0
    committed = (ROOT / "results" / "latest" / "summary.json").read_text(encoding="utf-8")
    assert storage.read_text(storage.join(out, "summary.json")) == committed
    # the other commands read the store too
    assert main(["leaderboard", out, "--format", "csv"]) == 0
    assert main(["compare", str(ROOT / "results" / "latest"), out]) == 0


def test_a_killed_worker_is_retried_and_a_rerun_runs_only_what_the_store_lacks(
    cluster: str,
    store: str,
    one_process: bytes,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # one run serves both faults (a Ray run is the expensive part of this module)
    out = f"{store}/killed"
    with one_worker_killed(tmp_path, monkeypatch) as switch:
        assert ray_run(cluster, out) == 0
    assert Path(f"{switch}.claimed").exists()  # a worker did die mid-shard
    records = shard_records(out)
    assert all(r["status"] == "done" for r in records.values())
    assert max(int(str(r["attempts"])) for r in records.values()) == 2
    assert storage.read_text(storage.join(out, "summary.json")).encode() == one_process

    # a shard lost from the store: the rerun runs that shard only
    before = {k: int(str(r["attempts"])) for k, r in records.items()}
    storage.remove_tree(storage.join(out, "logs", "L3-granular", "shard-001"))
    capsys.readouterr()
    assert ray_run(cluster, out) == 0
    assert "3 of 4 shards already in the store" in capsys.readouterr().err
    after = {k: int(str(r["attempts"])) for k, r in shard_records(out).items()}
    assert after == {**before, "L3-granular#001": before["L3-granular#001"] + 1}
    assert storage.read_text(storage.join(out, "summary.json")).encode() == one_process

    # a damaged object beside the logs is kept aside as .damaged with a warning; nothing is
    # counted from it, and the shard's whole log still counts
    (name,) = storage.children(storage.join(out, "logs", "L0-rewrite", "shard-000"))
    fs, path = storage.filesystem(storage.join(out, "logs", "L0-rewrite", "shard-000"))
    data = fs.cat_file(f"{path}/{name}")
    fs.pipe_file(f"{path}/2099-01-01T00-00-00-00-00_todo-bench_damaged.eval", data[:400])
    capsys.readouterr()
    assert ray_run(cluster, out) == 0
    err = capsys.readouterr().err
    assert "damaged log" in err and "_damaged.eval.damaged" in err, err
    assert "4 of 4 shards already in the store" in err
    assert storage.read_text(storage.join(out, "summary.json")).encode() == one_process


def test_a_shard_out_of_retries_fails_the_run_and_is_not_published_as_complete(
    cluster: str,
    store: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = f"{store}/failed"
    with one_worker_killed(tmp_path, monkeypatch) as switch:
        code = ray_run(cluster, out, "--shard-retries", "0")
    assert Path(f"{switch}.claimed").exists()
    assert code != 0
    err = capsys.readouterr().err
    assert "failed after 1 attempts" in err
    records = shard_records(out)
    # the killed shard, and any task Ray had already queued on that worker, fail
    assert "failed" in {str(r["status"]) for r in records.values()}
    summary = read_summary(storage.join(out, "summary.json"))
    assert not summary.complete
    assert any("episodes missing" in p for p in summary.problems)
    assert "INCOMPLETE" in storage.read_text(storage.join(out, "leaderboard.md")).upper()
