"""Opt-in: a real model on a local llama.cpp server (`pytest -m realmodel`, TODO_BENCH_REAL=1).

Uses the GGUF and the llama-server that scripts/local_model.sh assembles and builds
(LLAMA_SERVER overrides the server binary).
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai import eval

from harness.run.task import build_task
from tests.helpers import ROOT

pytestmark = pytest.mark.realmodel
GGUF = ROOT / ".local-llm" / "models" / "qwen2.5-coder-0.5b-q4_k_m.gguf"
SERVER = Path(
    os.environ.get("LLAMA_SERVER", ROOT / ".local-llm" / "build-portable" / "bin" / "llama-server")
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if os.environ.get("TODO_BENCH_REAL") != "1":
        pytest.skip("set TODO_BENCH_REAL=1 (and run scripts/local_model.sh once) to run")
    if not GGUF.exists() or not SERVER.exists():
        pytest.skip(f"needs {GGUF} and {SERVER}: run scripts/local_model.sh first")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log_path = tmp_path_factory.mktemp("server") / "server.log"
    log = log_path.open("w")
    process = subprocess.Popen(
        [
            str(SERVER),
            "-m",
            str(GGUF),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--jinja",
            "-c",
            "8192",
            "-np",
            "1",
            "--alias",
            "qwen0.5b",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2)
                break
            except OSError:
                time.sleep(1)
        _answers_a_first_request(base)
        cache = SERVER.parent.parent / "CMakeCache.txt"
        flags = re.findall(
            r"^GGML_(?:NATIVE|AVX|AVX2|AVX512|FMA|F16C):BOOL=\w+",
            cache.read_text() if cache.is_file() else "",
            re.M,
        )
        print(f"llama-server built for: {' '.join(flags) or 'unknown (no CMakeCache.txt)'}")
        os.environ["LOCAL_BASE_URL"], os.environ["LOCAL_API_KEY"] = base, "none"
        yield "recover/openai-api/local/qwen0.5b"
    finally:
        process.terminate()
        process.wait(timeout=30)


def _answers_a_first_request(base: str) -> None:
    """/health passes before the model has run; a build for the wrong CPU dies only now."""
    request = urllib.request.Request(
        f"{base}/chat/completions",
        data=json.dumps(
            {"messages": [{"role": "user", "content": "Say ok."}], "max_tokens": 4}
        ).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=300) as reply:
        assert json.load(reply)["choices"], "the server answered without a choice"


def test_one_scenario_end_to_end(server: str, tmp_path: Path) -> None:
    logs = eval(
        # bounded like scripts/local_model.sh: a few minutes on 2 cores
        build_task("L0-rewrite", scenarios="excel_export", max_turns=4),
        model=server,
        max_tokens=512,
        display="none",
        log_dir=str(tmp_path),
        max_retries=1,
        timeout=600,
    )
    assert logs[0].status == "success"
    sample = logs[0].samples[0]  # type: ignore[index]
    usage = sample.model_usage[server]
    assert usage.output_tokens > 0
    value = sample.scores["todo_scorer"].value  # type: ignore[index]
    assert isinstance(value, dict) and value["turns"] >= 1 and value["input_tokens"] > 100
    # the GGUF's own template plus recovery: this model makes real calls
    assert value["recovered_tool_calls"] >= 1
