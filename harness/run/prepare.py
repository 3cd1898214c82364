"""A run's options checked and resolved before anything runs: the designs registered, the
variants and scenarios chosen, the model's arguments read and the model checked, the price, the
run's id. Bad input is one line (UsageError, ScenarioError, ProfileError)."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict

from harness.errors import UsageError
from harness.products.product import SandboxKind
from harness.results.provenance import provenance
from harness.results.summary import Price, Provenance, price_for
from harness.run import ray_executor
from harness.run.options import MAX_EPISODES, RunOptions
from harness.run.sequential_plan import stray_sequential
from harness.suite.scenario import Scenario, own_folder, scenario_folder, select
from harness.todo.variants import Variant, parse_variants


class Prepared(BaseModel):
    """What a checked plan resolves to."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    variants: list[Variant]
    scenario_ids: list[str]
    model_args: dict[str, Any]
    is_sim: bool
    price: Price | None
    origin: Provenance
    run_id: str
    #: per variant, the scenarios its row leaves out and why (a CLI row: features it cannot
    #: take yet, `harness/agents/support.py`)
    left_out: dict[str, dict[str, str]] = {}
    #: where the CLI rows' CLIs run (`harness/agents/sandboxes.py`)
    cli_sandbox: SandboxKind = "local"

    @property
    def labels(self) -> list[str]:
        return [v.label for v in self.variants]

    @property
    def has_clis(self) -> bool:
        return any(v.cli is not None for v in self.variants)

    @property
    def episodes(self) -> int:
        return sum(self.planned(label) for label in self.labels)

    def planned(self, label: str) -> int:
        """Episodes of one variant per epoch."""
        return len(self.scenario_ids) - len(self.left_out.get(label, {}))


def prepare(plan: RunOptions) -> Prepared:
    """Check every option that can be checked before a run, and resolve it."""
    if stray := stray_sequential(plan):
        raise UsageError(f"{', '.join(stray)}: only with --until-decided (a sequential run)")
    variants = _variants(plan)
    from harness.run.checked_scenarios import load_verified_dir

    scenarios = select(load_verified_dir(scenario_folder(plan.scenario_dir)), plan.scenarios)
    episodes = len(variants) * len(scenarios) * plan.epochs
    if episodes > MAX_EPISODES:
        raise UsageError(
            f"the plan is {len(variants)} variants x {len(scenarios)} scenarios x {plan.epochs} "
            f"epochs = {episodes:,} episodes; a run has at most {MAX_EPISODES:,} (split it into "
            "several runs)"
        )
    model_args = _model_args(plan.model_arg)
    is_sim = plan.model.startswith("sim/")
    left_out, cli_sandbox = _check_agents(plan, variants, scenarios)
    if is_sim:
        _check_sim(plan, model_args, variants)
    else:
        _check_model(plan.model)
    if plan.heuristic_rules:
        from harness.episode.gate.heuristic import load_table

        load_table(Path(plan.heuristic_rules))  # a broken table is one line now, not per worker
    if plan.executor == "ray" and not ray_executor.available():
        raise UsageError("--executor ray needs Ray: pip install 'todo-bench[ray]'")
    origin = provenance(scenarios, simulated=is_sim)
    scenario_ids = [s.id for s in scenarios]
    keyed = {**model_args, "max_turns": plan.max_turns} if plan.max_turns else model_args
    labels = [v.label for v in variants]
    return Prepared(
        variants=variants,
        scenario_ids=scenario_ids,
        model_args=model_args,
        is_sim=is_sim,
        price=_price(plan),
        origin=origin,
        run_id=_run_id(plan, labels, ",".join(scenario_ids), keyed, origin),
        left_out=left_out,
        cli_sandbox=cli_sandbox,
    )


def _variants(plan: RunOptions) -> list[Variant]:
    from harness.todo.registry import load as load_design

    for spec in plan.design:
        load_design(spec)
    variants = parse_variants(plan.variants)
    if not variants:
        raise UsageError(
            f"--variants {plan.variants!r} names no variant: give one or more, comma-separated, "
            "or a set (headline, products, seed-stack, seed-factorial)"
        )
    # the variants go to the tasks as they are: --gate on a +heuristic row is refused here, as
    # its label was in the task when the task parsed it
    return list(dict.fromkeys(v.switched(inject=plan.inject, gate=plan.gate) for v in variants))


def _model_args(pairs: list[str]) -> dict[str, Any]:
    args: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise UsageError(f"-M expects name=value, got '{pair}'")
        name, raw = pair.split("=", 1)
        try:
            args[name] = json.loads(raw)
        except json.JSONDecodeError:
            args[name] = raw
    return args


def _price(plan: RunOptions) -> Price | None:
    try:
        return price_for(plan.model, Path(plan.prices))
    except (OSError, ValueError, yaml.YAMLError) as error:
        detail = getattr(error, "strerror", None) or str(error).splitlines()[0]
        raise UsageError(
            f"--prices {plan.prices}: not a readable price table ({detail})"
        ) from error


