"""Probe (issue #44, compaction through the products): does Claude Code compact a resumed
print-mode session when the next prompt is `/compact`, what does its compaction request look
like, and what does the agent see after it? A scripted model writes a two-item TodoWrite list
and main.py, then the session is resumed with `/compact` and again with a follow-up; the probe
reports what the bridge saw and what the product recorded (its session JSONL), not any of the
product's own prompt text.

    .venv/bin/python scripts/probe_compact.py [--inject]   # `make agents` first; about 20 s

`--inject` installs the seed's L4 as the product's `inject` hook (docs/hooks.md) first.

Found with Claude Code 2.1.332 (docs/agents.md): the compaction request is a main-loop
request (its tools, TodoWrite included, are offered) whose last user message is the
product's summary instructions; the session then holds a `compact_boundary` and the summary as
its first user message, the files last touched are re-attached, and the todo list is not.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval
from inspect_ai.agent import as_solver
from inspect_ai.dataset import Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import ToolChoice, ToolInfo
from inspect_swe import claude_code

from harness.agents.binaries import binary
from harness.agents.bridge_ports import sample_bridge_ports
from harness.agents.hooked import PROGRAM
from harness.agents.sandboxes import CliSandbox, host_search_path
from harness.hooks.install import install
from harness.hooks.journal import HOOK_JOURNAL
from harness.hooks.state import HOOK_STATE
from harness.products.catalog import PRODUCTS

PRODUCT = PRODUCTS["cli/claude-code-todowrite"]
TODOS = [
    {"content": "Write main.py", "status": "in_progress", "activeForm": "Writing main.py"},
    {"content": "Write test.py", "status": "pending", "activeForm": "Writing test.py"},
]
SUMMARY = "<analysis>probe</analysis>\n<summary>main.py is written; one file is left.</summary>"
#: what the bridge saw: per request, the run it came in and its shape
SEEN: list[dict[str, Any]] = []
RUN = ["work"]
#: --inject: the run has the inject hook installed
HOOKED = [False]
WORKSPACE: list[str] = []


def _carries(message: ChatMessage, text: str) -> bool:
    """Whether a message's text or its tool calls' arguments hold `text`."""
    calls = message.tool_calls if isinstance(message, ChatMessageAssistant) else None
    return text in message.text or any(text in json.dumps(c.arguments) for c in calls or [])


def _usage(output: ModelOutput) -> ModelOutput:
    output.usage = ModelUsage(input_tokens=100, output_tokens=10, total_tokens=110)
    return output


@modelapi(name="compactprobe")
class CompactProbe(ModelAPI):
    """Writes the list, then main.py, then stops; answers anything after that with SUMMARY."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig | None = None, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())

    async def count_text_tokens(self, text: str) -> int:
        return max(1, len(text) // 4)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        names = {t.name for t in tools}
        last = input[-1].text if input else ""
        SEEN.append(
            {
                "run": RUN[0],
                "messages": len(input),
                "todo_tool_offered": "TodoWrite" in names,
                "asks_for_a_summary": "summary" in last.lower(),
                "list_in_prompt": any(_carries(m, "Write test.py") for m in input),
            }
        )
        work = sum(1 for s in SEEN if s["run"] == "work" and s["todo_tool_offered"])
        if RUN[0] == "work" and work == 1:
            return _usage(ModelOutput.for_tool_call(self.model_name, "TodoWrite", {"todos": TODOS}))
        if RUN[0] == "work" and work == 2:
            path = f"{WORKSPACE[0]}/main.py"
            args = {"file_path": path, "content": "x = 1\n"}
            return _usage(ModelOutput.for_tool_call(self.model_name, "Write", args))
        return _usage(ModelOutput.from_content(self.model_name, SUMMARY))


@solver
def probe() -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        home = Path(tempfile.mkdtemp(prefix="probe-home-"))
        workspace = Path(tempfile.mkdtemp(prefix="probe-ws-"))
        WORKSPACE.append(str(workspace))
        path = host_search_path(PRODUCT)
        env = {**PRODUCT.env, "HOME": str(home), "PATH": path}
        if HOOKED[0]:  # the seed's L4 as the product's hook (docs/hooks.md)
            install(workspace, ("inject",), str(Path(sys.executable).parent / PROGRAM))
            env |= {HOOK_JOURNAL: str(home / "hooks.jsonl"), HOOK_STATE: str(home / "state")}
        agent = as_solver(
            claude_code(
                version="sandbox",
                cwd=str(workspace),
                env=env,
                model_config=PRODUCT.model_config_id,
            )  # fmt: skip
        )
        async with sample_bridge_ports("claude_code", runs=3):
            cache = {"XDG_CACHE_HOME": str(home / ".cache")}
            with CliSandbox("local").episode_env({**env, **cache}):
                state = await agent(state, generate)
                for run, prompt in (("compact", "/compact"), ("after", "Continue with the task.")):
                    RUN[0] = run
                    state.messages.append(ChatMessageUser(content=prompt))
                    state = await agent(state, generate)
        records = [
            json.loads(line)
            for session in (home / ".claude" / "projects").rglob("*.jsonl")
            for line in session.read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        journal = home / "hooks.jsonl"
        lines = journal.read_text(encoding="utf-8").splitlines() if journal.exists() else []
        state.metadata["hooks"] = [
            f"{r['event']}:{r['action']}" for r in map(json.loads, lines) if r.get("event")
        ]
        state.metadata["session"] = [
            {
                "type": r.get("type"),
                "subtype": r.get("subtype"),
                "attachment": (r.get("attachment") or {}).get("type"),
                "summary": bool(r.get("isCompactSummary")),
            }
            for r in records
        ]
        return state

    return solve


def main() -> int:
    HOOKED[0] = "--inject" in sys.argv[1:]
    binary(PRODUCT)  # one line and exit 2 if `make agents` has not run
    log = eval(
        Task(dataset=[Sample(input="Write main.py and test.py.")], solver=probe(), sandbox="local"),
        model="compactprobe/x",
        display="none",
        log_dir=tempfile.mkdtemp(prefix="probe-logs-"),
    )[0]
    if log.status != "success" or not log.samples:
        print(f"probe failed: {log.error.message if log.error else log.status}")
        return 1
    session = log.samples[0].metadata["session"]
    kinds = [s["subtype"] or s["attachment"] or s["type"] for s in session]
    boundary = kinds.index("compact_boundary") if "compact_boundary" in kinds else None
    print("requests the bridge saw:")
    for s in SEEN:
        print(f"  {json.dumps(s)}")
    print(f"compacted: {boundary is not None}")
    if HOOKED[0]:
        print(f"the hooks' journal: {log.samples[0].metadata['hooks']}")
    if boundary is not None:
        after = session[boundary + 1 :]
        print(f"the summary is the next user message: {any(s['summary'] for s in after[:2])}")
        attached = sorted({s["attachment"] for s in after if s["attachment"]})
        print(f"attached after the boundary: {attached}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
