"""A local stand-in for an OpenAI-compatible chat completions API that plays a script, and
`opencode run` pointed at it: the real OpenCode binary, run outside any benchmark, with no network
but this server (a provider of its own `opencode.json`, `@ai-sdk/openai-compatible`, which the
binary carries).

Each request gets the next turn of the script (`responses_stub`'s `Call` and `Say`), streamed as
chat completion chunks; past the script's end it answers a final message. Every request body is
kept, so a test reads exactly what the product sent the model.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.agents.binaries import tool
from harness.products.catalog import PRODUCTS
from harness.products.cli_runner import config_tree
from harness.products.shipped import opencode
from harness.products.shipped.opencode import seed_plugin_sdk
from tests.hooks.responses_stub import Call, Say, Scripted, sse_event

OPENCODE = PRODUCTS["cli/opencode"]
#: the provider and model `opencode run` is told to use (the stub answers whatever the id)
MODEL = "stub/scripted"


def _chunk(index: int, delta: dict[str, Any], finish: str | None, tokens: int = 1) -> bytes:
    body: dict[str, Any] = {
        "id": f"chat_{index}",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "scripted",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    if finish is not None:
        usage = {"prompt_tokens": tokens, "completion_tokens": 1, "total_tokens": tokens + 1}
        body["usage"] = usage
    return f"data: {json.dumps(body)}\n\n".encode()


@dataclass
class ChatStub(Scripted):
    """The server (see the module docstring)."""

    #: the prompt tokens the responses report, in order (1 past these); past the model's
    #: context, OpenCode compacts
    tokens: Sequence[int] = ()

    def answer(self, body: dict[str, Any]) -> bytes:
        index, turn = self.next_turn(body)
        out = b""
        calls = [step for step in turn if isinstance(step, Call)]
        for step in turn:
            if isinstance(step, Say):
                out += _chunk(index, {"role": "assistant", "content": step.text}, None)
        for position, call in enumerate(calls):
            function = {"name": call.name, "arguments": json.dumps(call.arguments)}
            delta = {"index": position, "id": f"call_{index}_{position}", "type": "function",
                     "function": function}  # fmt: skip
            out += _chunk(index, {"role": "assistant", "tool_calls": [delta]}, None)
        tokens = self.tokens[index] if index < len(self.tokens) else 1
        out += _chunk(index, {}, "tool_calls" if calls else "stop", tokens)
        return out + b"data: [DONE]\n\n"


@dataclass
class AnthropicStub(Scripted):
    """The same script as Anthropic's Messages API streams it (`@ai-sdk/anthropic`, which the
    binary carries too): each text and each call a content block of its own, a text's block
    ended before the calls that follow it, as the board's provider (through inspect's bridge)
    sends them; OpenCode then reads a text's end before it knows whether calls follow."""

    def answer(self, body: dict[str, Any]) -> bytes:
        index, turn = self.next_turn(body)
        usage = {"input_tokens": 1, "output_tokens": 1}
        message = {"id": f"msg_{index}", "type": "message", "role": "assistant",
                   "model": "scripted", "content": [], "usage": usage}  # fmt: skip
        out = sse_event("message_start", message=message)
        for position, step in enumerate(turn):
            if isinstance(step, Say):
                block: dict[str, Any] = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": step.text}
            else:
                block = {"type": "tool_use", "id": f"toolu_{index}_{position}",
                         "name": step.name, "input": {}}  # fmt: skip
                delta = {"type": "input_json_delta", "partial_json": json.dumps(step.arguments)}
            out += sse_event("content_block_start", index=position, content_block=block)
            out += sse_event("content_block_delta", index=position, delta=delta)
            out += sse_event("content_block_stop", index=position)
        calls = any(isinstance(step, Call) for step in turn)
        stop = {"stop_reason": "tool_use" if calls else "end_turn", "stop_sequence": None}
        out += sse_event("message_delta", delta=stop, usage={"output_tokens": 1})
        return out + sse_event("message_stop")


def config(stub: Scripted) -> dict[str, Any]:
    """OpenCode's inline config: the OpenCode row's own keys and the stub as a provider."""
    npm = "@ai-sdk/anthropic" if isinstance(stub, AnthropicStub) else "@ai-sdk/openai-compatible"
    provider = {
        "npm": npm,
        "name": "stub",
        "options": {"baseURL": f"http://127.0.0.1:{stub.port}/v1", "apiKey": "stub"},
        "models": {
            MODEL.split("/")[1]: {
                "name": "scripted",
                "tool_call": True,
                "limit": {"context": 200_000, "output": 8_000},
            }
        },
    }
    return {**config_tree(OPENCODE.config), "provider": {MODEL.split("/")[0]: provider}}


def opencode_run(
    binary: Path,
    project: Path,
    home: Path,
    stub: Scripted,
    prompt: str,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """`opencode run` in `project` against the serving stub, with the OpenCode row's switches
    (`harness/products/shipped/opencode.py`) and its XDG folders in `home`, as inspect-swe runs it
    (`--format json`, permissions skipped, a title so no title request is made). Its config
    folders get the plugin SDK listed as installed (`seed_plugin_sdk`), as a folder OpenCode
    has started in once has it."""
    rg = tool("rg")
    path = os.pathsep.join([*([str(Path(rg).parent)] if rg else []), os.environ.get("PATH", "")])
    command = [str(binary), "run", "--model", MODEL, "--format", "json", "--title=stub",
               "--dangerously-skip-permissions", prompt]  # fmt: skip
    # both config folders with the plugin SDK listed, so OpenCode tries no npm install at start
    for folder in (opencode.config_folder(home), project / opencode.OWN_FOLDER):
        seed_plugin_sdk(folder, OPENCODE)
    return subprocess.run(
        command,
        cwd=project,
        env={
            **os.environ,
            **OPENCODE.env,
            **opencode.dirs(home),
            **(env or {}),
            "HOME": str(home),
            # `opencode run` takes its folder from $PWD before its working directory
            "PWD": str(project),
            "PATH": path,
            "OPENCODE_CONFIG_CONTENT": json.dumps(config(stub)),
        },
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
