"""The real-provider path, offline: inspect's openai-api provider against a loopback stub server
that returns tool calls, malformed tool calls and plain text; each must land in the right metric."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval

from harness.episode.record import EpisodeRecord
from harness.run.task import build_task

pytestmark = pytest.mark.slow

PLAN = [
    {"id": "1", "text": "List the workspace files", "status": "in_progress"},
    {"id": "2", "text": "Create the Excel workbook", "status": "pending"},
    {"id": "3", "text": "Save it as exports/1.xlsx", "status": "pending"},
]


def tool_call(name: str, arguments: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call_{name}",
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            }
        ],
    }


FAKE = '```json\n{"name": "create_excel", "arguments": {"path": "exports/1.xlsx"}}\n```'
REPLIES: list[dict[str, Any]] = [
    tool_call("todo", json.dumps({"items": PLAN})),
    tool_call("list_files", "{not json"),  # malformed arguments
    tool_call("launch_rocket", "{}"),  # unknown tool
    tool_call("list_files", "{}"),
    {
        "role": "assistant",  # a call written as text
        "content": FAKE,
    },
    {"role": "assistant", "content": "All done."},  # reached only when the fake call is recovered
]


class Stub(BaseHTTPRequestHandler):
    requests: list[dict[str, Any]] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Stub.requests.append(body)
        index = min(len(Stub.requests) - 1, len(REPLIES) - 1)
        reply = {
            "id": f"r{len(Stub.requests)}",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": REPLIES[index],
                    "finish_reason": "tool_calls" if "tool_calls" in REPLIES[index] else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": 100 + len(Stub.requests),
                "completion_tokens": 7,
                "total_tokens": 107 + len(Stub.requests),
                # a prompt-cache hit: still input the model read
                "prompt_tokens_details": {"cached_tokens": 60},
            },
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def stub_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Stub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    Stub.requests = []
    monkeypatch.setenv("STUB_BASE_URL", f"http://127.0.0.1:{server.server_address[1]}/v1")
    monkeypatch.setenv("STUB_API_KEY", "test")
    yield "openai-api/stub/tiny"
    server.shutdown()


def test_provider_path_maps_replies_to_metrics(stub_server: str, tmp_path: Path) -> None:
    logs = eval(
        build_task("L0-rewrite", scenarios="excel_export"),
        model=stub_server,
        display="none",
        log_dir=str(tmp_path),
        max_retries=1,
        timeout=30,
    )
    assert logs[0].status == "success", logs[0].error
    sample = logs[0].samples[0]  # type: ignore[index]
    value = sample.scores["todo_scorer"].value  # type: ignore[index]
    assert isinstance(value, dict)
    assert value["todo_tool_calls"] == 1 and value["rejected_updates"] == 0
    assert value["malformed_tool_calls"] == 2
    assert value["fake_tool_calls"] == 1
    assert value["false_completion"] == 1 and value["task_success"] == 0
    assert value["turns"] == 5
    assert value["input_tokens"] == sum(100 + i for i in range(1, 6))
    assert value["output_tokens"] == 35
    # the tools went over the wire as real function definitions
    names = {t["function"]["name"] for t in Stub.requests[0]["tools"]}
    assert {"todo", "list_files", "create_excel"} <= names


def test_recover_provider_turns_text_calls_into_real_ones(stub_server: str, tmp_path: Path) -> None:
    logs = eval(
        build_task("L0-rewrite", scenarios="excel_export"),
        model=f"recover/{stub_server}",
        display="none",
        log_dir=str(tmp_path),
        max_retries=1,
        timeout=30,
    )
    assert logs[0].status == "success", logs[0].error
    value = logs[0].samples[0].scores["todo_scorer"].value  # type: ignore[index]
    assert isinstance(value, dict)
    assert value["recovered_tool_calls"] == 1 and value["fake_tool_calls"] == 0
    # native calls pass through untouched; malformed ones are still malformed
    assert value["todo_tool_calls"] == 1 and value["malformed_tool_calls"] == 2
    assert value["turns"] == 6 and value["false_completion"] == 1
    # the recovered call went back to the server as a real call with a real result
    history = Stub.requests[5]["messages"]
    sent = [m for m in history if m["role"] == "assistant" and m.get("tool_calls")]
    assert sent[-1]["tool_calls"][0]["function"]["name"] == "create_excel"
    assert history[-1]["role"] == "tool"


def nest(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = [value]
    return value


def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


HOSTILE: list[dict[str, Any]] = [
    {
        "role": "assistant",
        "content": "Working \ud800",
        "tool_calls": [
            call("c1", "write_file", {"path": "notes.md", "content": nest(300)}),
            call(
                "c2", "todo", {"items": [{"id": "1", "text": "List \ud800", "status": "pending"}]}
            ),
        ],
    },
    tool_call("create_excel", json.dumps({"path": "exports/1.xlsx", "from_workspace_files": True})),
    {"role": "assistant", "content": "All done."},
]


def test_a_deep_and_a_surrogate_argument_over_the_openai_wire_are_tool_errors(
    stub_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Arguments arrive as JSON text: inspect refuses the deep one itself (its bound of 100
    levels, applied as it parses); the surrogate one, and the surrogate in the reply's text,
    made the log unwritable before the reply guard."""
    monkeypatch.setattr(sys.modules[__name__], "REPLIES", HOSTILE)
    (log,) = eval(
        build_task("L0-rewrite", scenarios="excel_export"),
        # a name of its own: inspect keeps a model (and its client, bound to the port of an
        # earlier test's stub) per name
        model=f"{stub_server}-hostile",
        display="none",
        log_dir=str(tmp_path),
        max_retries=1,
        timeout=30,
    )
    assert log.status == "success", log.error
    sample = log.samples[0]  # type: ignore[index]
    value = sample.scores["todo_scorer"].value  # type: ignore[index]
    assert isinstance(value, dict)
    assert (value["task_success"], value["turns"], value["malformed_tool_calls"]) == (1, 3, 2)
    events = sample.store_as(EpisodeRecord).ledger_data()["events"]
    repairs = [
        (e["call_id"], e["tool"], e["surrogates"], e["cuts"])
        for e in events
        if e["kind"] == "repair"
    ]
    assert repairs == [("c2", "todo", 1, 0), ("", "", 1, 0)]
    # both went back as tool errors; the reply went back repaired
    history = Stub.requests[1]["messages"]
    results = {m["tool_call_id"]: m["content"] for m in history if m["role"] == "tool"}
    assert "maximum supported nesting depth" in json.dumps(results["c1"])
    assert "todo was not run" in json.dumps(results["c2"])
    (sent,) = [m for m in history if m["role"] == "assistant"]
    assert sent["content"] == "Working \ufffd"
    arguments = {c["id"]: json.loads(c["function"]["arguments"]) for c in sent["tool_calls"]}
    assert arguments["c2"]["items"][0]["text"] == "List \ufffd"
