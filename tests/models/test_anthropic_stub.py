"""The Anthropic path, offline: inspect's anthropic provider against a loopback stub of the
Messages API, with parallel tool use, a tool error, prompt-cache usage, a 429 and a 529."""

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
from inspect_ai.model import GenerateConfig, get_model

from harness.episode.record import EpisodeRecord
from harness.episode.reply_guard import CUT, MAX_DEPTH
from harness.results.run_logs import read_run
from harness.results.summary import price_for
from harness.run.task import build_task
from harness.stats.aggregate import summarize

pytestmark = pytest.mark.slow
PLAN = [
    {"id": "1", "text": "List the workspace files", "status": "in_progress"},
    {"id": "2", "text": "Create the Excel workbook", "status": "pending"},
    {"id": "3", "text": "Save it as exports/1.xlsx", "status": "pending"},
]


def use(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": args}


# (status, body): errors first where the test wants a retry
SCRIPT: list[tuple[int, dict[str, Any]]] = [
    (429, {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}),
    (200, {"content": [use("t1", "todo", {"items": PLAN}), use("t2", "list_files", {})]}),
    (200, {"content": [use("t3", "create_excel", {"path": "../out.xlsx", "rows": [["a"]]})]}),
    (529, {"type": "error", "error": {"type": "overloaded_error", "message": "overloaded"}}),
    (
        200,
        {
            "content": [
                use("t4", "create_excel", {"path": "exports/1.xlsx", "from_workspace_files": True})
            ]
        },
    ),
    (200, {"content": [{"type": "text", "text": "All done: exports/1.xlsx lists every file."}]}),
]


class Stub(BaseHTTPRequestHandler):
    requests: list[dict[str, Any]] = []
    served = 0

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Stub.requests.append(body)
        status, payload = SCRIPT[min(Stub.served, len(SCRIPT) - 1)]
        Stub.served += 1
        if status == 200:
            uses_tools = any(b["type"] == "tool_use" for b in payload["content"])
            payload = {
                "id": f"msg_{Stub.served}",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "stop_reason": "tool_use" if uses_tools else "end_turn",
                "stop_sequence": None,
                **payload,
                "usage": {
                    "input_tokens": 100,
                    "output_tokens": 10,
                    "cache_creation_input_tokens": 20,
                    "cache_read_input_tokens": 50,
                },
            }
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("retry-after", "0")
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Stub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    Stub.requests, Stub.served = [], 0
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{server.server_address[1]}")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test")
    yield
    server.shutdown()


def test_a_full_episode_over_the_anthropic_wire(stub: None, tmp_path: Path) -> None:
    model = get_model(
        "anthropic/claude-sonnet-4-5",
        config=GenerateConfig(max_tokens=1024, max_retries=3, timeout=30),
        streaming=False,
    )
    (log,) = eval(
        build_task("L0-rewrite", scenarios="excel_export"),
        model=model,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success", log.error
    assert Stub.served == 6  # both errors were retried within the bound
    value = log.samples[0].scores["todo_scorer"].value  # type: ignore[index]
    assert isinstance(value, dict)
    assert (value["task_success"], value["false_completion"], value["turns"]) == (1, 0, 4)
    assert (value["todo_tool_calls"], value["malformed_tool_calls"]) == (1, 0)
    # every prompt token counts, cache reads and writes included; cache reads apart
    assert value["input_tokens"] == 4 * (100 + 20 + 50)
    assert value["cache_read_tokens"] == 4 * 50 and value["output_tokens"] == 40
    # the refused path went back as a tool error, the parallel calls as two results
    third = Stub.requests[3]["messages"]
    results = [b for m in third if m["role"] == "user" for b in m["content"] if isinstance(b, dict)]
    errors = [b for b in results if b.get("type") == "tool_result" and b.get("is_error")]
    assert len(errors) == 1 and "leaves the workspace" in json.dumps(errors[0])
    second = Stub.requests[2]["messages"]
    assert (
        sum(
            1
            for m in second
            for b in m["content"]
            if isinstance(b, dict) and b.get("type") == "tool_result"
        )
        == 2
    )
    # cost at the price table's rates, cache reads at the cache rate
    price = price_for("anthropic/claude-sonnet-4-5")
    assert price is not None and price.cache_read == 0.3
    summary = summarize(read_run(tmp_path)[0], price=price)
    cost = summary.variants[0].cost_usd
    expected = (4 * 120 * 3.0 + 4 * 50 * 0.3 + 40 * 15.0) / 1e6
    assert cost is not None and round(cost.mean, 9) == round(expected, 9)


def nest(levels: int, leaf: Any = "x") -> Any:
    value = leaf
    for _ in range(levels):
        value = [value]
    return value


HOSTILE: list[tuple[int, dict[str, Any]]] = [
    (
        200,
        {
            "content": [
                {"type": "text", "text": "Working \ud800"},
                use("t1", "write_file", {"path": "notes.md", "content": nest(300)}),
                use(
                    "t2",
                    "todo",
                    {"items": [{"id": "1", "text": "List \ud800", "status": "pending"}]},
                ),
            ]
        },
    ),
    (
        200,
        {
            "content": [
                use("t3", "create_excel", {"path": "exports/1.xlsx", "from_workspace_files": True})
            ]
        },
    ),
    (200, {"content": [{"type": "text", "text": "All done."}]}),
]


def test_a_deep_and_a_surrogate_argument_over_the_anthropic_wire_are_tool_errors(
    stub: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sent as JSON escapes (`\\ud800`): before the reply guard, the provider failed to record
    the deep reply (`Maximum serialization depth exceeded`) and the log could not be written."""
    monkeypatch.setattr(sys.modules[__name__], "SCRIPT", HOSTILE)
    model = get_model(
        "anthropic/claude-sonnet-4-5",
        config=GenerateConfig(max_tokens=1024, max_retries=1, timeout=30),
        streaming=False,
        memoize=False,  # a client of its own, bound to this test's stub
    )
    (log,) = eval(
        build_task("L0-rewrite", scenarios="excel_export"),
        model=model,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success", log.error
    assert Stub.served == 3
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
    assert repairs == [("t1", "write_file", 0, 1), ("t2", "todo", 1, 0), ("", "", 1, 0)]
    # the model got both refusals as tool errors, and its own reply back repaired
    second = Stub.requests[1]["messages"]
    results = {
        b["tool_use_id"]: b
        for m in second
        if m["role"] == "user"
        for b in m["content"]
        if isinstance(b, dict) and b.get("type") == "tool_result"
    }
    assert results["t1"]["is_error"] and "write_file was not run" in json.dumps(results["t1"])
    assert results["t2"]["is_error"] and "todo was not run" in json.dumps(results["t2"])
    (sent,) = [m for m in second if m["role"] == "assistant"]
    blocks = {b.get("id", b["type"]): b for b in sent["content"]}
    assert blocks["text"]["text"] == "Working \ufffd"
    assert blocks["t2"]["input"]["items"][0]["text"] == "List \ufffd"
    assert blocks["t1"]["input"]["content"] == nest(MAX_DEPTH - 1, CUT)  # cut past the bound
