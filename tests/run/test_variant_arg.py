"""The runner hands the task its Variant, not a label to parse back: the object reaches the loop,
no label is parsed on the way, the log records the task's and the solver's arguments as logs
made before did, and a run folder made the old way (the label passed) resumes without rerunning
anything. `-T variant=LABEL` with `-T gate=true` still works."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from harness import progress
from harness.run import task
from harness.run.runner import WorkerPlan, log_dir_for, run_variant
from harness.todo.variants import Variant

LABEL = "L4-inject+gate"


def plan(root: Path) -> WorkerPlan:
    return WorkerPlan(
        model="sim/sloppy",
        model_args={"seed": 0},
        variants=[Variant.parse(LABEL)],
        scenarios="excel_export",
        scenario_dir=None,
        epochs=1,
        log_root=str(root),
        display="none",
        generate={},
        retry_attempts=0,
    )


def test_the_object_reaches_the_loop_and_no_label_is_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness.episode.loop import todo_agent
    from harness.episode.policies import policies_for

    seen: dict[str, Any] = {}

    def agent(variant: Variant, *rest: Any) -> Any:
        seen["task"] = variant
        return todo_agent(variant, *rest)

    def policies(variant: Variant) -> Any:
        seen["loop"] = variant
        return policies_for(variant)

    run = plan(tmp_path)
    monkeypatch.setattr(Variant, "parse", _refuse)
    monkeypatch.setattr("harness.run.task.todo_agent", agent)
    monkeypatch.setattr("harness.episode.loop.policies_for", policies)
    assert run_variant(run, run.variants[0], "none")
    assert seen["task"] is run.variants[0]
    assert seen["loop"] == run.variants[0]


def _refuse(*_: object, **__: object) -> Variant:
    raise AssertionError("a label was parsed on the run path")


def test_a_run_folder_made_with_the_label_resumes_with_the_object_rerunning_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = plan(tmp_path)
    entry = task.eval_entry()

    def labelled(**args: Any) -> Any:  # the runner as it was: the label in the task args
        return entry(**{**args, "variant": args["variant"].label})

    with monkeypatch.context() as patched:
        patched.setattr(task, "eval_entry", lambda: labelled)
        assert run_variant(run, run.variants[0], "none")
    (before,) = list_eval_logs(log_dir_for(run, run.variants[0]), recursive=False)
    header = read_eval_log(before, header_only=True)
    # as logs made before the variant was passed as an object hold them
    assert header.eval.task_args_passed["variant"] == LABEL
    assert header.plan.steps[0].params_passed == {
        "variant": {
            "level": "L3", "inject": True, "gate": True, "heuristic": False, "planner": False,
            "completion_loop": False, "loop_controller": False, "uncapped": False, "hooks": [],
        },
        "rules": None,
    }  # fmt: skip
    ran: list[int] = []
    monkeypatch.setattr(progress, "episode_done", lambda: ran.append(1))
    assert run_variant(run, run.variants[0], "none")
    assert list_eval_logs(log_dir_for(run, run.variants[0]), recursive=False) == [before]
    assert ran == []


def test_inspect_s_label_and_switches_still_make_the_task() -> None:
    made = task.eval_entry()(
        variant="L3-granular", inject=True, gate=True, scenarios="excel_export"
    )
    assert made.metadata is not None and made.metadata["variant"] == LABEL
    with pytest.raises(ValueError, match="unknown variant 'L9'"):
        task.eval_entry()(variant="L9")
