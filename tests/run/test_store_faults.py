"""The object store failing under a run: one line that names the store and the cause, a
non-zero exit, no traceback (from the lease's thread, the logs or the summary). A local S3
endpoint in a process of its own, stopped by the test; no network."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.heavy

ENDPOINT = """
import logging, sys, time
logging.getLogger("werkzeug").setLevel(logging.WARNING)
import boto3
from moto.server import ThreadedMotoServer
server = ThreadedMotoServer(ip_address="127.0.0.1", port=int(sys.argv[1]), verbose=False)
server.start()
boto3.client("s3").create_bucket(Bucket="bench")
print("up", flush=True)
while True:
    time.sleep(1)
"""
RUN = ["run", "--variants", "L0-rewrite,L3-granular", "--epochs", "2", "--display", "none"]


def _free_port() -> int:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port: int = probe.getsockname()[1]
    probe.close()
    return port


def _env(port: int) -> dict[str, str]:
    return {
        **os.environ,
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }


def _cli(port: int, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "harness.commands", *args],
        env=_env(port),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for_logs(port: int, prefix: str) -> None:
    import boto3  # type: ignore[import-untyped]

    client = boto3.client(
        "s3",
        endpoint_url=f"http://127.0.0.1:{port}",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        region_name="us-east-1",
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if client.list_objects_v2(Bucket="bench", Prefix=prefix).get("KeyCount", 0):
            return
        time.sleep(0.2)
    raise AssertionError(f"no log under {prefix} in 120 s")


def _one_line(err: str) -> str:
    assert "Traceback" not in err, err[-3000:]
    (line,) = [x for x in err.splitlines() if "the object store failed" in x]
    return line


def test_the_store_going_away_mid_run_ends_with_one_line(tmp_path: Path) -> None:
    port = _free_port()
    endpoint = subprocess.Popen(
        [sys.executable, "-c", ENDPOINT, str(port)], env=_env(port), stdout=subprocess.PIPE
    )
    try:
        assert endpoint.stdout is not None and endpoint.stdout.readline().strip() == b"up"
        run = _cli(port, *RUN, "--out", "s3://bench/gone")
        _wait_for_logs(port, "gone/logs/")  # the run is under way: lease taken, logs written
        assert run.poll() is None
        endpoint.send_signal(signal.SIGKILL)
        _, err = run.communicate(timeout=300)
    finally:
        endpoint.kill()
        endpoint.wait()
    assert run.returncode == 1
    line = _one_line(err)
    assert line.startswith("todo-bench: s3://bench/gone") and "rerun the same command" in line


def test_an_unreachable_store_at_the_start_is_one_line(tmp_path: Path) -> None:
    run = _cli(_free_port(), *RUN, "--out", "s3://bench/never")
    _, err = run.communicate(timeout=300)
    assert run.returncode == 2
    assert "--out s3://bench/never: cannot write there" in _one_line(err)
