"""A run's options are declared once (`harness/run/options.py`): the command line is built from
the declaration, with its types, bounds, choices and help, and agrees with the API's plan."""

from __future__ import annotations

import argparse

import pytest
from pydantic import Field

from harness.commands import build_parser
from harness.commands import run as run_command
from harness.commands.args import Parser
from harness.run.options import PASSED_TO_TASK, RunOptions, TaskOptions


def _run_parser(options: type[RunOptions]) -> argparse.ArgumentParser:
    parser = Parser(prog="todo-bench")
    run_command.add(parser.add_subparsers(dest="command"), options)
    return parser


def test_an_option_added_in_one_place_is_a_flag_with_its_help_bound_and_default(
    capsys: pytest.CaptureFixture[str],
) -> None:
    class WithBudget(RunOptions):
        max_cost: int | None = Field(None, ge=1, description="stop once this many dollars went")

    parser = _run_parser(WithBudget)
    with pytest.raises(SystemExit):
        parser.parse_args(["run", "--help"])
    assert "--max-cost MAX_COST" in capsys.readouterr().out
    args = parser.parse_args(["run", "--max-cost", "5"])
    assert WithBudget(**{n: getattr(args, n) for n in WithBudget.model_fields}).max_cost == 5
    with pytest.raises(SystemExit):
        parser.parse_args(["run", "--max-cost", "0"])
    assert "must be at least 1, got 0" in capsys.readouterr().err


def test_the_command_line_defaults_are_the_plan_defaults() -> None:
    args = build_parser().parse_args(["run"])
    from_flags = RunOptions(**{name: getattr(args, name) for name in RunOptions.model_fields})
    assert from_flags == RunOptions()
    assert set(vars(args)) - {"command", "func"} == set(RunOptions.model_fields)


@pytest.mark.parametrize(
    ("flag", "value", "refusal"),
    [
        ("--epochs", "1001", "must be at most 1,000"),
        ("--workers", "0", "must be at least 1"),
        ("--max-retries", "-1", "must be 0 or more"),
        ("--display", "fancy", "invalid choice"),
        ("--seed", "x", "not a whole number"),
        ("--alpha", "1.5", "must be between 0 and 1"),
        ("--max-cost", "0", "must be more than 0"),
        ("--max-cost", "nan", "must be more than 0"),
        ("--max-batches", "21", "must be at most 20"),
    ],
)
def test_bounds_and_choices_come_from_the_declaration(
    flag: str, value: str, refusal: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", flag, value])
    assert refusal in capsys.readouterr().err


def test_the_task_s_options_are_its_parameters_and_the_run_reuses_them_as_declared() -> None:
    """The @task's signature and `Args:` come from TaskOptions; an option the run shares with
    the task is the task's field (same default, bounds and help), and every option the run
    passes on is one the task takes."""
    import inspect

    from harness.run.task import eval_entry

    todo_bench = eval_entry()
    parameters = inspect.signature(todo_bench).parameters
    assert list(parameters) == list(TaskOptions.model_fields)
    for name, field in TaskOptions.model_fields.items():
        assert parameters[name].default == field.default
        assert f"    {name}: {field.description}" in (todo_bench.__doc__ or "")
    shared = set(TaskOptions.model_fields) & set(RunOptions.model_fields)
    assert {"gate", "inject", "scenarios", "scenario_dir", "max_turns", "heuristic_rules"} <= shared
    for name in shared:
        task_field, run_field = TaskOptions.model_fields[name], RunOptions.model_fields[name]
        assert run_field.description == task_field.description, name
        assert run_field.default == task_field.default, name
        assert run_field.metadata == task_field.metadata, name
    assert set(PASSED_TO_TASK) <= shared


def test_a_task_option_it_does_not_take_or_of_the_wrong_type_is_named() -> None:
    from pydantic import ValidationError

    from harness.run.task import build_task

    with pytest.raises(ValidationError, match="max_turn\n  Extra inputs are not permitted"):
        build_task("L0-rewrite", max_turn=3)
    with pytest.raises(ValidationError, match="max_turns\n  Input should be greater than"):
        build_task("L0-rewrite", max_turns=0)
