"""Where a run's episodes run, behind one interface: `executor_for(options).run(plan, folder)`
is True when every variant finished. `LocalExecutor`: worker processes on this machine (one eval
set per variant); `RayExecutor`: the plan's shards as tasks on a Ray cluster."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Protocol

from harness.progress import RunProgress
from harness.run import preflight, ray_executor, runner
from harness.run.folder import RunFolder
from harness.run.options import OWN_DISPLAY, RunOptions
from harness.run.runner import WorkerPlan
from harness.run.shards import ShardRecord, done_episodes, split


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


class RunStopped(Exception):
    """The run was stopped for a cause outside it; the message says which, in one line."""


class Silenced(RunStopped):
    """The model answered nothing for the run's silence limit; the run was stopped."""


class DiskFull(RunStopped):
    """A write of the run found no space left on its device."""


#: episodes left that pay for a second worker process when each costs a fraction of a second
#: (a simulated or scripted agent): a worker's start, importing the harness and inspect, costs
#: some 3-6 s of CPU, and a run of 72 simulated episodes took 6.4 s in one process and 10.4 s in
#: two (216: 26 s either way; 2-core machine, 2026-12-07)
SPAWN_PAYS = 100
#: models whose episodes are CPU-bound and quick: one process unless the run is large
QUICK_MODELS = ("sim/", "mockllm/")


def workers_for(plan: WorkerPlan, asked: int | None, left: int) -> int:
    """Worker processes for a run with `left` episodes to go: as asked, else up to 2 (one per
    core), and one for a quick model's run too small to pay for the second one's start. A
    real model's episodes wait on the provider, and a shipping CLI's on its own start (about
    20 s an episode): two processes run two variants at once."""
    if asked is not None:
        return asked
    quick = plan.model.startswith(QUICK_MODELS) and all(v.cli is None for v in plan.variants)
    if quick and left < SPAWN_PAYS:
        return 1
    return min(2, os.cpu_count() or 1)


class Executor(Protocol):
    def run(self, plan: WorkerPlan, folder: RunFolder) -> bool:
        """Run every episode of the plan not already in the folder's logs."""
        ...


class LocalExecutor:
    """Variants as eval sets, spread over worker processes (`harness/run/runner.py`)."""

    def __init__(self, options: RunOptions, say: Callable[[str], None] = _stderr) -> None:
        self.options, self.say = options, say

    def run(self, plan: WorkerPlan, folder: RunFolder) -> bool:
        options = self.options
        done = runner.completed_episodes(plan)
        workers = workers_for(plan, options.workers, plan.total - done)
        with RunProgress(
            plan.total,
            done,
            enabled=options.display == OWN_DISPLAY,
            silence_limit=None if plan.model.startswith("sim/") else options.silence_limit,
            waiting_for=plan.model,
        ) as display:
            try:
                return runner.run(plan, workers, display)
            except KeyboardInterrupt:
                if display.silenced is None:
                    raise  # the user's Ctrl-C
                raise Silenced(display.silenced) from None
            except Exception as error:  # a worker's, as raised in it: the disk's cause named
                if not preflight.is_disk_full(error):
                    raise
                raise DiskFull(preflight.disk_full(folder.path, display.done, plan.total)) from None


class RayExecutor:
    """The plan's shards not already in the store, on a Ray cluster; their attempts and
    outcome recorded in the folder's shards.json."""

    def __init__(self, options: RunOptions, say: Callable[[str], None] = _stderr) -> None:
        self.options, self.say = options, say

    def run(self, plan: WorkerPlan, folder: RunFolder) -> bool:
        options, say = self.options, self.say
        shards = split(plan.variants, plan.scenarios.split(","), options.shard_size)
        records = {
            s.id: ShardRecord(id=s.id, variant=s.variant.label, scenarios=s.scenarios)
            for s in shards
        }
        for shard_id, attempts in folder.shard_attempts().items():  # earlier drivers' attempts
            if shard_id in records:
                records[shard_id].attempts = attempts
        done, todo = 0, []
        for shard in shards:
            episodes = done_episodes(plan, shard, say)
            if episodes:
                records[shard.id].status = "done"
                done += episodes
            else:
                todo.append(shard)
        if done:
            kept = len(shards) - len(todo)
            say(f"todo-bench: {kept} of {len(shards)} shards already in the store")
        before = {shard_id: record.attempts for shard_id, record in records.items()}
        with RunProgress(plan.total, done, enabled=options.display == OWN_DISPLAY) as display:
            try:
                ray_executor.run_on_ray(
                    plan, todo, records, display, options.ray_address, options.shard_retries
                )
            finally:
                for shard in todo:  # this driver's attempts add to the earlier ones
                    records[shard.id].attempts += before[shard.id]
                folder.write_shards(list(records.values()))
        failed = [r for r in records.values() if r.status != "done"]
        for record in failed:
            say(
                f"todo-bench: shard {record.id} failed after {record.attempts} attempts"
                + (f": {record.error}" if record.error else "")
            )
        return not failed


def executor_for(options: RunOptions, say: Callable[[str], None] = _stderr) -> Executor:
    kinds: dict[str, type[LocalExecutor] | type[RayExecutor]] = {
        "local": LocalExecutor,
        "ray": RayExecutor,
    }
    return kinds[options.executor](options, say)
