"""A benchmark run as a call: `run_benchmark(plan) -> BenchmarkResult`. The CLI's `run`, the
scripts and the tests all run through it: it validates the plan, loads and verifies the
scenarios, checks the model, claims (or resumes) the run folder, runs every variant, and writes
`summary.json` and the markdown leaderboard.

    from harness.run.benchmark import BenchmarkPlan, run_benchmark
    result = run_benchmark(BenchmarkPlan(variants="L0-rewrite,L3-granular", epochs=1))
    result.summary  # the published Summary (None when no episode could be scored)
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

from harness import storage
from harness.errors import UsageError
from harness.progress import RunProgress
from harness.results.provenance import git_commit, provenance
from harness.results.publish import FORMATS, leaderboard
from harness.results.summary import (
    Price,
    Provenance,
    Summary,
    TaskResult,
    price_for,
    write_summary,
)
from harness.run import heap, ray_executor, runner
from harness.run.lease import Lease, LeaseHeld
from harness.run.options import MAX_EPISODES, OWN_DISPLAY, RunOptions
from harness.run.runner import RunPlan
from harness.run.shards import ShardRecord, done_episodes, split
from harness.suite.scenario import SCENARIO_DIR, select
from harness.todo.variants import Variant, parse_variants

RESULTS = Path("results")

#: `run_benchmark`'s plan: the run's options, declared once in `harness/run/options.py`
BenchmarkPlan = RunOptions


class CpuPhases(BaseModel):
    """CPU seconds (user + system) of the run's driver process and its finished local worker
    processes, by phase (Ray workers are on other machines and are not counted)."""

    #: imports, scenario checks, the run folder: everything before the first episode
    before_episodes: float
    episodes: float
    #: reading the logs, the statistics, the leaderboard
    after_episodes: float


class Timing(BaseModel):
    """`timing.json`: how long a run took. Kept apart from `summary.json`, which is
    byte-identical for the same model, seed and inputs; this is not."""

    wall_seconds: float
    cpu_seconds: CpuPhases | None = None  # None in run folders made before 2026-12-03


def _cpu() -> float:
    """CPU seconds of this process and of its finished child processes, so far."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


