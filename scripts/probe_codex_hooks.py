"""Probe (issue #55): what the pinned Codex CLI does with hooks, from the binary itself. No
network: `codex exec` runs against a local stub of the Responses API playing a script
(`tests/hooks/responses_stub.py`), with a logging hook at every event.

    .venv/bin/python scripts/probe_codex_hooks.py      # `make agents` first; about 30 s

It reports:
1. the hook events the binary's own JSON schemas declare (`<event>.command.input` /
   `.command.output`), each with its input fields and what its output may carry;
2. which hooks fire in `codex exec` for a project's `.codex/hooks.json` and for
   `$CODEX_HOME/hooks.json`, under each trust setting (none; the project trusted with
   `--trust`; and the hooks' own trust bypassed with `--dangerously-bypass-hook-trust`);
3. in the run where they fire: each event's input (update_plan included?), and what the model
   then reads of a PreToolUse deny, a PostToolUse `additionalContext` and a Stop block;
4. compaction: whether PreCompact, PostCompact and SessionStart(compact) fire when the stub
   reports a context past `model_auto_compact_token_limit`.

Found with 0.171.0 (recorded in harness/products/shipped/codex.py, docs/hooks.md): hooks are on by
default (feature `hooks`, stable); a project's hooks load only in a trusted project, and a hook
runs only once trusted (the interactive `codex` asks) or with `--dangerously-bypass-hook-trust`;
update_plan goes through PreToolUse/PostToolUse as itself, `tool_input = {"plan": [...]}`; the
shell is named `Bash` to hooks, `tool_input = {"command": ...}`; the wire is Claude Code's.
"""

from __future__ import annotations

import contextlib
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
from harness.products.shipped import codex  # noqa: E402
from tests.hooks.responses_stub import (  # noqa: E402
    CODEX,
    Call,
    ResponsesStub,
    Say,
    Turn,
    codex_exec,
    serving,
)

EVENTS = (
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "PostCompact",
    "SubagentStart",
    "SubagentStop",
)
#: the logging hook: it writes each event's input to the log, denies an update_plan of one
#: step, adds context after each tool call, and blocks the first stop of a chain
HOOK = textwrap.dedent(
    """
    import json, sys
    event, log = sys.argv[1], sys.argv[2]
    raw = sys.stdin.read()
    data = json.loads(raw) if raw.strip() else {}
    with open(log, "a") as handle:
        handle.write(json.dumps({"event": event, "input": data}) + "\\n")
    answer = None
    plan = (data.get("tool_input") or {}).get("plan") if event == "PreToolUse" else None
    if isinstance(plan, list) and len(plan) == 1:
        answer = {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                  "permissionDecision": "deny", "permissionDecisionReason": "PROBE-DENY"}}
    elif event == "PostToolUse":
        answer = {"hookSpecificOutput": {"hookEventName": "PostToolUse",
                  "additionalContext": "PROBE-CONTEXT"}}
    elif event == "Stop" and not data.get("stop_hook_active"):
        answer = {"decision": "block", "reason": "PROBE-BLOCK <b>"}
    elif event == "SessionStart" and data.get("source") == "compact":
        answer = {"hookSpecificOutput": {"hookEventName": "SessionStart",
                  "additionalContext": "PROBE-AFTER-COMPACT"}}
    if answer:
        print(json.dumps(answer))
    """
)


def _plan(*rows: tuple[str, str]) -> dict[str, Any]:
    return {codex.PLAN.key: [{codex.PLAN.text: t, "status": s} for t, s in rows]}


SCRIPT: list[Turn] = [
    [Call(codex.PLAN.tool, _plan(("Write a.md", "in_progress"), ("Write b.md", "pending")))],
    [Call(codex.SHELL.tool, {codex.SHELL.command: "echo a > a.md"})],
    [Call(codex.PLAN.tool, _plan(("Write a.md", "completed")))],
    [Say("All tasks are complete.")],
    [Say("All tasks are complete, again.")],
]


def schemas(path: Path) -> dict[str, dict[str, Any]]:
    """The hook schemas the binary embeds, by title (`pre-tool-use.command.input`, ...)."""
    data = path.read_bytes()
    found: dict[str, dict[str, Any]] = {}
    for match in re.finditer(rb"([a-z-]+\.command\.(?:input|output))\{", data):
        start, depth = match.end() - 1, 0
        for end in range(start, min(start + 200_000, len(data))):
            depth += {ord("{"): 1, ord("}"): -1}.get(data[end], 0)
            if depth == 0:
                with contextlib.suppress(ValueError):  # a title in prose, not a schema
                    found[match.group(1).decode()] = json.loads(data[start : end + 1])
                break
    return found


