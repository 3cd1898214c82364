"""Logs bound to their run: each log's header must say what run.json and the manifest say.

A log from another run (another seed, model, variant, scenario set or version), dropped into a
submission with its digest updated, has numbers that may happen to match; its header does not.
run.json records no eval or run id, so a log's eval is bound through the eval set beside it
(`eval-set.json`, a listed file of the same folder, names every task id of that eval set), and
no two logs may be the same eval. The model's arguments, which run.json does not record, must be
the same in every log.
"""

from __future__ import annotations

import json
from pathlib import Path

from inspect_ai.log import EvalLog, EvalSpec
from pydantic import BaseModel, ValidationError

from harness.publishing.submission import Manifest
from harness.results.summary import RunRecord

#: the eval set's own record, beside its logs
EVAL_SET = "eval-set.json"
#: task arguments that point outside the shipped code: a row made with them is not re-derived
FOREIGN_ARGS = ("scenario_dir", "designs", "heuristic_rules")


class EvalSetTask(BaseModel):
    """One task of `eval-set.json` (the fields read here)."""

    task_id: str


class EvalSet(BaseModel):
    """`eval-set.json`: the eval set inspect wrote beside its logs (the fields read here)."""

    eval_set_id: str
    tasks: list[EvalSetTask]


def seed_of(spec: EvalSpec) -> object:
    """The seed a log was made with: the simulated agent's model argument, or the generate
    config's seed a hosted model was given."""
    args = spec.model_args or {}
    if "seed" in args:
        return args["seed"]
    return spec.model_generate_config.seed if spec.model_generate_config else None


def bound(
    logs: dict[str, EvalLog], sets: dict[str, str], record: RunRecord, manifest: Manifest
) -> list[str]:
    """One line per disagreement between the headers of a submission's logs (by their path
    under logs/) and run.json and the manifest; `sets` is each folder's eval-set.json text."""
    problems = [
        f"binding: run.json's {name} {found!r} is not the manifest's {wanted!r}"
        for name, found, wanted in (
            ("model", record.model, manifest.model),
            ("seed", record.seed, manifest.seed),
            ("epochs", record.epochs, manifest.epochs),
            # as sets: run.json keeps the command's order, the manifest the board's
            ("variants", sorted(record.variants), sorted(manifest.variants)),
            ("scenario hash", record.provenance.scenario_hash, manifest.versions.scenario_hash),
        )
        if found != wanted
    ]
    variants: dict[str, set[str]] = {}
    eval_ids: dict[str, str] = {}
    model_args: dict[str, str] = {}
    for path, log in sorted(logs.items()):
        spec = log.eval
        problems += [f"binding: logs/{path}: {line}" for line in _header(spec, record, manifest)]
        problems += [f"binding: logs/{path}: {line}" for line in _eval_set(path, spec, sets)]
        if spec.eval_id in eval_ids:
            problems.append(
                f"binding: logs/{path}: eval {spec.eval_id} is also logs/{eval_ids[spec.eval_id]}"
            )
        eval_ids.setdefault(spec.eval_id, path)
        model_args[path] = json.dumps(spec.model_args or {}, sort_keys=True, default=str)
        if log.status == "success":
            variant = str((spec.task_args or {}).get("variant"))
            variants.setdefault(variant, set()).update(
                str(i) for i in spec.dataset.sample_ids or []
            )
    if len(set(model_args.values())) > 1:
        problems.append(
            "binding: the logs were made with different model arguments: "
            + "; ".join(f"logs/{p}: {a}" for p, a in sorted(model_args.items()))
        )
    for variant in record.variants:
        covered = variants.get(variant, set())
        if covered != set(manifest.scenarios):
            missing = sorted(set(manifest.scenarios) - covered)
            problems.append(
                f"binding: variant {variant}: no successful log of scenarios {','.join(missing)}"
                if missing
                else f"binding: variant {variant}: logs of scenarios the run did not select"
            )
    return problems


def _header(spec: EvalSpec, record: RunRecord, manifest: Manifest) -> list[str]:
    """The header's claims that run.json or the manifest contradict."""
    args = spec.task_args or {}
    claims: list[tuple[str, object, object]] = [
        ("model", spec.model, record.model),
        ("seed", seed_of(spec), record.seed),
        ("epochs", spec.config.epochs or 1, record.epochs),
        ("task version", spec.task_version, manifest.versions.task_version),
    ]
    problems = [
        f"its {name} is {found!r}, run.json and the manifest say {wanted!r}"
        for name, found, wanted in claims
        if found != wanted
    ]
    if spec.model != manifest.model:
        problems.append(f"its model is {spec.model!r}, the manifest says {manifest.model!r}")
    variant = args.get("variant")
    if variant not in record.variants or variant not in manifest.variants:
        problems.append(f"its variant {variant!r} is not one of the run's")
    outside = sorted(set(map(str, spec.dataset.sample_ids or [])) - set(manifest.scenarios))
    if outside:
        problems.append(f"its samples {','.join(outside)} are not scenarios of the run")
    problems += [
        f"its task argument {name}={args[name]!r} points outside this todo-bench's code"
        for name in FOREIGN_ARGS
        if args.get(name)
    ]
    return problems


def _eval_set(path: str, spec: EvalSpec, sets: dict[str, str]) -> list[str]:
    """The log's eval against the eval set recorded beside it."""
    folder = str(Path(path).parent)
    text = sets.get(folder)
    if text is None:
        return [f"no {EVAL_SET} beside it to bind its eval to"]
    try:
        recorded = EvalSet.model_validate_json(text)
    except ValidationError:
        return [f"the {EVAL_SET} beside it is not one inspect writes"]
    problems = []
    if spec.eval_set_id != recorded.eval_set_id:
        problems.append(
            f"its eval set {spec.eval_set_id} is not {recorded.eval_set_id}, the one beside it"
        )
    if spec.task_id not in {task.task_id for task in recorded.tasks}:
        problems.append(f"its task {spec.task_id} is not a task of the eval set beside it")
    return problems
