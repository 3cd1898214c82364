"""A local stand-in for the Gemini API (`generateContent`) that plays a script, and `gemini -p`
pointed at it through its own base-URL variable (`GOOGLE_GEMINI_BASE_URL`, which the pinned
0.61.0 honours for a local http address): the real Gemini CLI, run outside any benchmark, with
no network but this server.

A request that offers tools (the agent's turn) gets the next turn of the script (function calls
and text), streamed as Gemini CLI reads `streamGenerateContent?alt=sse`; past the script's end
a final message. A request without tools is one of the CLI's side requests (its next-speaker
check, its compression summary): it gets `side`, kept apart in `side_requests`. Every agent
request body is kept in `requests`, so a test reads exactly what the product sent the model.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.products.catalog import PRODUCTS
from tests.hooks.responses_stub import Call, Say, Turn

GEMINI = PRODUCTS["cli/gemini-cli"]


def _part(step: Call | Say) -> dict[str, Any]:
    if isinstance(step, Call):
        return {"functionCall": {"name": step.name, "args": step.arguments}}
    return {"text": step.text}


@dataclass
class GeminiStub:
    """The server's script and what it was sent (see the module docstring)."""

    turns: Sequence[Turn]
    last: str = "Done."
    #: the prompt tokens each agent answer reports (a large number makes Gemini CLI compress)
    tokens: int = 10
    #: the text of a side request's answer
    side: str = '{"reasoning": "The task is finished.", "next_speaker": "user"}'
    requests: list[dict[str, Any]] = field(default_factory=list)
    side_requests: list[dict[str, Any]] = field(default_factory=list)
    port: int = 0

    def _answer(self, parts: list[dict[str, Any]], tokens: int) -> dict[str, Any]:
        return {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": tokens,
                "candidatesTokenCount": 1,
                "totalTokenCount": tokens + 1,
            },
        }

    def respond(self, path: str, body: dict[str, Any]) -> tuple[str, bytes]:
        if ":countTokens" in path:
            return "application/json", json.dumps({"totalTokens": self.tokens}).encode()
        if body.get("tools"):
            index = len(self.requests)
            self.requests.append(body)
            turn = self.turns[index] if index < len(self.turns) else [Say(self.last)]
            answer = self._answer([_part(step) for step in turn], self.tokens)
        else:
            self.side_requests.append(body)
            answer = self._answer([{"text": self.side}], 10)
        if "alt=sse" in path:
            return "text/event-stream", f"data: {json.dumps(answer)}\n\n".encode()
        return "application/json", json.dumps(answer).encode()


def contents_text(request: dict[str, Any]) -> list[tuple[str, str]]:
    """A request's history as (role, JSON of the part), in order."""
    return [
        (str(content.get("role")), json.dumps(part))
        for content in request.get("contents", [])
        for part in content.get("parts", [])
    ]


def gemini_run(
    binary: Path,
    project: Path,
    home: Path,
    stub: GeminiStub,
    prompt: str,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """`gemini -p PROMPT --yolo` in `project` against the serving stub, with the Gemini row's
    own switches (`harness/products/shipped/gemini_cli.py`) in the user settings of HOME `home` (a
    system settings file under /tmp is skipped: its parent is writable by others); the folder
    trusted as a headless user trusts it (`GEMINI_CLI_TRUST_WORKSPACE=true`, unless `env` says
    otherwise)."""
    user = home / ".gemini" / "settings.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    settings: dict[str, Any] = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
    for key, value in GEMINI.config.items():
        *parents, leaf = key.split(".")
        place = settings
        for name in parents:
            place = place.setdefault(name, {})
        place[leaf] = json.loads(value)
    user.write_text(json.dumps(settings), encoding="utf-8")
    command = ["node", str(binary), "--model", GEMINI.model_config_id, "--output-format", "text",
               "--yolo", "-p", prompt]  # fmt: skip
    return subprocess.run(
        command,
        cwd=project,
        env={
            **os.environ,
            "HOME": str(home),
            "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{stub.port}",
            "GEMINI_API_KEY": "stub",
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
            "GEMINI_CLI_NO_RELAUNCH": "true",
            **(env or {}),
        },
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
