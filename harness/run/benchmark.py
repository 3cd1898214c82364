"""A benchmark run as a call: `run_benchmark(plan) -> BenchmarkResult`. The CLI's `run`, the
scripts and the tests all run through it: the plan is checked and resolved (`prepare.py`), the
run folder claimed or resumed (`folder.py`), the episodes run by an executor (`executors.py`),
and the folder gets `summary.json` and the markdown leaderboard (and `--publish` a whole set).

    from harness.run import RunOptions, run_benchmark
    result = run_benchmark(RunOptions(variants="L0-rewrite,L3-granular", epochs=1))
    result.summary  # the published Summary (None when no episode could be scored)
"""

from __future__ import annotations

import gc
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from harness.errors import UsageError
from harness.publishing.outputs import publish_set
from harness.results.summary import Summary, TaskResult
from harness.run import heap, preflight
from harness.run.executors import RunStopped, executor_for
from harness.run.folder import CpuPhases, RunFolder, RunRecord, Timing
from harness.run.options import OWN_DISPLAY, RunOptions
from harness.run.prepare import Prepared, prepare
from harness.run.runner import WorkerPlan
from harness.suite.scenario import own_folder


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


def _cpu() -> float:
    """CPU seconds of this process and of its finished child processes, so far."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def run_benchmark(plan: RunOptions, say: Callable[[str], None] = _stderr) -> BenchmarkResult:
    """Run a plan (see the module docstring); `say` receives the status lines (stderr by
    default). Bad input raises UsageError (or ScenarioError, ProfileError) with one line. A
    sequential plan (`until_decided`) is `harness.run.sequential.run_sequential`'s."""
    if plan.until_decided:
        raise UsageError("until_decided: a sequential plan; run it with run_sequential")
    ready = prepare(plan)
    preflight.check_home()
    preflight.check_inspect(plan.model)
    folder = RunFolder.open(plan.out, ready.run_id, fresh=plan.fresh)
    if plan.publish is not None:
        folder.check_publish(plan.publish)
    with folder.held():
        folder.start(run_record(plan, ready), fresh=plan.fresh)
        run_plan = _run_plan(plan, ready, folder)
        _announce(plan, ready, folder, say)
        heap.settle()  # every import of this process is done: the episodes come next
        started, cpu_before = time.monotonic(), _cpu()
        try:
            success = executor_for(plan, say).run(run_plan, folder)
        except RunStopped as stopped:  # silence, a full disk: one line, resumable
            return _result(folder, None, False, time.monotonic() - started, [str(stopped)])
        elapsed, cpu_episodes = time.monotonic() - started, _cpu()
        read_run, summarize = _statistics()
        results, problems = read_run(folder.logs, warn=say)
        expected = {label: ready.planned(label) * plan.epochs for label in ready.labels}
        if not success and (full := preflight.disk_full_line(folder.path, results, expected)):
            return _result(folder, None, False, elapsed, [full])
        problems += _missing_episodes(results, expected)
        if not results:
            return _result(folder, None, False, elapsed, problems)
        summary = summarize(
            results,
            seed=plan.seed,
            price=ready.price,
            provenance=ready.origin,
            problems=problems,
            expected=ready.labels,
        )
        # the run's own folder, and nothing else unless asked
        if unwritten := preflight.published(folder, summary, results, expected):
            return _result(folder, None, False, elapsed, unwritten)
        complete = success and summary.complete
        _publish_set(plan, summary, complete, say)
        if complete:
            _keep_episodes(plan.publish, folder, results, ready)
        folder.write_timing(_timing(elapsed, cpu_before, cpu_episodes))
        return _result(folder, summary, complete, elapsed, list(summary.problems))


def _statistics() -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The summary's readers, imported once the episodes are done: scipy, statsmodels and pandas
    cost about 0.7 s of CPU that no episode needs (imported with the collector off, as the run's
    other imports are: `heap.py`)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        from harness.results.run_logs import read_run
        from harness.stats.aggregate import summarize
    finally:
        if enabled:
            gc.enable()
    return read_run, summarize


def _timing(elapsed: float, cpu_before: float, cpu_episodes: float) -> Timing:
    """The run's wall time and its CPU seconds before, during and after the episodes."""
    phases = CpuPhases(
        before_episodes=round(cpu_before, 2),
        episodes=round(cpu_episodes - cpu_before, 2),
        after_episodes=round(_cpu() - cpu_episodes, 2),
    )
    return Timing(wall_seconds=round(elapsed, 1), cpu_seconds=phases)


