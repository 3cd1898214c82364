"""Probe (issue #55): what the pinned OpenCode does with a project's plugin, from the binary
itself. No network: `opencode run` runs against a local stub of a chat completions API playing a
script (`tests/hooks/chat_stub.py`), with a logging plugin in the project's `.opencode/plugins/`.

    TODO_BENCH_AGENTS=/path/.agents .venv/bin/python scripts/probe_opencode_plugin.py

It reports:
1. the plugin hooks the binary names (`trigger("...")` in its embedded JS);
2. which of the logging plugin's hooks fire in a headless `opencode run`, in order, each with
   what it receives (tool name and arguments, session id);
3. what the model then reads of a throw in `tool.execute.before` (a todowrite of one item is
   refused), of text appended to `tool.execute.after`'s `output.output`, of a text part added in
   `chat.message`, and of text added in `experimental.chat.system.transform`;
4. the stop: whether a `client.session.promptAsync` sent at `session.idle` (the nearest thing to
   refusing a stop: OpenCode's loop asks no plugin before it ends) reaches the model before
   `opencode run` exits;
5. compaction: whether `experimental.session.compacting` fires when a response's usage passes
   the model's context limit, and whether its `context` reaches the summary request.

What 1.18.33 did is in docs/hooks.md ("OpenCode").
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.agents.binaries import binary  # noqa: E402
from harness.products.shipped import opencode  # noqa: E402
from tests.hooks.chat_stub import OPENCODE, ChatStub, opencode_run  # noqa: E402
from tests.hooks.responses_stub import Call, Say, Turn, serving  # noqa: E402

#: the logging plugin: every hook it registers writes what it got to the log; it refuses a
#: todowrite of one item, appends to each tool's output, adds a part to each user message and a
#: line to the system prompt, sends one prompt at the first idle, and adds compaction context
PLUGIN = """
import { appendFileSync } from "node:fs";
const LOG = process.env.PROBE_LOG;
const log = (hook, data) => appendFileSync(LOG, JSON.stringify({ hook, data }) + "\\n");
let prompted = false;
let blocked = false;
export const Probe = async ({ client }) => ({
  "tool.execute.before": async (input, output) => {
    log("tool.execute.before", { input, args: output.args });
    if (input.tool === "todowrite" && (output.args.todos || []).length === 1)
      throw new Error("PROBE-DENY");
  },
  "tool.execute.after": async (input, output) => {
    log("tool.execute.after", { input, keys: Object.keys(output), output: output.output });
    output.output = `${output.output}\\n\\nPROBE-CONTEXT`;
  },
  "chat.message": async (input, output) => {
    log("chat.message", { input, parts: output.parts.map((p) => ({ type: p.type, id: p.id })) });
    const last = output.parts.at(-1);
    output.parts.push({ ...last, id: `${last.id}z`, type: "text", text: "PROBE-USER",
                        synthetic: true });
  },
  "experimental.chat.system.transform": async (input, output) => {
    log("experimental.chat.system.transform", { input: { sessionID: input.sessionID } });
    output.system.push("PROBE-SYSTEM");
  },
  "experimental.session.compacting": async (input, output) => {
    log("experimental.session.compacting", { input, keys: Object.keys(output) });
    output.context.push("PROBE-COMPACT");
  },
  "experimental.text.complete": async (input, output) => {
    log("experimental.text.complete", { input, text: output.text });
    if (!blocked) {
      blocked = true;
      // a user message added while the final step runs: the loop's exit test (the last
      // assistant message answers the last user message) then fails, and it goes on
      const sent = await client.session.prompt({
        path: { id: input.sessionID },
        body: { noReply: true, parts: [{ type: "text", text: "PROBE-BLOCK" }] },
      }).catch((error) => ({ error: String(error) }));
      log("prompt-noReply", { status: sent.response?.status, error: sent.error ?? null });
    }
  },
  event: async ({ event }) => {
    if (!["session.idle", "session.status", "session.compacted", "session.error"]
        .includes(event.type)) return;
    log("event", { type: event.type, properties: event.properties });
    if (event.type === "session.idle" && !prompted) {
      prompted = true;
      const sent = await client.session.promptAsync({
        path: { id: event.properties.sessionID },
        body: { parts: [{ type: "text", text: "PROBE-IDLE" }] },
      }).catch((error) => ({ error: String(error) }));
      log("promptAsync", { status: sent.response?.status, error: sent.error ?? null });
    }
  },
});
"""


def _todos(*rows: tuple[str, str]) -> dict[str, Any]:
    dialect = opencode.TODOWRITE
    return {dialect.key: [{dialect.text: t, "status": s, **dict(dialect.fixed)} for t, s in rows]}


SCRIPT: list[Turn] = [
    [
        Call(
            opencode.TODOWRITE.tool,
            _todos(("Write a.md", "in_progress"), ("Write b.md", "pending")),
        )
    ],
    [Call(opencode.SHELL.tool, {opencode.SHELL.command: "echo a > a.md", "description": "write"})],
    [Call(opencode.TODOWRITE.tool, _todos(("Write a.md", "completed")))],
    [Say("All tasks are complete.")],
    [Say("All tasks are complete, again.")],
]


def hooks_named(path: Path) -> list[str]:
    """The plugin hooks the binary's embedded JS triggers."""
    names = re.findall(rb'trigger\("([a-zA-Z.]+)"', path.read_bytes())
    return sorted({n.decode() for n in names})


