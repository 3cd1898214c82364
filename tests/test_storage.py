"""Run folders on a local disk and on an object store (a local S3 endpoint): whole writes only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from harness import storage
from tests.objectstore import BUCKET, s3_endpoint


@pytest.fixture(scope="module")
def s3() -> Iterator[str]:
    with s3_endpoint():
        yield f"s3://{BUCKET}/storage-test"


def test_join_keeps_a_urls_slashes_and_a_paths_form() -> None:
    assert storage.join("s3://b/p/", "logs", "/x.eval") == "s3://b/p/logs/x.eval"
    assert storage.join("runs/a", "logs") == str(Path("runs/a/logs"))
    assert storage.parent("s3://b/p/summary.json") == "s3://b/p"
    assert storage.is_url("s3://b") and not storage.is_url("/tmp/x")


def test_local_writes_are_whole_and_leave_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "summary.json"
    storage.write_text(target, "one")
    storage.write_text(target, "two")
    assert storage.read_text(target) == "two"
    assert storage.children(target.parent) == ["summary.json"]
    source = tmp_path / "log.eval"
    source.write_bytes(b"zip")
    storage.put_file(source, str(tmp_path / "store" / "log.eval"))
    assert storage.children(tmp_path / "store") == ["log.eval"]
    storage.remove_tree(tmp_path / "store")
    assert not storage.exists(tmp_path / "store")
    storage.remove_tree(target)  # a file too
    assert not target.exists()
    assert storage.children(tmp_path / "nothing") == []


def test_object_store_round_trip(s3: str, tmp_path: Path) -> None:
    path = storage.join(s3, "run", "summary.json")
    assert not storage.exists(path)
    storage.write_text(path, "{}")
    assert storage.is_file(path) and storage.read_text(path) == "{}"
    source = tmp_path / "log.eval"
    source.write_bytes(b"zip")
    storage.put_file(source, storage.join(s3, "run", "logs", "log.eval"))
    # the temporary names are gone: only whole objects under their names
    assert storage.children(storage.join(s3, "run")) == ["logs", "summary.json"]
    assert storage.children(storage.join(s3, "run", "logs")) == ["log.eval"]
    storage.remove_tree(storage.join(s3, "run"))
    assert storage.children(storage.join(s3, "run")) == []
    with pytest.raises(FileNotFoundError):
        storage.read_text(path)
