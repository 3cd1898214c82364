"""The options of a task and of a run, each declared once.

- `TaskOptions`: one variant's task, the parameters of the `todo_bench` @task (`-T NAME=VALUE`;
  its signature and docstring are made from these fields by `task_parameters`) and of
  `build_task`.
- `RunOptions`: `todo-bench run`'s flags, built from its fields (`harness/commands/run.py`); the
  plan `run_benchmark` takes. The options it shares with the task are the task's fields, reused.

Each field's description is its `--help` text; `flag` names a short form, `metavar` the value's
name in the help.

    from harness.run.options import RunOptions
    RunOptions(variants="L0-rewrite,L3-granular", epochs=1)
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field
from pydantic.fields import FieldInfo

from harness.metrics import DEFAULT_PAIRED_METRICS
from harness.products.product import SandboxKind
from harness.results.summary import PRICES, Spending
from harness.todo.variants import SETS, SWITCHES, Variant

#: bounds on one run's plan: beyond them a run is a typo, not a benchmark (it would only fill
#: the memory); a larger study is several runs
MAX_EPOCHS = 1000
MAX_EPISODES = 100_000
#: a sequential run's planned looks: more looks spend alpha thinner for little gain
MAX_LOOKS = 20
#: our own overall display (`harness/progress.py`); any other value is one of inspect's displays
OWN_DISPLAY: Literal["progress"] = "progress"
DISPLAYS = Literal["progress", "full", "conversation", "rich", "plain", "log", "none"]


def _command_line(**extra: Any) -> dict[str, Any]:
    """What the command line needs beyond a field's type, default and description."""
    return {"command_line": extra}


def _sequential(default: Any, description: str, **bounds: Any) -> Any:
    """An option only a sequential run reads (`--until-decided`); its help says so."""
    # harness.run.sequential_plan.SEQUENTIAL finds these options by this prefix
    return Field(default, description=f"with --until-decided: {description}", **bounds)


class TaskOptions(BaseModel):
    """One variant's task: what `build_task` and the `todo_bench` @task take."""

    model_config = ConfigDict(extra="forbid")

    #: a Variant, or its label (`-T variant=L4-inject+gate`, a log's recorded task arguments)
    variant: Variant = Field(
        Variant(level="L0"),
        description="L0-rewrite ... L4-inject, a product design (cc-todowrite, cc-tasks, "
        "codex-plan, inspect-todo_write, opencode-todowrite), a shipping agent (cli/...) or a "
        "registered design, "
        "with its switches (+inject, +gate, +heuristic, +uncapped, ...)",
    )
    # the two switches a flag turns on for every variant; their help is their declaration's
    inject: bool = Field(False, description=SWITCHES["inject"].help)
    gate: bool = Field(False, description=SWITCHES["gate"].help)
    scenarios: str = Field("all", description="comma-separated ids or tags")
    scenario_dir: str | None = Field(
        None, description="folder of scenario YAML files (default: the shipped suite)"
    )
    max_turns: int | None = Field(
        None, ge=1, description="cap every scenario's turn budget (for slow real models)"
    )
    designs: str | None = Field(
        None, description="comma-separated MODULE:CLASS todo designs to register first"
    )
    heuristic_rules: str | None = Field(
        None,
        description="keyword table of the +heuristic gate (default: the shipped "
        "heuristic_rules.yaml)",
        json_schema_extra=_command_line(metavar="FILE"),
    )
    cli_sandbox: SandboxKind = Field(
        "docker",
        description="where a shipping agent's (cli/...) CLI runs: docker, a container per "
        "episode from `make agents-image`; local, this host with the CLI's permissions "
        "bypassed (for the simulated agent and scripted models; todo-bench run chooses)",
    )


def _shared(name: str) -> Any:
    """A task option the run takes as it is: the task's field, declared there once."""
    field: FieldInfo = copy.copy(TaskOptions.model_fields[name])
    return field


