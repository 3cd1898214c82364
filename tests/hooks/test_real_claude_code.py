"""The hooks inside the real Claude Code binary (`make agents`), offline: a scripted model
drives it through inspect-swe's bridge in the local sandbox, with `todo-bench hooks install`'s
settings in the project. A TodoWrite that drops an item is denied, and the model reads the
seed's refusal as the tool's error; a stop with an open item is blocked once, and the model
reads why. Heavy: about 20 s."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval
from inspect_ai.agent import as_solver
from inspect_ai.dataset import Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageTool,
    ChatMessageUser,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolCall, ToolChoice, ToolInfo
from inspect_swe import claude_code

from harness.agents.install import AgentMissing, binary
from harness.hooks.install import install
from harness.hooks.journal import HOOK_JOURNAL, HookRecord
from harness.hooks.state import HOOK_STATE
from harness.todo.clis import PRODUCTS

pytestmark = [pytest.mark.heavy, pytest.mark.xdist_group("cli-agents")]
PRODUCT = PRODUCTS["cli/claude-code-todowrite"]
try:
    binary(PRODUCT)
except AgentMissing as missing:
    pytestmark.append(pytest.mark.skip(reason=f"{missing} (CI runs make agents first)"))


def _todos(*rows: tuple[str, str]) -> dict[str, Any]:
    return {"todos": [{"content": t, "status": s, "activeForm": t} for t, s in rows]}


#: the main loop's turns: the calls each makes (none: a final answer)
TURNS: list[list[tuple[str, dict[str, Any]]]] = [
    [("TodoWrite", _todos(("Write a.md", "in_progress"), ("Write b.md", "pending")))],
    [("TodoWrite", _todos(("Write a.md", "completed")))],  # drops b.md: denied
    [],  # "All tasks are complete." with b.md open: blocked
    [("TodoWrite", _todos(("Write a.md", "completed"), ("Write b.md", "completed")))],
    [],
]
SEEN: list[list[ChatMessage]] = []


@modelapi(name="hookscript")
class HookScript(ModelAPI):
    """Plays TURNS on the main loop's requests and keeps what each one was sent."""

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
        calls: list[tuple[str, dict[str, Any]]] = []
        if any(t.name == "TodoWrite" for t in tools):
            calls = TURNS[len(SEEN)] if len(SEEN) < len(TURNS) else []
            SEEN.append(list(input))
        output = ModelOutput.from_content(
            self.model_name, "" if calls else "All tasks are complete."
        )
        if calls:
            output.choices[0].message.tool_calls = [
                ToolCall(id=f"t{len(SEEN)}-{i}", function=name, arguments=args, type="function")
                for i, (name, args) in enumerate(calls)
            ]
            output.choices[0].stop_reason = "tool_calls"
        output.usage = ModelUsage(input_tokens=100, output_tokens=10, total_tokens=110)
        return output


def test_claude_code_meets_the_whitelist_and_the_gate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    install(
        project, ("whitelist", "gate-open"), str(Path(sys.executable).parent / "todo-bench-hook")
    )
    journal = tmp_path / "hooks.jsonl"
    path = os.pathsep.join([str(binary(PRODUCT).parent), "/usr/bin", "/bin"])
    # inspect-swe finds a `version="sandbox"` CLI on the sandbox's PATH (the host's here)
    monkeypatch.setenv("PATH", path + os.pathsep + os.environ.get("PATH", ""))
    agent = as_solver(
        claude_code(
            version="sandbox",
            model_config=PRODUCT.model_config_id,
            cwd=str(project),
            env={
                **PRODUCT.env,
                "HOME": str(home),
                "PATH": path,
                HOOK_JOURNAL: str(journal),
                HOOK_STATE: str(tmp_path / "state"),
            },
        )
    )
    SEEN.clear()
    task = Task(dataset=[Sample(input="Write a.md and b.md.")], solver=agent, sandbox="local")
    (log,) = eval(task, model="hookscript/x", display="none", log_dir=str(tmp_path / "logs"))
    assert log.status == "success", log.error
    records = [HookRecord.model_validate_json(line) for line in journal.read_text().splitlines()]
    assert [(r.event, r.action) for r in records] == [("PreToolUse", "denied"), ("Stop", "blocked")]
    assert len(SEEN) == len(TURNS)
    refused = [m for m in SEEN[2] if isinstance(m, ChatMessageTool)][-1]
    assert "missing ids: #2 'Write b.md'" in refused.text
    told = [m for m in SEEN[3] if isinstance(m, ChatMessageUser)][-1]
    assert "Completion blocked: not every subtask is done yet." in told.text
