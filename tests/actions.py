"""Run a composite GitHub Action's steps here, the way a runner would: each `run:` step in
`bash --noprofile --norc -eo pipefail` with its `env:` after `${{ }}` substitution, `if:`
conditions evaluated, step outputs read from `$GITHUB_OUTPUT`. `uses:` steps (setup-python,
upload- and download-artifact) are not run: they are returned with their `with:` values
substituted, for the caller to check or to stand in for. Only the expressions and conditions
the project's actions use are understood; anything else raises, so a change to an action that
the local run cannot follow fails its test instead of being skipped."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
COMPARISON = re.compile(r"([\w.-]+)\s*(==|!=)\s*'([^']*)'")


@dataclass
class Step:
    """One step of a run: what it was, whether it ran, and what it left."""

    name: str
    id: str | None
    outcome: str  # success, failure, skipped (condition false), or "uses" (not run here)
    uses: str | None = None
    with_: dict[str, str] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)
    log: str = ""


@dataclass
class Run:
    """A whole run of an action: its steps in order; it failed when any step failed."""

    steps: list[Step]

    @property
    def failed(self) -> bool:
        return any(step.outcome == "failure" for step in self.steps)

    def step(self, step_id: str) -> Step:
        (found,) = [s for s in self.steps if s.id == step_id]
        return found

    def uses(self, prefix: str) -> list[Step]:
        return [s for s in self.steps if s.uses and s.uses.startswith(prefix)]


def load(path: Path) -> dict[str, Any]:
    """A workflow or action file; PyYAML reads the key `on` as True, put back as "on"."""
    data: dict[Any, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    if True in data:
        data["on"] = data.pop(True)
    return data


def lookup(path: str, context: dict[str, Any]) -> str:
    """`inputs.model`, `github.event.pull_request.number`...: a KeyError for anything unknown."""
    value: Any = context
    for part in path.split("."):
        value = value[part]
    return str(value)


def substitute(text: str, context: dict[str, Any]) -> str:
    return EXPRESSION.sub(lambda m: lookup(m.group(1), context), text)


def condition(expression: str | None, context: dict[str, Any], ok: bool) -> bool:
    """An `if:` of `&&`-joined terms: always(), success(), failure(), `x == 'v'`, `x != 'v'`."""
    if expression is None:
        return ok
    inner = EXPRESSION.fullmatch(expression.strip())
    text = inner.group(1) if inner else expression
    result, status = True, ok
    for term in (t.strip() for t in text.split("&&")):
        if term == "always()":
            status = True
        elif term == "success()":
            status = ok
        elif term == "failure()":
            status = not ok
        elif match := COMPARISON.fullmatch(term):
            equal = lookup(match.group(1), context) == match.group(3)
            result = result and equal == (match.group(2) == "==")
        else:
            raise ValueError(f"a condition the local runner does not know: {term!r}")
    return result and status


def scripts(data: dict[str, Any]) -> list[str]:
    """Every `run:` script of an action or a workflow (all its jobs)."""
    if "runs" in data:
        steps = data["runs"]["steps"]
    else:
        steps = [s for job in data.get("jobs", {}).values() for s in job.get("steps", [])]
    return [str(s["run"]) for s in steps if "run" in s]


def run_action(
    path: Path,
    inputs: dict[str, str],
    *,
    cwd: Path,
    github: dict[str, Any],
    temp: Path,
    env: dict[str, str] | None = None,
    skip: frozenset[str] = frozenset(),
) -> Run:
    """Run the action at `path` with `inputs` in `cwd`; steps whose id is in `skip` are
    treated like `uses:` steps (not run; the caller stands in for them)."""
    action = load(path)
    declared: dict[str, dict[str, Any]] = action.get("inputs", {})
    unknown = set(inputs) - set(declared)
    if unknown:
        raise ValueError(f"inputs the action does not declare: {sorted(unknown)}")
    context: dict[str, Any] = {
        "github": {"action_path": str(path.parent), **github},
        "runner": {"temp": str(temp)},
        "steps": {},
        "inputs": {},
    }
    for name, spec in declared.items():
        if spec.get("required") and name not in inputs:
            raise ValueError(f"required input {name} not given")
        context["inputs"][name] = substitute(
            str(inputs.get(name, spec.get("default", ""))), context
        )
    ok, steps = True, []
    for index, raw in enumerate(action["runs"]["steps"]):
        step = Step(name=str(raw.get("name", raw.get("uses", index))), id=raw.get("id"), outcome="")
        step.uses = raw.get("uses")
        step.with_ = {k: substitute(str(v), context) for k, v in raw.get("with", {}).items()}
        if not condition(raw.get("if"), context, ok):
            step.outcome = "skipped"
        elif step.uses or step.id in skip:
            step.outcome = "uses"
        else:
            step.outcome, step.outputs, step.log = _shell(raw, context, cwd, temp, index, env)
            ok = ok and step.outcome == "success"
        if step.id:
            context["steps"][step.id] = {"outcome": step.outcome, "outputs": step.outputs}
        steps.append(step)
    return Run(steps)


def _shell(
    raw: dict[str, Any],
    context: dict[str, Any],
    cwd: Path,
    temp: Path,
    index: int,
    extra: dict[str, str] | None,
) -> tuple[str, dict[str, str], str]:
    if raw.get("shell") != "bash":
        raise ValueError(f"step {index}: a composite run step needs `shell: bash`")
    script = temp / f"step-{index}.sh"
    script.write_text(str(raw["run"]), encoding="utf-8")
    output = temp / f"output-{index}"
    output.write_text("", encoding="utf-8")
    step_env = {k: substitute(str(v), context) for k, v in raw.get("env", {}).items()}
    environment = {**os.environ, **(extra or {}), "GITHUB_OUTPUT": str(output), **step_env}
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    lines = output.read_text(encoding="utf-8").splitlines()
    outputs = dict(line.split("=", 1) for line in lines if "=" in line)
    outcome = "success" if done.returncode == 0 else "failure"
    return outcome, outputs, done.stdout + done.stderr