#: the task options a run passes on to every variant's task as they are (the variant and the
#: designs it passes in the task's form; inject and gate are part of the variant)
PASSED_TO_TASK = ("scenarios", "scenario_dir", "max_turns", "heuristic_rules")

F = TypeVar("F", bound=Callable[..., Any])


def task_parameters(function: F) -> F:
    """Give a `def f(**options)` the TaskOptions fields as its parameters and its docstring's
    `Args:` (inspect reads both: `-T` names, the log's task arguments, `inspect list`)."""
    function.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                default=field.get_default(call_default_factory=True),
                annotation=field.annotation,
            )
            for name, field in TaskOptions.model_fields.items()
        ]
    )
    args = "\n".join(
        f"    {name}: {field.description}" for name, field in TaskOptions.model_fields.items()
    )
    function.__doc__ = f"{(function.__doc__ or '').strip()}\n\nArgs:\n{args}\n"
    return function


class RunOptions(BaseModel):
    """What to run and how; the fields and defaults of `todo-bench run`'s options."""

    model: str = Field("sim/sloppy", description="any inspect model (default sim/sloppy)")
    model_arg: list[str] = Field(
        default_factory=list,
        description="model argument, e.g. -M drop=0.2 for sim or -M emulate_tools=true",
        json_schema_extra=_command_line(flag="-M", metavar="NAME=VALUE"),
    )
    variants: str | list[str] = Field(
        "headline",
        description="comma-separated variants, or a set of them: "
        + ", ".join(f"'{name}'" for name in (*SETS, "products"))
        + " (default headline; docs/running.md)",
    )
    design: list[str] = Field(
        default_factory=list,
        description="register your own todo design (a TodoStore subclass) for this run; repeatable",
        json_schema_extra=_command_line(metavar="MODULE:CLASS"),
    )
    scenarios: str | list[str] = _shared("scenarios")
    scenario_dir: str | None = _shared("scenario_dir")
    epochs: int = Field(
        3,
        ge=1,
        le=MAX_EPOCHS,
        description=f"episodes per scenario (3; at most {MAX_EPOCHS:,}, and a run at most "
        f"{MAX_EPISODES:,} episodes: variants x scenarios x epochs)",
        json_schema_extra=_command_line(why=f" (a run is at most {MAX_EPISODES:,} episodes)"),
    )
    seed: int = Field(0, description="seed of the simulated agent and sampling")
    gate: bool = _shared("gate")
    inject: bool = _shared("inject")
    out: str | None = Field(
        None,
        description="run folder, a path or an object-store URL such as s3://bucket/prefix "
        "(default results/runs/<run-id>; rerun to resume); a folder of published results (a "
        "summary.json without run.json) is refused unless --fresh",
    )
    publish: str | None = Field(
        None,
        description="when the run is complete, also publish it into DIR as a whole set: "
        "summary.json, leaderboard .md, .html, .tex, .csv and .png (make bench: "
        "results/latest); without it a run writes only its run folder",
        json_schema_extra=_command_line(metavar="DIR"),
    )
    prices: str = Field(str(PRICES), description="price table (USD per 1M tokens)")
    heuristic_rules: str | None = _shared("heuristic_rules")
    fresh: bool = Field(False, description="discard an earlier run in the folder")
    local_sandbox: bool = Field(
        False,
        description="let a shipping agent (cli/...) driven by a real model run on this host in "
        "inspect's local sandbox, its permissions bypassed (unsafe; the simulated agent and "
        "scripted models need no flag)",
    )
    max_retries: int = Field(3, ge=0, description="model API retries per call")
    timeout: int = Field(
        180, ge=1, description="seconds any one model request may take, each retry included (180)"
    )
    silence_limit: int | None = Field(
        300,
        ge=1,
        description="stop the run when the model has answered nothing for this many seconds "
        "(300; a line says so every minute of silence); a rerun resumes",
    )
    max_tokens: int = Field(
        1024, ge=1, description="max output tokens per model reply (real models)"
    )
    max_turns: int | None = _shared("max_turns")
    retry_attempts: int = Field(2, ge=0, description="eval-set task retries")
    workers: int | None = Field(
        None,
        ge=1,
        description="processes running variants in parallel (default: up to 2; one for a "
        "simulated or scripted agent's run of under 100 episodes, which a second process's "
        "start would slow down)",
    )
    max_samples: int | None = Field(None, ge=1, description="episodes run at once")
    display: DISPLAYS = Field(
        OWN_DISPLAY,
        description="progress: one bar for the whole run across workers (episodes, elapsed, "
        "ETA; a line per tenth when not on a terminal); or one of inspect's displays (first "
        "worker)",
    )
    executor: Literal["local", "ray"] = Field(
        "local",
        description="local: worker processes on this machine (default); ray: the run's shards "
        "as tasks on a Ray cluster (pip install 'todo-bench[ray]')",
    )
    ray_address: str | None = Field(
        None,
        description="the Ray cluster to use with --executor ray (ray://host:10001, host:6379 or "
        "auto; default: start a local one)",
    )
    shard_size: int = Field(
        4,
        ge=1,
        description="scenarios per shard with --executor ray (a shard: one variant, every epoch)",
    )
    shard_retries: int = Field(
        2, ge=0, description="re-runs of a shard whose worker died, with --executor ray"
    )
    until_decided: bool = Field(
        False,
        description="sequential run: --epochs epochs per batch, batch after batch (batch k "
        "with seed + k - 1) until every watched comparison is decided or a budget is hit "
        "(group-sequential looks, alpha spending by --spending, a futility stop by --futility: "
        "docs/statistics.md)",
    )
    pairs: str | None = _sequential(
        None,
        "the variant pairs watched, BASE:NEW[,...] (default: each against the first)",
        json_schema_extra=_command_line(metavar="A:B,C:D"),
    )
    metrics: str = _sequential(
        DEFAULT_PAIRED_METRICS, f"the metrics watched ({DEFAULT_PAIRED_METRICS})"
    )
    alpha: float = _sequential(
        0.05, "family-wise two-sided error rate over every comparison and look (0.05)", gt=0, lt=1
    )
    tolerance: str | None = _sequential(
        None,
        "YAML metric: tolerated change per episode, as compare's; a comparison whose interval "
        "lies within it is decided (no difference)",
        json_schema_extra=_command_line(metavar="FILE"),
    )
    max_batches: int = _sequential(
        5, f"batches (looks) at most (5; at most {MAX_LOOKS})", ge=1, le=MAX_LOOKS
    )
    max_episodes: int | None = _sequential(
        None,
        "episodes at most, every variant and batch; fewer looks are planned if it allows fewer "
        "than --max-batches",
        ge=1,
        le=MAX_EPISODES,
    )
    max_cost: float | None = _sequential(
        None,
        "dollars at most, at the run's price (--prices); a batch starts only if the cost so far "
        "plus one batch at the mean so far stays within",
        gt=0,
        json_schema_extra=_command_line(metavar="USD"),
    )
    spending: Spending = _sequential(
        "obrien-fleming",
        "the alpha spending function: obrien-fleming (spends little early; the default) or "
        "pocock (spends evenly: a large difference can stop an early look; a higher last bound)",
    )
    futility: float | None = _sequential(
        None,
        "stop a comparison as futile when the chance that the last look decides it, were the "
        "difference its --mde either way, is below P (e.g. 0.1; non-binding: keeps alpha)",
        gt=0,
        lt=1,
        json_schema_extra=_command_line(metavar="P"),
    )
    mde: str | None = _sequential(
        None,
        "with --futility: the smallest difference worth finding per watched metric, "
        "METRIC=VALUE[,...] (e.g. task_success=0.1,dropped_todos=0.3)",
        json_schema_extra=_command_line(metavar="M=V,..."),
    )
