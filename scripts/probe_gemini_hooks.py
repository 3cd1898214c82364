"""Probe (issue #55): what the pinned Gemini CLI does with hooks, from the binary itself. No
network: `gemini -p ... --yolo` runs against a local stub of the Gemini API playing a script
(`tests/hooks/gemini_stub.py`, reached through `GOOGLE_GEMINI_BASE_URL`), with a logging hook at
every event in the project's `.gemini/settings.json`.

    TODO_BENCH_AGENTS=/path/.agents .venv/bin/python scripts/probe_gemini_hooks.py  # about 20 s

It reports:
1. the hook events the bundle declares (its `HookEventName` enum) and the documented output
   fields it reads per event (its `*HookOutput` classes), from the pinned bundle's own code;
2. which hooks fire in headless mode, with the folder trusted (`GEMINI_CLI_TRUST_WORKSPACE=
   true`, as `--skip-trust` sets it), with no trust setting, and with the folder untrusted;
3. each event's input (write_todos included?), and what the model then reads of a BeforeTool
   `decision: deny`, an AfterTool `additionalContext`, a BeforeAgent `additionalContext` and an
   AfterAgent `decision: deny`; and whether Claude Code's wire (`permissionDecision: deny`) is
   honoured too;
4. compression: which events fire when the stub reports a prompt past the compression
   threshold (half the model's window).

Found with 0.61.0 (recorded in harness/products/shipped/gemini_cli.py, docs/hooks.md).
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.agents.binaries import binary  # noqa: E402
from harness.products.shipped import gemini_cli  # noqa: E402
from tests.hooks.gemini_stub import GEMINI, GeminiStub, contents_text, gemini_run  # noqa: E402
from tests.hooks.responses_stub import Call, Say, Turn, serving  # noqa: E402

#: the logging hook: it writes each event's input to the log, denies a write_todos of one item
#: (in Gemini's wire, or in Claude Code's with `claude` as its third argument), adds context
#: after each tool call and with each prompt, and refuses the first AfterAgent of a chain
HOOK = textwrap.dedent(
    """
    import json, sys
    event, log, wire = sys.argv[1], sys.argv[2], sys.argv[3]
    raw = sys.stdin.read()
    data = json.loads(raw) if raw.strip() else {}
    with open(log, "a") as handle:
        handle.write(json.dumps({"event": event, "input": data}) + "\\n")
    answer = None
    todos = (data.get("tool_input") or {}).get("todos") if event == "BeforeTool" else None
    if isinstance(todos, list) and len(todos) == 1:
        answer = ({"decision": "deny", "reason": "PROBE-DENY"} if wire == "gemini" else
                  {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                   "permissionDecision": "deny", "permissionDecisionReason": "PROBE-DENY"}})
    elif event == "AfterTool":
        answer = {"hookSpecificOutput": {"additionalContext": "PROBE-CONTEXT"}}
    elif event == "BeforeAgent":
        answer = {"hookSpecificOutput": {"additionalContext": "PROBE-PROMPT"}}
    elif event == "SessionStart":
        answer = {"hookSpecificOutput": {"additionalContext": "PROBE-START"}}
    elif event == "AfterAgent" and not data.get("stop_hook_active"):
        answer = {"decision": "deny", "reason": "PROBE-BLOCK <b>"}
    if answer:
        print(json.dumps(answer))
    """
)

TODOS = gemini_cli.WRITE_TODOS


def _todos(*rows: tuple[str, str]) -> dict[str, Any]:
    return {TODOS.key: [{TODOS.text: t, "status": s} for t, s in rows]}


SCRIPT: list[Turn] = [
    [Call(TODOS.tool, _todos(("Write a.md", "in_progress"), ("Write b.md", "pending")))],
    [Call(gemini_cli.SHELL.tool, {gemini_cli.SHELL.command: "echo a > a.md"})],
    [Call(TODOS.tool, _todos(("Write a.md", "completed")))],
    [Say("All tasks are complete.")],
    [Say("All tasks are complete, again.")],
]


def declared(bundle: Path) -> tuple[list[str], dict[str, list[str]]]:
    """The bundle's hook events (its `HookEventName` enum), and per output class the
    `hookSpecificOutput` keys it reads."""
    events: list[str] = []
    outputs: dict[str, list[str]] = {}
    for path in sorted(bundle.glob("chunk-*.js")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "var HookEventName = " not in text:
            continue
        enum = text.split("var HookEventName = ", 1)[1].split("})(HookEventName", 1)[0]
        events = re.findall(r'HookEventName2\["(\w+)"\]', enum)
        for match in re.finditer(r"var (\w+HookOutput) = class[^{]*\{(.*?)\n\};", text, re.S):
            keys = sorted(set(re.findall(r'hookSpecificOutput\["(\w+)"\]', match.group(2))))
            outputs[match.group(1)] = keys
        break
    return events, outputs


def _settings(project: Path, log: Path, hook: Path, events: list[str], wire: str) -> None:
    groups = {
        event: [
            {
                **({"matcher": "*"} if "Tool" in event else {}),
                "hooks": [
                    {
                        "type": "command",
                        "timeout": 30_000,
                        "command": f"{sys.executable} {hook} {event} {log} {wire}",
                    }
                ],
            }  # fmt: skip
        ]
        for event in events
    }
    own = project / gemini_cli.OWN_FOLDER
    own.mkdir(parents=True)
    (own / "settings.json").write_text(json.dumps({"hooks": groups}), encoding="utf-8")


def run(
    tmp: Path, events: list[str], script: list[Turn], env: dict[str, str], wire: str = "gemini",
    tokens: int = 10,
) -> tuple[list[dict[str, Any]], GeminiStub, str]:  # fmt: skip
    """One `gemini -p` with the logging hook in the project."""
    case = Path(tempfile.mkdtemp(dir=tmp))
    project, log, hook = case / "project", case / "log.jsonl", case / "h.py"
    project.mkdir()
    hook.write_text(HOOK, encoding="utf-8")
    _settings(project, log, hook, events, wire)
    stub = GeminiStub(script, tokens=tokens)
    with serving(stub):
        done = gemini_run(binary(GEMINI), project, case / "home", stub, "Write a.md and b.md", env)
    lines = log.read_text(encoding="utf-8").splitlines() if log.is_file() else []
    return [json.loads(line) for line in lines], stub, done.stderr + done.stdout


def _seen(stub: GeminiStub, needle: str) -> list[str]:
    """Where the model was first sent `needle`: the request, the role and the part."""
    for index, request in enumerate(stub.requests):
        for role, part in contents_text(request):
            if needle in part:
                return [f"request {index}: {role}: {part[:300]}"]
    return ["never sent"]


def main() -> int:
    gemini = binary(GEMINI)
    print(f"# Gemini CLI {GEMINI.version} hooks ({gemini})\n")
    events, outputs = declared(gemini.parent)
    print("## Hook events the bundle declares\n")
    print(f"- {', '.join(events)}")
    for name, keys in outputs.items():
        print(f"- {name} reads hookSpecificOutput {', '.join(keys) or '(none of its own)'}")

    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        print("\n## Which hooks fire in `gemini -p` (events logged)\n")
        runs = {}
        for label, env in (
            ("GEMINI_CLI_TRUST_WORKSPACE=true", {"GEMINI_CLI_TRUST_WORKSPACE": "true"}),
            ("no trust setting", {"GEMINI_CLI_TRUST_WORKSPACE": ""}),
            ("GEMINI_CLI_TRUST_WORKSPACE=false", {"GEMINI_CLI_TRUST_WORKSPACE": "false"}),
        ):
            log, stub, out = run(tmp, events, SCRIPT, env)
            runs[label] = (log, stub, out)
            print(f"- {label}: {len(log)} events {[e['event'] for e in log]}")
            if not stub.requests:  # it never reached the model: say why
                print(f"  (no model request; the CLI said: {out.strip().splitlines()[-1][:300]})")
        log, stub, out = runs["GEMINI_CLI_TRUST_WORKSPACE=true"]
        print("\n## Inputs (trusted folder)\n")
        for entry in log:
            shown = {k: v for k, v in entry["input"].items() if k not in ("llm_request",)}
            print(f"- {json.dumps(shown)[:500]}")
        print("\n## What the model reads\n")
        for needle in ("PROBE-DENY", "PROBE-CONTEXT", "PROBE-PROMPT", "PROBE-START", "PROBE-BLOCK"):
            print(f"- {needle}: {_seen(stub, needle)[0]}")
        print(f"- agent requests: {len(stub.requests)}, side requests: {len(stub.side_requests)}")

        print("\n## Claude Code's wire (permissionDecision: deny) at BeforeTool\n")
        log, stub, out = run(tmp, ["BeforeTool"], SCRIPT, {}, wire="claude")
        print(f"- PROBE-DENY: {_seen(stub, 'PROBE-DENY')[0]}")
        answers = [p for r, p in contents_text(stub.requests[3]) if "functionResponse" in p]
        print(f"- the dropping write_todos answered: {answers[-1][:300] if answers else None}")

        print("\n## Compression (prompt tokens past half the model's window)\n")
        compressing: list[Turn] = [
            [Call(TODOS.tool, _todos(("Write a.md", "in_progress")))],
            [Call(gemini_cli.SHELL.tool, {gemini_cli.SHELL.command: "true"})],
            [Say("All done.")],
        ]
        log, stub, out = run(tmp, events, compressing, {}, tokens=800_000)
        print(f"- events: {[e['event'] for e in log]}")
        pre = [e["input"].get("trigger") for e in log if e["event"] == "PreCompress"]
        print(f"- PreCompress triggers: {pre}")
        starts = [e["input"].get("source") for e in log if e["event"] == "SessionStart"]
        print(f"- SessionStart sources: {starts}")
        summary = [r for r in stub.side_requests if "state_snapshot" in json.dumps(r)]
        print(f"- compression requests (side, with <state_snapshot>): {len(summary)}")
        print(f"- agent requests: {len(stub.requests)}")
        tail = [line for line in out.splitlines() if "compress" in line.lower()][:5]
        print(f"- the CLI said about compression: {tail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
