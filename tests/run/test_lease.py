"""One driver per run folder: a second one refuses in one line; a dead driver's lease is taken
over; on an object store too."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness import storage
from harness.run import lease
from harness.run.lease import Lease, LeaseHeld
from tests.objectstore import BUCKET, s3_endpoint


def test_a_second_driver_refuses_while_the_first_holds_the_folder(tmp_path: Path) -> None:
    with (
        Lease(str(tmp_path)),
        pytest.raises(LeaseHeld, match="another driver .* is running this run folder"),
    ):
        Lease(str(tmp_path)).acquire()
    with Lease(str(tmp_path)):  # released: the next driver gets it
        pass
    assert not (tmp_path / "driver.lock").exists()


def test_a_dead_drivers_lease_is_taken_over_at_once(tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        text=True,
        capture_output=True,
        check=True,
    )
    body = {"host": socket.gethostname(), "pid": int(dead.stdout), "token": "x", "at": time.time()}
    (tmp_path / "driver.lock").write_text(json.dumps(body))
    with Lease(str(tmp_path)) as held:
        assert json.loads((tmp_path / "driver.lock").read_text())["token"] == held.token


def test_a_lease_not_renewed_goes_stale(tmp_path: Path) -> None:
    body = {"host": "elsewhere", "pid": 1, "token": "x", "at": time.time()}
    (tmp_path / "driver.lock").write_text(json.dumps(body))
    with pytest.raises(LeaseHeld, match="host elsewhere"):
        Lease(str(tmp_path)).acquire()
    body["at"] = time.time() - lease.STALE - 1
    (tmp_path / "driver.lock").write_text(json.dumps(body))
    with Lease(str(tmp_path)):
        pass


def test_the_lease_is_renewed_while_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lease, "RENEW", 0.05)
    with Lease(str(tmp_path)):
        first = json.loads((tmp_path / "driver.lock").read_text())["at"]
        time.sleep(0.3)
        assert json.loads((tmp_path / "driver.lock").read_text())["at"] > first


def test_on_an_object_store(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lease, "SETTLE", 0.05)
    with s3_endpoint():
        folder = f"s3://{BUCKET}/lease-test"
        with Lease(folder):
            assert storage.exists(storage.join(folder, "driver.lock"))
            with pytest.raises(LeaseHeld):
                Lease(folder).acquire()
        assert not storage.exists(storage.join(folder, "driver.lock"))
