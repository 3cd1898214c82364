"""`--executor ray`: a run's shards as Ray tasks on any node of a cluster.

Each shard is one task (one CPU) that runs its own inspect eval and puts its log into the store
(`harness/run/shards.py`); the driver shows one bar over all shards' episodes and writes the
summary when every log is in. A task whose worker dies (a killed process, a lost node) is run
again by Ray, up to `retries` times; a tally actor counts each shard's attempts and live
episodes, so a retried shard's episodes are not counted twice on the bar, and the attempts are
recorded in `shards.json`. Ray is an optional extra (`pip install 'todo-bench[ray]'`).
"""

from __future__ import annotations

import importlib.util
import os
import signal
import time
from typing import Any

from harness import progress
from harness.progress import RunProgress
from harness.run.runner import WorkerPlan
from harness.run.shards import Shard, ShardRecord, run_shard

#: environment a worker on another node needs to reach the same store and model servers
FORWARDED = (
    "AWS_ENDPOINT_URL",
    "AWS_ENDPOINT_URL_S3",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_DEFAULT_REGION",
    "AWS_REGION",
)
#: fault injection, for the tests and for trying a cluster's retry settings: a file path on a
#: filesystem the workers share; the first worker to claim it (rename it away) kills itself with
#: SIGKILL right after its shard's first episode, as when a node is lost
KILL_SWITCH = "TODO_BENCH_KILL_ONE_WORKER"
#: and every provider's key and server address (ANTHROPIC_API_KEY, LLAMA_CPP_BASE_URL, ...)
FORWARDED_SUFFIXES = ("_API_KEY", "_BASE_URL")


def forwarded_env() -> dict[str, str]:
    return {
        name: value
        for name, value in os.environ.items()
        if name in FORWARDED or name == KILL_SWITCH or name.endswith(FORWARDED_SUFFIXES)
    }


def available() -> bool:
    return importlib.util.find_spec("ray") is not None


class _Tally:
    """A Ray actor: per shard, its attempts, whether it runs, and its episodes this attempt."""

    def __init__(self) -> None:
        self.attempts: dict[str, int] = {}
        self.episodes: dict[str, int] = {}
        self.running: dict[str, int] = {}  # shard id -> worker pid
        self.started: dict[str, float] = {}
        self.seconds: dict[str, float] = {}

    def start(self, shard: str, pid: int) -> None:
        self.attempts[shard] = self.attempts.get(shard, 0) + 1
        self.episodes[shard] = 0
        self.running[shard] = pid
        self.started[shard] = time.monotonic()

    def tick(self, shard: str, n: int) -> None:
        self.episodes[shard] = self.episodes.get(shard, 0) + n

    def stop(self, shard: str) -> None:
        self.running.pop(shard, None)
        self.seconds[shard] = round(time.monotonic() - self.started[shard], 2)

    def state(self) -> tuple[dict[str, int], dict[str, int], dict[str, int], dict[str, float]]:
        return dict(self.attempts), dict(self.episodes), dict(self.running), dict(self.seconds)


def _shard_task(plan: WorkerPlan, shard: Shard, tally: Any) -> int:
    """One attempt at a shard, in a Ray worker process (the plan and shard pickled as they
    are, like a local worker's: no variant is validated from its label before its design
    is registered)."""
    import ray

    ray.get(tally.start.remote(shard.id, os.getpid()))

    def tick(n: int) -> None:
        tally.tick.remote(shard.id, n)
        _die_if_armed()

    progress.attach(tick)
    try:
        return run_shard(plan, shard)
    finally:
        progress.attach(None)
        ray.get(tally.stop.remote(shard.id))


def _die_if_armed() -> None:
    switch = os.environ.get(KILL_SWITCH)
    if not switch:
        return
    try:
        os.rename(switch, f"{switch}.claimed")  # atomic: one worker claims it
    except OSError:
        return
    os.kill(os.getpid(), signal.SIGKILL)


def run_on_ray(
    plan: WorkerPlan,
    shards: list[Shard],
    records: dict[str, ShardRecord],
    display: RunProgress,
    address: str | None,
    retries: int,
) -> None:
    """Run the shards not yet done on a Ray cluster (`address`; None starts a local one),
    updating `records` (attempts, status, error) as they finish."""
    if not shards:
        return
    import ray

    env = forwarded_env()
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(
            address=address,
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
            runtime_env={"env_vars": env} if env else None,
        )
    try:
        tally: Any = ray.remote(_Tally).options(num_cpus=0).remote()
        task: Any = ray.remote(_shard_task).options(
            num_cpus=1, max_retries=retries, retry_exceptions=False
        )
        base = display.done
        pending = {task.remote(plan, shard, tally): shard for shard in shards}
        failed = 0
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=len(pending), timeout=0.5)
            for ref in ready:
                shard = pending.pop(ref)
                record = records[shard.id]
                try:
                    ray.get(ref)
                    record.status, record.error = "done", None
                except ray.exceptions.RayError as error:
                    failed += 1
                    record.status = "failed"
                    record.error = str(error).strip().splitlines()[-1][:300]
            attempts, episodes, running, seconds = ray.get(tally.state.remote())
            for shard_id, count in attempts.items():
                records[shard_id].attempts = count
            for shard_id, taken in seconds.items():
                records[shard_id].seconds = taken
            finished = sum(1 for r in records.values() if r.status == "done")
            display.status(
                f"shards: {len(running)} running, {finished}/{len(records)} done, {failed} failed"
            )
            display.advance(base + sum(episodes.values()) - display.done)
    finally:
        if started_here:
            ray.shutdown()