def run_record(plan: RunOptions, ready: Prepared) -> RunRecord:
    """run.json: what the run's logs are made with (a resume must match it), its price, and
    what each shipping agent's row ran (product, version, switches)."""
    from harness.agents.support import agent_record

    return RunRecord(
        model=plan.model,
        model_args=ready.model_args,
        variants=ready.labels,
        seed=plan.seed,
        epochs=plan.epochs,
        provenance=ready.origin,
        price=ready.price,
        agents={
            v.label: agent_record(v.cli, ready.left_out.get(v.label, {}), ready.cli_sandbox)
            for v in ready.variants
            if v.cli is not None
        },
        cli_sandbox=ready.cli_sandbox if ready.has_clis else None,
    )


def _announce(
    plan: RunOptions, ready: Prepared, folder: RunFolder, say: Callable[[str], None]
) -> None:
    if (
        (plan.workers or 1) > 1
        and len(ready.variants) > 1
        and plan.display
        not in (
            OWN_DISPLAY,
            "none",
        )
    ):
        say(f"todo-bench: {plan.workers} worker processes; inspect's display for the first")
    say(
        f"todo-bench: {len(ready.variants)} variants x {len(ready.scenario_ids)} scenarios x "
        f"{plan.epochs} epochs on {plan.model} -> {folder.path}"
    )


def _result(
    folder: RunFolder, summary: Summary | None, complete: bool, elapsed: float, problems: list[str]
) -> BenchmarkResult:
    return BenchmarkResult(
        run_dir=folder.path, summary=summary, complete=complete, elapsed=elapsed, problems=problems
    )


def _run_plan(plan: RunOptions, ready: Prepared, folder: RunFolder) -> WorkerPlan:
    """What every worker needs: the resolved plan, picklable."""
    # `timeout` alone is checked between attempts (a server that never answers would hang the
    # run): `attempt_timeout` bounds each attempt too
    generate: dict[str, Any] = {
        "max_retries": plan.max_retries,
        "timeout": plan.timeout,
        "attempt_timeout": plan.timeout,
    }
    if not ready.is_sim:
        # a small local model can ramble until its context is full: bound every reply
        generate.update(seed=plan.seed, max_tokens=plan.max_tokens)
    return WorkerPlan(
        model=plan.model,
        model_args=ready.model_args,
        variants=ready.variants,
        scenarios=",".join(ready.scenario_ids),
        scenario_dir=own_folder(plan.scenario_dir),
        epochs=plan.epochs,
        max_turns=plan.max_turns,
        log_root=folder.logs,
        display=plan.display,
        generate=generate,
        retry_attempts=plan.retry_attempts,
        max_samples=plan.max_samples,
        designs=plan.design,
        heuristic_rules=plan.heuristic_rules,
        episodes=ready.episodes * plan.epochs,
        cli_sandbox=ready.cli_sandbox,
    )


def _publish_set(
    plan: RunOptions, summary: Summary, complete: bool, say: Callable[[str], None]
) -> None:
    """`--publish DIR`: a complete run's whole set of formats into DIR."""
    if plan.publish is None:
        return
    if complete:
        publish_set(summary, plan.publish, say)
    else:
        say(f"todo-bench: not published to {plan.publish}: the run is INCOMPLETE")


def _keep_episodes(
    publish: str | None, folder: RunFolder, results: list[TaskResult], ready: Prepared
) -> None:
    """The episodes beside the run's summary, and beside the published board's: `rescore`
    rebuilds either from them without the logs (which are not committed) and without a rerun."""
    from harness.results.kept import write_kept
    from harness.run.rescore_kept import kept_of_logs

    episodes = kept_of_logs(folder.logs, results, ready.price)
    for where in (folder.path, publish):
        if where is not None:
            write_kept(episodes, where)


def _missing_episodes(results: list[TaskResult], expected: dict[str, int]) -> list[str]:
    """A variant with fewer episodes than the plan asked for (a shard that never finished)."""
    counts = {result.variant: len(result.episodes) for result in results}
    return [
        f"{label}: {planned - counts[label]} of {planned} episodes missing"
        for label, planned in expected.items()
        if label in counts and counts[label] < planned
    ]
