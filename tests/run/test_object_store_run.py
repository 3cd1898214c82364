"""`--executor local` with `--out s3://...` (a local S3 endpoint): the summary is byte-identical
to a run into a local folder, and the URL serves leaderboard and report."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import storage
from harness.commands import main
from tests.objectstore import BUCKET, s3_endpoint

pytestmark = pytest.mark.slow
PLAN = [
    "run", "--variants", "L0-rewrite", "--scenarios", "excel_export,rename_chain",
    "--epochs", "1", "--display", "none", "--workers", "1",
]  # fmt: skip


def test_a_local_run_into_an_object_store(tmp_path: Path) -> None:
    assert main([*PLAN, "--out", str(tmp_path / "run")]) == 0
    with s3_endpoint():
        out = f"s3://{BUCKET}/local-executor"
        assert main([*PLAN, "--out", out]) == 0
        summary = storage.read_text(storage.join(out, "summary.json"))
        assert summary == (tmp_path / "run" / "summary.json").read_text(encoding="utf-8")
        assert main(["leaderboard", out]) == 0
        assert main(["report", out]) == 0
        assert storage.is_file(storage.join(out, "leaderboard.html"))
        assert main(["rescore", out]) == 0
        assert storage.read_text(storage.join(out, "summary.json")) == summary
