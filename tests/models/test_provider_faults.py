"""Provider faults end within `--timeout` with one line that names the cause, through the same
`todo-bench run` a user types: a server that accepts and never answers, a closed port, steady
HTTP 500s and 429s, and a body that is not JSON (loopback stubs, no network)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from harness.commands import main

pytestmark = pytest.mark.slow


class Faulty(BaseHTTPRequestHandler):
    status = 500
    body = b'{"error": {"message": "boom"}}'

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(self.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: object) -> None:
        pass


def _server(status: int, body: bytes) -> Iterator[str]:
    return _serving(type("Handler", (Faulty,), {"status": status, "body": body}))


def _serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()


def _silent() -> Iterator[str]:
    """Accepts every connection and never says a word."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(listener.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        listener.close()
        for connection in held:
            connection.close()


class Truncated(Faulty):
    """A 200 whose body stops half-way: the length promised, half of it sent, then closed."""

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = b'{"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message"'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body) * 2))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
        self.close_connection = True


def _truncated() -> Iterator[str]:
    return _serving(Truncated)


def _closed() -> Iterator[str]:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens here now
    yield f"http://127.0.0.1:{port}/v1"


FAULTS = {
    "hangs": (_silent, "did not answer within --timeout"),
    "closed port": (_closed, "cannot connect to the model server"),
    "steady 500": (lambda: _server(500, b'{"error": {"message": "boom"}}'), "HTTP 5xx"),
    "steady 429": (lambda: _server(429, b'{"error": {"message": "slow down"}}'), "HTTP 429"),
    "garbage body": (lambda: _server(200, b"<html>not json"), ""),
}
TIMEOUT = 3


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_provider_fault_ends_in_bounded_time_with_its_cause(
    fault: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    make, meaning = FAULTS[fault]
    for url in make():
        monkeypatch.setenv("LOCAL_BASE_URL", url)
        monkeypatch.setenv("LOCAL_API_KEY", "x")
        started = time.monotonic()
        code = main(
            # a model name per fault: inspect caches a model, and with it the old server's URL
            ["run", "--model", f"openai-api/local/{fault.replace(' ', '-')}"]
            + ["--variants", "L3-granular"]
            + ["--scenarios", "main_and_test", "--epochs", "1", "--retry-attempts", "0"]
            + ["--timeout", str(TIMEOUT), "--max-retries", "2", "--out", str(tmp_path / "r")]
            + ["--display", "none"]
        )
        elapsed = time.monotonic() - started
    assert code == 1
    # every attempt is bounded by --timeout and retries stop once it has passed: about 2x
    assert elapsed < 4 * TIMEOUT + 20, elapsed
    err = capsys.readouterr().err
    (line,) = [x for x in err.splitlines() if x.startswith("todo-bench: L3-granular: log error")]
    assert meaning in line, line
    assert "Traceback" not in err


def _run_local(
    monkeypatch: pytest.MonkeyPatch, url: str, model: str, args: list[str]
) -> tuple[int, float]:
    """`todo-bench run` on L3-granular against a local OpenAI-compatible stub: exit code and
    seconds taken."""
    monkeypatch.setenv("LOCAL_BASE_URL", url)
    monkeypatch.setenv("LOCAL_API_KEY", "x")
    started = time.monotonic()
    code = main(
        ["run", "--model", f"openai-api/local/{model}", "--variants", "L3-granular"]
        + [*args, "--display", "none"]
    )
    return code, time.monotonic() - started


def test_a_silent_server_stops_the_run_at_the_silence_limit_saying_so_while_waiting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A request that may wait longer than the run may stay silent: the silence limit ends it
    (with inspect's eval-set retries too), after lines that say what it is waiting for."""
    for url in _silent():
        code, elapsed = _run_local(monkeypatch, url, "silent-limit", [
            "--scenarios", "main_and_test", "--epochs", "1", "--timeout", "120",
            "--silence-limit", "6", "--out", str(tmp_path / "r"),
        ])  # fmt: skip
    assert code == 1
    assert elapsed < 6 + 15, elapsed
    err = capsys.readouterr().err
    assert "no reply from openai-api/local/silent-limit for 2 s" in err, err
    assert "openai-api/local/silent-limit answered nothing for 6 s (--silence-limit 6)" in err, err
    assert "Traceback" not in err


def test_the_defaults_bound_a_silent_provider() -> None:
    from harness.commands import build_parser

    args = build_parser().parse_args(["run", "--model", "openai-api/local/m"])
    assert args.timeout <= 180 and args.silence_limit <= 300


def test_a_silent_server_stops_the_run_at_the_limit_across_timed_out_requests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each request times out (--timeout 5) before the limit, its episodes end in error and
    inspect's eval-set retries start them again (three attempts, about 20 s): the silence still
    counts from the last reply, so the run stops at the limit (691d616 restarted the count at
    every episode's end and ran all attempts: 662 s with the defaults)."""
    for url in _silent():
        code, elapsed = _run_local(monkeypatch, url, "silent-retries", [
            "--scenarios", "main_and_test,excel_export", "--epochs", "2", "--timeout", "5",
            "--max-retries", "0", "--silence-limit", "12", "--out", str(tmp_path / "r"),
        ])  # fmt: skip
    assert code == 1
    assert elapsed < 12 + 15, elapsed
    err = capsys.readouterr().err
    assert "silent-retries answered nothing for 12 s (--silence-limit 12)" in err, err
    assert "Traceback" not in err


def test_a_truncated_200_is_named_a_truncated_response(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 200 whose body stops half-way: the SDK raises a connection error, whose chained cause
    in the log's traceback says the body was cut off (691d616: "cannot connect to the model
    server"). One attempt: retries that outlast --timeout end as a timeout instead."""
    for url in _truncated():
        code, _ = _run_local(monkeypatch, url, "truncated", [
            "--scenarios", "main_and_test", "--epochs", "1", "--retry-attempts", "0",
            "--timeout", "20", "--max-retries", "0", "--out", str(tmp_path / "r"),
        ])  # fmt: skip
    assert code == 1
    err = capsys.readouterr().err
    (line,) = [x for x in err.splitlines() if x.startswith("todo-bench: L3-granular: log error")]
    assert "the model server's response was cut off (a truncated response" in line, line
    assert "Traceback" not in err
