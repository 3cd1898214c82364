"""`todo-bench scenarios check`: is a scenario solvable, gated fairly, and checked for real?

For each scenario, in fresh workspaces:
- replay: the reference solution (the steps of cancelled subtasks left out) runs with every call
  succeeding, reads every input it depends on, and passes every outcome check;
- gate: the oracle gate ticks every active subtask on the reference (zero blocked completions);
- sensitivity: leaving out any step that changes the workspace, or doing a cancelled subtask's
  work anyway, makes at least one outcome check fail; no check passes whatever is done (for a
  reference longer than 40 steps, as generated families have, an evenly spaced sample of 40
  steps is left out, and vacuous checks are not judged);
- lint: confusions that match nothing, subtask titles their own keywords do not match.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from harness.matcher import matches
from harness.suite.checks import run_checks
from harness.suite.scenario import Scenario, ScenarioError, Step, load_file
from harness.suite.tracker import TaskStateTracker
from harness.suite.workspace import Workspace, WorkspaceError
from harness.suite.workspace_tools import BY_NAME, READ_ONLY


class Problem(BaseModel):
    """One finding, named by file and field."""

    path: str
    field: str
    message: str

    def line(self) -> str:
        return f"{self.path}: {self.field}: {self.message}"


class Replay(BaseModel):
    """What replaying a list of steps did."""

    failed_calls: list[tuple[int, str]]
    failed_checks: list[int]
    pending: list[str]


def solution(scenario: Scenario) -> list[tuple[int, Step]]:
    """The reference steps of an agent told every user turn in advance, with their indexes:
    no cancelled work, so nothing to undo."""
    cancelled = {t.subtask for t in scenario.user_turns if t.action == "cancel"}
    return [
        (i, s)
        for i, s in enumerate(scenario.reference)
        if s.subtask not in cancelled and not s.undo
    ]


def replay(scenario: Scenario, steps: Iterable[tuple[int, Step]], track: bool = True) -> Replay:
    """Run steps through the workspace (and the tracker, if `track`); report failures and
    pending subtasks. Ablations skip the tracker: only their outcome checks matter."""
    workspace = Workspace.create(scenario)
    tracker = TaskStateTracker(scenario, workspace)
    for turn in scenario.user_turns:
        if turn.action == "add" and turn.subtask:
            tracker.add(turn.subtask)
        elif turn.action == "cancel" and turn.subtask:
            tracker.cancel(turn.subtask)
    failed: list[tuple[int, str]] = []
    try:
        for index, step in steps:
            try:
                getattr(workspace, step.tool)(**step.args)
            except (WorkspaceError, OSError, TypeError, ValueError) as error:
                failed.append((index, str(error)))
                continue
            if track:
                tracker.observe(step.tool, step.args, ok=True)
        results = run_checks(workspace, scenario)
    finally:
        workspace.cleanup()
    return Replay(
        failed_calls=failed,
        failed_checks=[i for i, r in enumerate(results) if not r.passed],
        pending=[s.id for s in tracker.pending] if track else [],
    )


#: above this many steps (generated families), ablations use an evenly spaced sample
MAX_ABLATIONS = 40


def _sample(steps: list[tuple[int, Step]]) -> set[int]:
    """Positions to ablate: all of them, or an evenly spaced sample for long references."""
    if len(steps) <= MAX_ABLATIONS:
        return set(range(len(steps)))
    stride = len(steps) / MAX_ABLATIONS
    return {int(k * stride) for k in range(MAX_ABLATIONS)} | {len(steps) - 1}


def _describe(step: Step) -> str:
    target = step.args.get("path") or step.args.get("src") or ""
    return f"{step.tool}({target})" if target else step.tool


def _inputs_unread(scenario: Scenario, steps: list[Step]) -> list[str]:
    """Initial files no step reads, lists, renames or deletes."""
    if any(s.tool == "list_files" or s.args.get("from_workspace_files") for s in steps):
        return []
    touched = {
        Workspace.normalise(s.args[key])
        for s in steps
        for key in (BY_NAME[s.tool].existing if s.tool in BY_NAME else ())
        if key in s.args
    }
    return [f.path for f in scenario.all_files() if Workspace.normalise(f.path) not in touched]


def _confused(step: Step, original: str, confused: str) -> Step | None:
    args: dict[str, Any] = {
        k: v.replace(original, confused) if isinstance(v, str) else v for k, v in step.args.items()
    }
    return step.model_copy(update={"args": args}) if args != step.args else None


def check_scenario(scenario: Scenario, path: str) -> list[Problem]:
    """Every problem of one scenario (see the module docstring)."""
    problems: list[Problem] = []

    def problem(field: str, message: str) -> None:
        problems.append(Problem(path=path, field=field, message=message))

    steps = solution(scenario)
    result = replay(scenario, steps)
    for index, error in result.failed_calls:
        problem(f"reference.{index}", f"{_describe(scenario.reference[index])} failed: {error}")
    for index in result.failed_checks:
        check = scenario.checks[index]
        problem(f"checks.{index}", f"{check.kind} {check.path} fails on the reference solution")
    for pending in result.pending:
        problem(
            f"subtasks.{pending}",
            "the reference never ticks it: the gate would block a correct solution",
        )
    for file in _inputs_unread(scenario, list(scenario.reference)):
        problem("reference", f"never reads the input {file} (an agent must read what it uses)")
    if result.failed_calls or result.failed_checks:
        return problems  # sensitivity means nothing for a reference that does not work

    # sensitivity: each workspace-changing step must matter to some check
    can_fail: set[int] = set()
    for position, (index, step) in enumerate(steps):
        if step.tool in READ_ONLY or position not in _sample(steps):
            continue
        failing = replay(
            scenario, steps[:position] + steps[position + 1 :], track=False
        ).failed_checks
        can_fail.update(failing)
        if not failing:
            problem(
                f"reference.{index}",
                f"no outcome check fails without {_describe(step)} "
                "(a check that nothing can fail proves nothing)",
            )
    for position, (index, step) in enumerate(steps):
        if position not in _sample(steps):
            continue
        for original, confused in scenario.confusions.items():
            wrong = _confused(step, original, confused)
            if wrong is not None:
                variant = [*steps[:position], (index, wrong), *steps[position + 1 :]]
                can_fail.update(replay(scenario, variant, track=False).failed_checks)
    for i, turn in enumerate(scenario.user_turns):
        if turn.action != "cancel" or turn.subtask is None:
            continue
        work = [
            (j, s)
            for j, s in enumerate(scenario.reference)
            if s.subtask == turn.subtask and not s.undo
        ]
        undo = [
            (j, s) for j, s in enumerate(scenario.reference) if s.subtask == turn.subtask and s.undo
        ]
        if not work:
            continue
        anyway = sorted([*steps, *work], key=lambda pair: pair[0])
        failing = replay(scenario, anyway, track=False).failed_checks
        can_fail.update(failing)
        if not failing:
            problem(
                f"user_turns.{i}",
                f"cancelling '{turn.subtask}' is never checked: doing its work anyway "
                "passes every outcome check",
            )
        if undo:
            # the work done before the cancel, then reverted: must end as well as never doing it
            reverted = replay(scenario, [*anyway, *undo], track=False)
            for index, error in reverted.failed_calls:
                problem(f"reference.{index}", f"undo step failed: {error}")
            for index in reverted.failed_checks:
                problem(
                    f"user_turns.{i}.undo",
                    f"checks.{index} still fails after the undo steps revert '{turn.subtask}'",
                )
    sampled = len(_sample(steps)) < len(steps)
    for index, check in enumerate(scenario.checks):
        # with a sample, a check only the unsampled steps touch would look vacuous: no verdict
        if index not in can_fail and not sampled:
            problem(
                f"checks.{index}",
                f"{check.kind} {check.path} is vacuous: no left-out step, confusion or "
                "cancelled work makes it fail",
            )

    # lint
    texts = [s.title for s in scenario.subtasks] + [
        str(v) for s in scenario.reference for v in s.args.values() if isinstance(v, str)
    ]
    for original in scenario.confusions:
        if not any(original in text for text in texts):
            problem(f"confusions.{original}", "matches no subtask title or reference argument")
    for subtask in scenario.subtasks:
        if not matches(subtask.title, subtask):
            problem(f"subtasks.{subtask.id}.title", "its own keywords and aliases do not match it")
    return problems


def check_files(paths: Iterable[Path]) -> tuple[list[str], int]:
    """Check scenario files: (one line per problem, exit code 0 ok / 1 problems / 2 invalid)."""

    lines: list[str] = []
    invalid = found = 0
    for file in paths:
        try:
            scenarios = load_file(file)
        except ScenarioError as error:
            lines.append(str(error))
            invalid += 1
            continue
        for scenario in scenarios:
            where = str(file) if len(scenarios) == 1 else f"{file} [{scenario.id}]"
            problems = check_scenario(scenario, where)
            lines.extend(p.line() for p in problems)
            found += len(problems)
    return lines, 2 if invalid else 1 if found else 0