def run(
    tmp: Path, script: list[Turn], tokens: tuple[int, ...] = ()
) -> tuple[list[dict[str, Any]], ChatStub, str]:
    """One `opencode run` with the logging plugin in the project."""
    case = Path(tempfile.mkdtemp(dir=tmp))
    project, home, log = case / "project", case / "home", case / "log.jsonl"
    plugins = project / opencode.ROWS[0].extension.config
    plugins.mkdir(parents=True)
    (plugins / "probe.js").write_text(PLUGIN, encoding="utf-8")
    stub = ChatStub(script, tokens=tokens)
    with serving(stub):
        done = opencode_run(binary(OPENCODE), project, home, stub, "Write a.md and b.md",
                            {"PROBE_LOG": str(log)})  # fmt: skip
    entries = (
        [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
        if log.is_file()
        else []
    )
    return entries, stub, done.stderr[-3000:] + done.stdout[-3000:]


def _seen(stub: ChatStub, needle: str) -> list[str]:
    """Where the model was sent `needle`: request index, the message's role, its text."""
    out = []
    for index, request in enumerate(stub.requests):
        for message in request.get("messages", []):
            text = json.dumps(message)
            if needle in text:
                out.append(f"request {index}: {message.get('role')}: {text[:300]}")
                break
    return out


def main() -> int:
    path = binary(OPENCODE)
    print(f"# OpenCode {OPENCODE.version} plugins ({path})\n")
    print(f"## Plugin hooks the binary triggers\n\n{', '.join(hooks_named(path))}\n")
    with tempfile.TemporaryDirectory() as folder:
        log, stub, out = run(Path(folder), SCRIPT)
        print("## What fired in `opencode run`, in order\n")
        for entry in log:
            print(f"- {entry['hook']}: {json.dumps(entry['data'])[:400]}")
        print("\n## What the model reads\n")
        for needle in ("PROBE-DENY", "PROBE-CONTEXT", "PROBE-USER", "PROBE-SYSTEM",
                       "PROBE-BLOCK", "PROBE-IDLE"):  # fmt: skip
            print(f"- {needle}: {(_seen(stub, needle) or ['never sent'])[0]}")
        print(f"- requests: {len(stub.requests)}")
        for index, request in enumerate(stub.requests):
            last = json.dumps(request["messages"][-1])
            print(f"  - request {index}: {len(request['messages'])} messages, last {last[:300]}")
        print("\n## Compaction (usage past the model's context)\n")
        compacting: list[Turn] = [
            [Call(opencode.TODOWRITE.tool, _todos(("Write a.md", "in_progress")))],
            [Say("Summary: a.md is in progress.")],
            [Say("All done.")],
        ]
        log, stub, out = run(Path(folder), compacting, tokens=(1_000_000,))
        print(f"- hooks: {[e['hook'] for e in log if e['hook'] != 'event']}")
        events = [e["data"]["type"] for e in log if e["hook"] == "event"]
        print(f"- events: {sorted(set(events))}")
        print(f"- PROBE-COMPACT: {(_seen(stub, 'PROBE-COMPACT') or ['never sent'])[0]}")
        print(f"- requests: {len(stub.requests)}")
        for index, request in enumerate(stub.requests):
            last = json.dumps(request["messages"][-1])
            print(f"  - request {index}: {len(request['messages'])} messages, last {last[:300]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