def _run_id(
    plan: RunOptions,
    variants: list[str],
    scenarios: str,
    model_args: dict[str, Any],
    origin: Provenance,
) -> str:
    """Changes with any input that can move a number: model, seed, epochs, variants, scenario
    content, task and sim versions (not the code's bytes: a refactor keeps the run id)."""
    model, seed, epochs = plan.model, plan.seed, plan.epochs
    key = json.dumps(
        [model, seed, epochs, variants, scenarios, model_args, origin.meaning()],
        sort_keys=True,
    )
    slug = model.replace("/", "_").replace(":", "_")
    return f"{slug}-s{seed}-e{epochs}-{hashlib.sha256(key.encode()).hexdigest()[:8]}"


def _check_sim(plan: RunOptions, model_args: dict[str, Any], variants: list[Variant]) -> None:
    """The simulated agent's profile and arguments read, and every design one it can drive;
    its seed and scenario folder are the run's."""
    from harness.models.sim import latency
    from harness.models.sim.profiles import SCENARIO_DIR_ARG, load_profile, split_args

    model_args.setdefault("seed", plan.seed)
    if (folder := own_folder(plan.scenario_dir)) is not None:
        model_args.setdefault(SCENARIO_DIR_ARG, folder)
    overrides, options = split_args(model_args)
    load_profile(plan.model.split("/", 1)[1], overrides)
    latency.parse(options.get(latency.ARG, 0))
    _check_sim_can_drive(variants)


def _check_model(model: str) -> None:
    """Fail fast, before any sample starts, when a provider obviously cannot work."""
    provider = model.split("/", 1)[0]
    if provider == "recover":
        inner = model.partition("/")[2]
        if "/" not in inner:
            raise UsageError("recover models are named recover/<provider>/<model>")
        return _check_model(inner)
    keys = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
    if provider in keys and not os.environ.get(keys[provider]):
        raise UsageError(f"--model {model} needs {keys[provider]} in the environment")
    if provider == "openai-api":
        parts = model.split("/")
        if len(parts) < 3:
            raise UsageError("openai-api models are named openai-api/<service>/<model>")
        service = parts[1].upper().replace("-", "_")
        if not os.environ.get(f"{service}_BASE_URL"):
            raise UsageError(
                f"--model {model} needs {service}_BASE_URL (and {service}_API_KEY) set"
            )


#: models that script their replies: a CLI they drive may run on the host (local sandbox)
SCRIPTED = ("sim/", "mockllm/")


def _check_agents(
    plan: RunOptions, variants: list[Variant], scenarios: list[Scenario]
) -> tuple[dict[str, dict[str, str]], SandboxKind]:
    """Where the shipping agents' CLIs run, and that they can: on this host (installed by
    `make agents`) for a scripted model, or a real one asked by name (with a warning); else in
    the docker sandbox (its image built by `make agents-image`). Scenarios a row cannot take
    yet are left out of it, said here."""
    from harness.agents.binaries import binary
    from harness.agents.sandboxes import check_docker
    from harness.agents.support import left_out

    clis = [v.cli for v in variants if v.cli is not None]
    scripted = plan.model.startswith(SCRIPTED)
    kind: SandboxKind = "local" if scripted or plan.local_sandbox else "docker"
    if clis and kind == "docker":
        check_docker(plan.model)
        for product in clis:
            if product.no_container:
                raise UsageError(
                    f"{product.name} runs on this host only for now ({product.no_container}): "
                    "leave it out, or pass --local-sandbox to run it here (unsafe)"
                )
    for product in clis if kind == "local" else []:
        binary(product)
    if clis and not scripted and kind == "local":
        print(
            f"todo-bench: WARNING: {plan.model} drives a CLI agent on this host with its "
            "permissions bypassed (--local-sandbox): safe only for a scripted model, never for a "
            "real one",
            file=sys.stderr,
        )
    skipped = {v.label: left for v in variants if v.cli and (left := left_out(v.cli, scenarios))}
    said: list[dict[str, str]] = []
    for left in skipped.values():  # one line per distinct list, naming the rows it is for
        if left in said:
            continue
        said.append(left)
        rows = [label for label, other in skipped.items() if other == left]
        print(
            f"todo-bench: {', '.join(rows)} leave{'s' if len(rows) == 1 else ''} out "
            f"{len(left)} scenario(s) they cannot take yet: "
            f"{', '.join(f'{k} ({v})' for k, v in left.items())}",
            file=sys.stderr,
        )
    return skipped, kind


def _check_sim_can_drive(variants: list[Variant]) -> None:
    """Refuse a design whose todo tools the simulated agent does not speak: its row would show
    episodes that measure nothing (the agent calls tools the design does not offer)."""
    from harness.todo.dialects import drivable
    from harness.todo.registry import designs

    registry = designs()
    for variant in variants:
        design = registry.get(variant.design)
        tools = {spec.name for spec in design.tool_specs()} if design else set()
        if design is not None and not drivable(tools):
            raise UsageError(
                f"design {variant.design}: the simulated agent cannot drive its todo tools "
                f"({', '.join(sorted(tools))}); it speaks the seed's tools (todo; add_todo, "
                "update_todo_status, ...) and TodoWrite, update_plan, todo_write, TaskCreate/"
                "TaskUpdate. Run this design with a real model (--model)."
            )
