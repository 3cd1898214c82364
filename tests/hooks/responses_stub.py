"""A local stand-in for the OpenAI Responses API that plays a script, and `codex exec` pointed at
it: the real Codex CLI binary, run outside any benchmark, with no network but this server.

Each request gets the next turn of the script (a list of function calls and messages), sent
as Codex reads a streamed response (`response.created`, one `response.output_item.done` per
item, `response.completed`); past the script's end it answers a final message. Every request
body is kept, so a test reads exactly what the product sent the model (a denied call's output,
a hook's context, a blocked stop's reason).
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol, TypeVar

from harness.products.catalog import PRODUCTS

CODEX = PRODUCTS["cli/codex"]


@dataclass(frozen=True)
class Call:
    """A function call the model makes."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Say:
    """A message the model writes (a final answer when the turn has no call)."""

    text: str


Turn = Sequence[Call | Say]


def sse_event(kind: str, **data: Any) -> bytes:
    """One server-sent event as the Responses and Messages APIs stream them: its type named
    twice, in the event line and in the data."""
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()


def _item(step: Call | Say, request: int, position: int) -> dict[str, Any]:
    if isinstance(step, Call):
        return {
            "type": "function_call",
            "name": step.name,
            "arguments": json.dumps(step.arguments),
            "call_id": f"call_{request}_{position}",
        }
    text = [{"type": "output_text", "text": step.text}]
    return {"type": "message", "role": "assistant", "id": f"msg_{request}", "content": text}


@dataclass
class Scripted:
    """A script of turns, played one per request; `requests` holds every request body, in
    order."""

    turns: Sequence[Turn]
    last: str = "Done."
    requests: list[dict[str, Any]] = field(default_factory=list)
    port: int = 0

    def next_turn(self, body: dict[str, Any]) -> tuple[int, Turn]:
        """Keep the request; its index and the turn that answers it (past the script's end, a
        final message)."""
        index = len(self.requests)
        self.requests.append(body)
        return index, self.turns[index] if index < len(self.turns) else [Say(self.last)]

    def answer(self, body: dict[str, Any]) -> bytes:
        """The streamed answer to one request body."""
        raise NotImplementedError

    def respond(self, path: str, body: dict[str, Any]) -> tuple[str, bytes]:
        return "text/event-stream", self.answer(body)


@dataclass
class ResponsesStub(Scripted):
    """The server (see the module docstring)."""

    #: the total tokens each response reports (a large number makes Codex compact)
    tokens: int = 2

    def answer(self, body: dict[str, Any]) -> bytes:
        index, turn = self.next_turn(body)
        out = sse_event("response.created", response={"id": f"resp_{index}"})
        for position, step in enumerate(turn):
            out += sse_event("response.output_item.done", item=_item(step, index, position))
        usage = {
            "input_tokens": self.tokens - 1,
            "input_tokens_details": None,
            "output_tokens": 1,
            "output_tokens_details": None,
            "total_tokens": self.tokens,
        }
        done = {"id": f"resp_{index}", "usage": usage}
        return out + sse_event("response.completed", response=done)


class Stub(Protocol):
    """A scripted model API: its answer (content type and body) to a POST on `path`."""

    port: int

    def respond(self, path: str, body: dict[str, Any]) -> tuple[str, bytes]: ...


S = TypeVar("S", bound=Stub)


@contextmanager
def serving(stub: S) -> Iterator[S]:
    """The stub on a free local port for the block."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:  # model lists and the like: none here
            self.send_response(404)
            self.end_headers()

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            kind, out = stub.respond(self.path, body)
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    stub.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()


def codex_exec(
    binary: Path,
    project: Path,
    codex_home: Path,
    stub: ResponsesStub,
    prompt: str,
    flags: Sequence[str] = (),
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """`codex exec` in `project` against the serving stub, with the Codex row's own switches
    (`harness/products/shipped/codex.py`) and its CODEX_HOME in `codex_home`; `flags` go before the
    prompt (`--trust`, `--dangerously-bypass-hook-trust`)."""
    provider = (
        f'{{name="stub", base_url="http://127.0.0.1:{stub.port}/v1", env_key="OPENAI_API_KEY", '
        'wire_api="responses", stream_max_retries=0, request_max_retries=0}'
    )
    config = {**CODEX.config, "model_provider": '"stub"', "model_providers.stub": provider}
    command = [
        str(binary),
        "exec",
        "--skip-git-repo-check",
        "--color",
        "never",
        "--model",
        CODEX.model_config_id,
        "--sandbox",
        "danger-full-access",
        *(arg for key, value in config.items() for arg in ("-c", f"{key}={value}")),
        *flags,
        prompt,
    ]
    codex_home.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        command,
        cwd=project,
        env={
            **os.environ,
            **(env or {}),
            "CODEX_HOME": str(codex_home),
            "OPENAI_API_KEY": "stub",
            "RUST_LOG": "warning",
        },
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