def _config(folder: Path, log: Path, hook: Path) -> None:
    groups = {
        event: [
            {
                **({"matcher": "*"} if "Tool" in event or event == "PermissionRequest" else {}),
                "hooks": [
                    {
                        "type": "command",
                        "command": f"{sys.executable} {hook} {event} {log}",
                        "timeout": 30,
                    }  # fmt: skip
                ],
            }
        ]
        for event in EVENTS
    }
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "hooks.json").write_text(json.dumps({"hooks": groups}), encoding="utf-8")


def _log(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def run(
    tmp: Path, where: str, flags: tuple[str, ...], script: list[Turn], tokens: int = 2,
    extra: tuple[str, ...] = (),
) -> tuple[list[dict[str, Any]], ResponsesStub, str]:  # fmt: skip
    """One `codex exec` with the logging hook in the project or the CODEX_HOME."""
    case = Path(tempfile.mkdtemp(dir=tmp))
    project, home, log, hook = case / "project", case / "home", case / "log.jsonl", case / "h.py"
    project.mkdir()
    hook.write_text(HOOK, encoding="utf-8")
    _config(project / codex.OWN_FOLDER if where == "project" else home, log, hook)
    stub = ResponsesStub(script, tokens=tokens)
    with serving(stub):
        done = codex_exec(binary(CODEX), project, home, stub, "Write a.md and b.md",
                          (*flags, *extra))  # fmt: skip
    return _log(log), stub, done.stderr + done.stdout


def _seen(stub: ResponsesStub, needle: str) -> list[str]:
    """What the model was sent that holds `needle`: role or item type, and the text."""
    out = []
    for index, request in enumerate(stub.requests):
        for item in request["input"]:
            text = json.dumps(item)
            if needle in text:
                kind = item.get("role") or item.get("type")
                out.append(f"request {index}: {kind}: {text[:240]}")
                break
    return out


def main() -> int:
    codex_binary = binary(CODEX)
    print(f"# Codex CLI {CODEX.version} hooks ({codex_binary})\n")
    found = schemas(codex_binary)
    print("## Hook events the binary's schemas declare\n")
    for title in sorted(t for t in found if t.endswith(".input")):
        event = found[title]["properties"]["hook_event_name"].get("const", title)
        fields = sorted(found[title]["properties"])
        output = found.get(title.replace(".input", ".output"), {}).get("properties", {})
        print(f"- {event}: input {', '.join(fields)}; output {', '.join(sorted(output))}")
    source = found.get("session-start.command.input", {}).get("properties", {}).get("source", {})
    print(f"\nSessionStart sources: {source.get('enum')}")

    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        print("\n## Which hooks fire in `codex exec` (events logged)\n")
        bypass = ("--trust", "--dangerously-bypass-hook-trust")
        runs = {}
        for where in ("project", "home"):
            for flags in ((), ("--trust",), bypass):
                log, stub, out = run(tmp, where, flags, SCRIPT)
                runs[(where, flags)] = (log, stub, out)
                events = [entry["event"] for entry in log]
                label = " ".join(flags) or "(no flags)"
                print(f"- hooks in {where}, {label}: {len(events)} events {events}")
        log, stub, out = runs[("project", bypass)]
        print("\n## Inputs (project hooks, trusted)\n")
        for entry in log:
            shown = {k: v for k, v in entry["input"].items() if k not in ("transcript_path",)}
            print(f"- {json.dumps(shown)[:400]}")
        print("\n## What the model reads\n")
        for needle in ("PROBE-DENY", "PROBE-CONTEXT", "PROBE-BLOCK"):
            print(f"- {needle}: {(_seen(stub, needle) or ['never sent'])[0]}")
        print(f"- requests: {len(stub.requests)}")

        print("\n## Compaction (usage past model_auto_compact_token_limit)\n")
        compacting: list[Turn] = [
            [Call(codex.PLAN.tool, _plan(("Write a.md", "in_progress")))],
            [Call(codex.SHELL.tool, {codex.SHELL.command: "true"})],
            [Say("Summary: a.md is in progress.")],
            [Say("All done.")],
        ]
        limit = ("-c", "model_auto_compact_token_limit=1000")
        log, stub, out = run(tmp, "project", bypass, compacting, tokens=500_000, extra=limit)
        print(f"- events: {[e['event'] for e in log]}")
        starts = [e["input"].get("source") for e in log if e["event"] == "SessionStart"]
        print(f"- SessionStart sources seen: {starts}")
        print(f"- PROBE-AFTER-COMPACT: {(_seen(stub, 'PROBE-AFTER-COMPACT') or ['never sent'])[0]}")
        print(f"- requests: {len(stub.requests)}")
        tail = [line for line in out.splitlines() if "compact" in line.lower()][:5]
        print(f"- the CLI said about compaction: {tail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