class BenchmarkResult(BaseModel):
    """What a run produced."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    run_dir: str  # a local path or an object-store URL
    summary: Summary | None
    #: every variant ran and every episode was scored
    complete: bool
    elapsed: float
    problems: list[str] = Field(default_factory=list)


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


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


def _run_id(
    model: str,
    seed: int,
    epochs: int,
    variants: list[str],
    scenarios: str,
    model_args: dict[str, Any],
    origin: Provenance,
) -> str:
    """Changes with any input that can move a number: model, seed, epochs, variants, scenario
    content, task and sim versions (not the code's bytes: a refactor keeps the run id)."""
    key = json.dumps(
        [model, seed, epochs, variants, scenarios, model_args, origin.meaning()],
        sort_keys=True,
    )
    slug = model.replace("/", "_").replace(":", "_")
    return f"{slug}-s{seed}-e{epochs}-{hashlib.sha256(key.encode()).hexdigest()[:8]}"


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


def _check_sim_can_drive(variants: list[Variant]) -> None:
    """Refuse a design whose todo tools the simulated agent does not speak: its row would show
    episodes that measure nothing (the agent calls tools the design does not offer)."""
    from harness.models.sim.dialects import drivable
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


class RunRecord(BaseModel):
    """run.json: what a run folder's logs were made with; a resume must match it."""

    model: str
    variants: list[str]
    seed: int
    epochs: int
    provenance: Provenance
    git_commit: str | None = None
    #: the price the run's cost was computed with (`--prices`), so `rescore` prices it the same;
    #: unset in run folders made before 2026-12-04 (rescore then reads the shipped table)
    price: Price | None = None
    priced: bool = False


def _claim_run_dir(
    run_dir: str,
    model: str,
    variants: list[str],
    seed: int,
    epochs: int,
    origin: Provenance,
    price: Price | None,
) -> None:
    """Write run.json, or refuse to resume into logs made with other inputs or versions."""
    record = RunRecord(
        model=model,
        variants=variants,
        seed=seed,
        epochs=epochs,
        provenance=origin,
        git_commit=git_commit(),
        price=price,
        priced=True,
    )
    path = storage.join(run_dir, "run.json")
    try:
        found = storage.is_file(path)
    except (OSError, ValueError, ImportError) as error:
        raise UsageError(f"--out {run_dir}: cannot reach it ({error})") from error
    if found:
        try:
            old = RunRecord.model_validate_json(storage.read_text(path))
        except (OSError, ValueError) as error:
            raise UsageError(f"{path}: unreadable run record; use --fresh to start over") from error
        # compared by meaning: a run made by code that differs only in comments or structure
        # resumes; one made under another task or sim version does not
        before, now = old.provenance.meaning(), origin.meaning()
        differs = [
            name
            for name, a, b in (
                ("model", old.model, model),
                *((key, before[key], now[key]) for key in now),
                ("seed", old.seed, seed),
                ("epochs", old.epochs, epochs),
            )
            if a != b
        ]
        if differs:
            raise UsageError(
                f"{run_dir} holds a run made with another {', '.join(differs)}; "
                "resuming would mix them (use --fresh to start over, or another --out)"
            )
        record = record.model_copy(update={"variants": sorted({*old.variants, *variants})})
    try:
        storage.write_text(path, record.model_dump_json(indent=2) + "\n")
    except OSError as error:
        reason = error.strerror or str(error)
        raise UsageError(f"--out {run_dir}: cannot write there ({reason})") from error


def _refuse_published(run_dir: str) -> None:
    """A folder of published results (a summary.json but no run.json: results/latest,
    results/products in a clone) is not a run to resume: a run named into it must say --fresh."""
    try:
        published = storage.is_file(storage.join(run_dir, "summary.json")) and not (
            storage.is_file(storage.join(run_dir, "run.json"))
        )
    except (OSError, ValueError, ImportError) as error:
        raise UsageError(f"--out {run_dir}: cannot reach it ({error})") from error
    if published:
        raise UsageError(
            f"--out {run_dir} holds published results (a summary.json, no run.json of a run to "
            f"resume); a run does not write over them: use another --out, --publish {run_dir} "
            "to publish a run there as a whole set, or --fresh to replace them"
        )


def _check_publish(folder: str, run_dir: str) -> None:
    """--publish names a folder of published results that can be written, before the run."""
    if not folder.strip():
        raise UsageError("--publish '': an empty path names no folder")
    local = not storage.is_url(folder)
    if local and Path(folder).exists() and not Path(folder).is_dir():
        raise UsageError(f"--publish {folder}: a file, not a folder")
    same = (
        os.path.abspath(folder) == os.path.abspath(run_dir)
        if local and not storage.is_url(run_dir)
        else folder.rstrip("/") == run_dir.rstrip("/")
    )
    try:
        if same or storage.is_file(storage.join(folder, "run.json")):
            raise UsageError(
                f"--publish {folder}: a run folder; publish into a folder of its own, such as "
                "results/latest"
            )
        storage.make_dirs(folder)
    except (OSError, ValueError, ImportError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise UsageError(f"--publish {folder}: cannot write there ({reason})") from error


#: the picture of the html page beside the published set (scripts/regenerate.sh once made it)
SCREENSHOT = "leaderboard.png"


def publish_set(summary: Summary, folder: str, say: Callable[[str], None] = _stderr) -> None:
    """Publish a run into a folder as a whole set: summary.json and every leaderboard format
    (`FORMATS`: md, html, tex, csv), and the page's screenshot, leaderboard.png, retaken when
    chromium is installed and removed otherwise (it would show other numbers). A folder that
    already holds this summary byte for byte, and every format, is left as it is: the html
    page carries the date it was rendered, so rewriting it would change a committed file for
    nothing (`todo-bench report FOLDER` renders it again on purpose)."""
    text = summary.model_dump_json(indent=2) + "\n"
    files = {name: render for name, render in FORMATS.values() if name is not None}
    current = storage.join(folder, "summary.json")
    if (
        storage.is_file(current)
        and storage.read_text(current) == text
        and all(storage.is_file(storage.join(folder, name)) for name in files)
    ):
        say(f"todo-bench: {folder} already holds this summary; left as it is")
        return
    # everything rendered before anything is written: a rendering failure leaves the old set
    rendered = {name: render(summary) for name, render in files.items()}
    write_summary(summary, current)
    for name, content in rendered.items():
        storage.write_text(storage.join(folder, name), content)
    picture = _retake_screenshot(folder)
    say(f"todo-bench: published to {folder}: summary.json, {', '.join(rendered)}{picture}")


def _browser() -> str | None:
    """The chromium that takes the screenshot, if one is installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _retake_screenshot(folder: str) -> str:
    """Take leaderboard.png of the new page with chromium, or remove the old one."""
    target = storage.join(folder, SCREENSHOT)
    browser = _browser()
    if browser and not storage.is_url(folder):
        page = Path(folder, "leaderboard.html").resolve()
        command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
        command += ["--window-size=1800,2600", f"--screenshot={Path(target).resolve()}"]
        try:
            done = subprocess.run(
                [*command, page.as_uri()], capture_output=True, timeout=120, check=False
            )
            if done.returncode == 0 and Path(target).is_file():
                return f", {SCREENSHOT}"
        except (OSError, subprocess.TimeoutExpired):
            pass
    if not storage.exists(target):
        return ""
    storage.remove_tree(target)
    return (
        f"; {SCREENSHOT} removed: it showed the numbers before "
        "(scripts/regenerate.sh retakes it where chromium is installed)"
    )


def publish_run(summary: Summary, folder: str | Path) -> str:
    """Write a run's summary.json and its full markdown leaderboard into a folder (a path or
    an object-store URL); returns the leaderboard."""
    board = leaderboard(summary, "md")
    write_summary(summary, storage.join(folder, "summary.json"))
    storage.write_text(storage.join(folder, "leaderboard.md"), board)
    return board


def run_benchmark(plan: BenchmarkPlan, say: Callable[[str], None] = _stderr) -> BenchmarkResult:
    """Run a plan (see the module docstring); `say` receives the status lines (stderr by
    default). Bad input raises UsageError (or ScenarioError, ProfileError) with one line."""
    from harness.todo.registry import load as load_design

    if plan.out is not None and not plan.out.strip():
        raise UsageError(
            "--out '': an empty path names no folder (without --out a run writes "
            "results/runs/<run-id>)"
        )
    for spec in plan.design:
        load_design(spec)
    variants = parse_variants(plan.variants)
    if not variants:
        raise UsageError(
            f"--variants {plan.variants!r} names no variant: give one or more, comma-separated, "
            "or a set (headline, products, seed-stack, seed-factorial)"
        )
    if plan.gate or plan.inject:
        variants = [
            v.model_copy(update={"gate": v.gate or plan.gate, "inject": v.inject or plan.inject})
            for v in variants
        ]
        variants = list(dict.fromkeys(variants))
    from harness.run.scenario_check import load_verified_dir

    scenarios = select(load_verified_dir(Path(plan.scenario_dir)), plan.scenarios)
    episodes = len(variants) * len(scenarios) * plan.epochs
    if episodes > MAX_EPISODES:
        raise UsageError(
            f"the plan is {len(variants)} variants x {len(scenarios)} scenarios x {plan.epochs} "
            f"epochs = {episodes:,} episodes; a run has at most {MAX_EPISODES:,} (split it into "
            "several runs)"
        )
    scenario_ids = ",".join(s.id for s in scenarios)
    model_args = _model_args(plan.model_arg)
    model = plan.model
    is_sim = model.startswith("sim/")
    if is_sim:
        model_args.setdefault("seed", plan.seed)
        if plan.scenario_dir != str(SCENARIO_DIR):
            model_args.setdefault("scenario_dir", plan.scenario_dir)
        from harness.models.sim.profiles import load_profile

        load_profile(
            model.split("/", 1)[1], {k: v for k, v in model_args.items() if k != "scenario_dir"}
        )
        _check_sim_can_drive(variants)
    else:
        _check_model(model)
    try:
        price = price_for(model, Path(plan.prices))
    except (OSError, ValueError, yaml.YAMLError) as error:
        detail = getattr(error, "strerror", None) or str(error).splitlines()[0]
        raise UsageError(
            f"--prices {plan.prices}: not a readable price table ({detail})"
        ) from error
    if plan.heuristic_rules:
        from harness.episode.gate.heuristic import load_table

        load_table(Path(plan.heuristic_rules))  # a broken table is one line now, not per worker
    labels = [v.label for v in variants]
    origin = provenance(scenarios, simulated=is_sim)
    run_dir = (
        plan.out
        if plan.out
        else storage.join(
            RESULTS,
            "runs",
            _run_id(
                model,
                plan.seed,
                plan.epochs,
                labels,
                scenario_ids,
                {**model_args, "max_turns": plan.max_turns} if plan.max_turns else model_args,
                origin,
            ),
        )
    )
    if plan.executor == "ray" and not ray_executor.available():
        raise UsageError("--executor ray needs Ray: pip install 'todo-bench[ray]'")
    if not storage.is_url(run_dir) and Path(run_dir).exists() and not Path(run_dir).is_dir():
        raise UsageError(f"--out {run_dir}: a file, not a folder")
    if plan.out and not plan.fresh:
        _refuse_published(run_dir)
    if plan.publish is not None:
        _check_publish(plan.publish, run_dir)
    lease = Lease(run_dir)
    try:
        lease.acquire()
    except LeaseHeld as error:
        raise UsageError(str(error)) from error
    except OSError as error:
        reason = error.strerror or str(error)
        raise UsageError(f"--out {run_dir}: cannot write there ({reason})") from error
    try:
        return _run_claimed(
            plan, run_dir, model, model_args, variants, scenario_ids, price, origin, is_sim, say
        )
    except Exception as error:
        # inspect's own log writes and reads fail with the store's library's errors: when the
        # store does not answer, that is the cause the user gets, in one line
        if storage.is_url(run_dir) and not isinstance(error, storage.StoreError):
            try:
                storage.exists(run_dir)
            except storage.StoreError as fault:
                raise fault from error
        raise
    finally:
        lease.release()


def _run_claimed(
    plan: BenchmarkPlan,
    run_dir: str,
    model: str,
    model_args: dict[str, Any],
    variants: list[Variant],
    scenario_ids: str,
    price: Price | None,
    origin: Provenance,
    is_sim: bool,
    say: Callable[[str], None],
) -> BenchmarkResult:
    """The run, with the folder's lease held: claim, run, summarize, publish."""
    labels = [v.label for v in variants]
    scenario_count = len(scenario_ids.split(","))
    if plan.fresh:  # everything but the lease this driver holds
        for name in storage.children(run_dir):
            if name != "driver.lock":
                storage.remove_tree(storage.join(run_dir, name))
    _claim_run_dir(run_dir, model, labels, plan.seed, plan.epochs, origin, price)
    log_dir = storage.join(run_dir, "logs")
    storage.make_dirs(log_dir)
    if plan.workers > 1 and len(variants) > 1 and plan.display not in (OWN_DISPLAY, "none"):
        say(f"todo-bench: {plan.workers} worker processes; inspect's display shown for the first")
    say(
        f"todo-bench: {len(variants)} variants x {scenario_count} scenarios x "
        f"{plan.epochs} epochs on {model} -> {run_dir}"
    )
    started = time.monotonic()
    # `timeout` alone is checked between attempts (a server that never answers would hang the
    # run): `attempt_timeout` bounds each attempt too
    generate: dict[str, Any] = {
        "max_retries": plan.max_retries,
        "timeout": plan.timeout,
        "attempt_timeout": plan.timeout,
    }
    if not is_sim:
        # a small local model can ramble until its context is full: bound every reply
        generate.update(seed=plan.seed, max_tokens=plan.max_tokens)
    run_plan = RunPlan(
        model=model,
        model_args=model_args,
        variants=variants,
        scenarios=scenario_ids,
        # the shipped suite is left implicit so logs and run ids do not carry this machine's path
        scenario_dir=None if plan.scenario_dir == str(SCENARIO_DIR) else plan.scenario_dir,
        epochs=plan.epochs,
        max_turns=plan.max_turns,
        log_root=log_dir,
        display=plan.display,
        generate=generate,
        retry_attempts=plan.retry_attempts,
        max_samples=plan.max_samples,
        designs=plan.design,
        heuristic_rules=plan.heuristic_rules,
    )
    from harness.results.report import read_run, summarize

    heap.settle()  # every import of this process is done: the episodes come next
    cpu_before = _cpu()
    total = len(variants) * scenario_count * plan.epochs
    if plan.executor == "ray":
        success = _run_shards(plan, run_plan, run_dir, total, say)
    else:
        with RunProgress(
            total,
            runner.completed_episodes(run_plan),
            enabled=plan.display == OWN_DISPLAY,
            silence_limit=None if is_sim else plan.silence_limit,
            waiting_for=model,
        ) as display:
            try:
                success = runner.run(run_plan, plan.workers, display)
            except KeyboardInterrupt:
                if display.silenced is None:
                    raise  # the user's Ctrl-C
                return BenchmarkResult(
                    run_dir=run_dir,
                    summary=None,
                    complete=False,
                    elapsed=time.monotonic() - started,
                    problems=[display.silenced],
                )
    elapsed = time.monotonic() - started
    cpu_episodes = _cpu()
    results, problems = read_run(log_dir, warn=say)
    problems += _missing_episodes(results, labels, scenario_count * plan.epochs)
    if not results:
        return BenchmarkResult(
            run_dir=run_dir, summary=None, complete=False, elapsed=elapsed, problems=problems
        )
    summary = summarize(
        results,
        seed=plan.seed,
        price=price,
        provenance=origin,
        problems=problems,
        expected=labels,
    )
    publish_run(summary, run_dir)  # the run's own folder, and nothing else unless asked
    complete = success and summary.complete
    if plan.publish is not None:
        if complete:
            publish_set(summary, plan.publish, say)
        else:
            say(f"todo-bench: not published to {plan.publish}: the run is INCOMPLETE")
    phases = CpuPhases(
        before_episodes=round(cpu_before, 2),
        episodes=round(cpu_episodes - cpu_before, 2),
        after_episodes=round(_cpu() - cpu_episodes, 2),
    )
    timing = Timing(wall_seconds=round(elapsed, 1), cpu_seconds=phases)
    storage.write_text(
        storage.join(run_dir, "timing.json"), timing.model_dump_json(indent=2) + "\n"
    )
    return BenchmarkResult(
        run_dir=run_dir,
        summary=summary,
        complete=complete,
        elapsed=elapsed,
        problems=list(summary.problems),
    )


def _missing_episodes(results: list[TaskResult], labels: list[str], expected: int) -> list[str]:
    """A variant with fewer episodes than the plan asked for (a shard that never finished)."""
    counts = {result.variant: len(result.episodes) for result in results}
    return [
        f"{label}: {expected - counts[label]} of {expected} episodes missing"
        for label in labels
        if label in counts and counts[label] < expected
    ]


def _run_shards(
    plan: BenchmarkPlan, run_plan: RunPlan, run_dir: str, total: int, say: Callable[[str], None]
) -> bool:
    """`--executor ray`: the plan's shards, those not already in the store, on a Ray cluster;
    their attempts and outcome recorded in shards.json. True if every shard is done."""
    shards = split(run_plan.variants, run_plan.scenarios.split(","), plan.shard_size)
    records = {
        shard.id: ShardRecord(id=shard.id, variant=shard.variant.label, scenarios=shard.scenarios)
        for shard in shards
    }
    path = storage.join(run_dir, "shards.json")
    if storage.is_file(path):  # attempts made by earlier drivers of this run
        for row in json.loads(storage.read_text(path)):
            earlier = ShardRecord.model_validate(row)
            if earlier.id in records:
                records[earlier.id].attempts = earlier.attempts
    done = 0
    todo = []
    for shard in shards:
        episodes = done_episodes(run_plan, shard, say)
        if episodes:
            records[shard.id].status = "done"
            done += episodes
        else:
            todo.append(shard)
    if done:
        say(f"todo-bench: {len(shards) - len(todo)} of {len(shards)} shards already in the store")
    before = {shard_id: record.attempts for shard_id, record in records.items()}
    with RunProgress(total, done, enabled=plan.display == OWN_DISPLAY) as display:
        try:
            ray_executor.run_on_ray(
                run_plan, todo, records, display, plan.ray_address, plan.shard_retries
            )
        finally:
            for shard in todo:  # this driver's attempts add to the earlier ones
                records[shard.id].attempts += before[shard.id]
            storage.write_text(
                path,
                json.dumps([r.model_dump() for r in records.values()], indent=2) + "\n",
            )
    failed = [r for r in records.values() if r.status != "done"]
    for record in failed:
        say(
            f"todo-bench: shard {record.id} failed after {record.attempts} attempts"
            + (f": {record.error}" if record.error else "")
        )
    return not failed
