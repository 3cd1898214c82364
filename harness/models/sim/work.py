"""How the simulated agent does the work: the next reference step of the subtask it believes
comes next, sometimes confused, subtly wrong, or written as prose instead of a tool call."""

from __future__ import annotations

import json
from typing import Any

from harness.models.sim.beliefs import Beliefs
from harness.models.sim.memory import Decision, Fault
from harness.suite.scenario import Step, Subtask
from harness.suite.workspace_tools import BY_NAME


class Worker(Beliefs):
    """The workspace call of a turn."""

    def _work(self, subtask: Subtask, confusion: tuple[str, str] | None) -> Decision:
        m = self.m
        index = next(i for i in self._step_ids(subtask.id) if i not in m.steps_done)
        step = self.s.reference[index]
        args = _confuse(step.args, confusion) if confusion else dict(step.args)
        faults: list[Fault] = []
        # a wrong result still satisfies the subtask's rule; a confusion does not
        exact = confusion is None or args == step.args
        if self.rng.random() < self.p.wrong_result:
            corrupted = _corrupt(step)
            if corrupted is not None:
                args = corrupted
                m.corrupted_steps.add(index)
                faults.append(Fault("wrong_result", None, 0, f"{step.tool} {step.args}"))
        if not m.nudged and self.rng.random() < self.p.prose_call:
            body = json.dumps({"name": step.tool, "arguments": args})
            return Decision(
                text=f"Next I will run this tool:\n```json\n{body}\n```",
                faults=[Fault("prose_call", "fake_tool_calls", None, step.tool)],
            )
        m.nudged = False
        if exact:
            m.exact_steps.add(index)
        return Decision(calls=[(step.tool, args)], faults=faults, step=index)


def _confuse(args: dict[str, Any], confusion: tuple[str, str]) -> dict[str, Any]:
    original, confused = confusion
    return {k: v.replace(original, confused) if isinstance(v, str) else v for k, v in args.items()}


def _corrupt(step: Step) -> dict[str, Any] | None:
    """A subtly wrong version of a step that still satisfies its completion rule."""
    args = dict(step.args)
    rows = args.get("rows")
    takes_rows = step.tool in BY_NAME and "rows" in BY_NAME[step.tool].params
    if takes_rows and isinstance(rows, list) and len(rows) > 2:
        args["rows"] = rows[:-1]
        return args
    if step.tool == "create_excel" and args.get("from_workspace_files"):
        args["from_workspace_files"] = False
        args["rows"] = [["file"]]
        return args
    if step.tool == "write_file" and isinstance(args.get("content"), str):
        lines = args["content"].splitlines(keepends=True)
        args["content"] = "".join(lines[:-1]) if len(lines) > 1 else args["content"].lower()
        return args if args["content"] != step.args["content"] else None
    return None
