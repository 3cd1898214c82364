"""A run plan split into shards: one shard is one variant over a block of scenarios, with every
epoch, run as one ordinary inspect eval of the same task that leaves one `.eval` log.

The split is deterministic (variants in plan order, scenarios in suite order, `size` per block)
and recorded in the run folder's `shards.json`. Epochs stay in one shard: the simulated agent
seeds each episode from its epoch number, which inspect counts from 1 in every eval, so a shard
of "epochs 2..3" would be a different run. A shard runs into a local temporary folder and its
finished log is then copied into the store under a temporary name and renamed into place, so
the store never holds half a log under a log's name; a shard is done when the store holds a
successful log of all its episodes.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel

from harness import storage
from harness.run.runner import WorkerPlan, run_variant
from harness.todo.variants import Variant


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


class Shard(BaseModel):
    """One variant over a block of scenarios (every epoch)."""

    variant: Variant
    scenarios: list[str]
    index: int  # the block's place in the variant's scenario order

    @property
    def id(self) -> str:
        return f"{self.variant.label}#{self.index:03d}"


class ShardRecord(BaseModel):
    """shards.json: one row per shard, with how often it was attempted and how it ended."""

    id: str
    variant: str
    scenarios: list[str]
    attempts: int = 0
    status: str = "pending"  # done (this run or an earlier one), failed, pending
    error: str | None = None
    #: wall seconds of its last attempt in a worker (eval, log upload), when this driver ran it
    seconds: float | None = None


class ShardFailed(RuntimeError):
    """A shard's eval ended without a complete log (after inspect's own retries)."""


def split(variants: Sequence[Variant], scenarios: Sequence[str], size: int) -> list[Shard]:
    """Every variant's scenarios in blocks of `size` (the last block may be shorter)."""
    if size < 1:
        raise ValueError("shard size must be at least 1")
    return [
        Shard(variant=variant, scenarios=list(scenarios[start : start + size]), index=k)
        for variant in variants
        for k, start in enumerate(range(0, len(scenarios), size))
    ]


def shard_folder(plan: WorkerPlan, shard: Shard) -> str:
    """Where a shard's log lives: `<logs>/<variant>/shard-NNN/`."""
    return storage.join(plan.log_root, shard.variant.label, f"shard-{shard.index:03d}")


def done_episodes(plan: WorkerPlan, shard: Shard, warn: Callable[[str], None] = _stderr) -> int:
    """The shard's episodes if the store holds a whole, successful log of all of them, else 0."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    from harness.results.run_logs import damage  # inspect: not at import

    folder = shard_folder(plan, shard)
    if not storage.exists(folder):
        return 0
    wanted = len(shard.scenarios) * plan.epochs
    for info in list_eval_logs(folder, recursive=False):
        problem = damage(info.name)
        if problem is not None:
            # not a result: kept aside under a name that says so (and that no reader lists),
            # so the shard runs again and the rerun heals the run
            aside = f"{info.name}.damaged"
            storage.rename(info.name, aside)
            warn(
                f"todo-bench: damaged log {info.name} ({problem}); kept as {aside}, "
                "its shard runs again"
            )
            continue
        header = read_eval_log(info, header_only=True)
        results = header.results
        if header.status == "success" and results and results.completed_samples >= wanted:
            return wanted
    return 0


def run_shard(plan: WorkerPlan, shard: Shard) -> int:
    """Run one shard and put its log into the store; returns its episode count."""
    from inspect_ai.log import read_eval_log

    # the worker's pid in the name says which process a leftover folder belonged to
    with tempfile.TemporaryDirectory(prefix=f"todo-bench-shard-{os.getpid()}-") as local:
        here = plan.model_copy(update={"scenarios": ",".join(shard.scenarios), "log_root": local})
        ok = run_variant(here, shard.variant, "none")
        # inspect's own retries may leave failed attempts' logs beside the finished one
        finished = [
            log
            for log in sorted(Path(local).rglob("*.eval"))
            if read_eval_log(str(log), header_only=True).status == "success"
        ]
        if not ok or not finished:
            raise ShardFailed(f"shard {shard.id}: the eval did not finish every episode")
        log = finished[-1]
        storage.put_file(log, storage.join(shard_folder(plan, shard), log.name))
    return len(shard.scenarios) * plan.epochs
