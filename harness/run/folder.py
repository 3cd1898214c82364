"""A run folder and its life: where it is, whether a run may write there, the lease that keeps
one driver on it, its record (`run.json`: what its logs were made with, and the price), a fresh
start, `shards.json`, `timing.json`, and its own summary and board. A local path or an
object-store URL (`harness/storage.py`)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel

from harness import storage
from harness.errors import UsageError
from harness.publishing.outputs import publish_run
from harness.results.provenance import git_commit
from harness.results.summary import RunRecord as RunRecord
from harness.results.summary import Summary
from harness.run.lease import Lease, LeaseHeld
from harness.run.shards import ShardRecord

#: where runs go without --out: results/runs/<run id>
RUNS = Path("results") / "runs"


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


def _reason(error: BaseException) -> str:
    return getattr(error, "strerror", None) or str(error)


class RunFolder:
    """One run's folder: `RunFolder.open(...)` checks it, `held()` holds it, `claim()` records
    the run; the logs go to `logs`."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.logs = storage.join(path, "logs")

    @classmethod
    def open(cls, out: str | None, run_id: str, *, fresh: bool) -> RunFolder:
        """The folder a run writes: `--out`, or results/runs/<run id>. A folder of published
        results named with --out (a summary.json, no run.json) is refused unless --fresh."""
        if out is not None and not out.strip():
            raise UsageError(
                "--out '': an empty path names no folder (without --out a run writes "
                "results/runs/<run-id>)"
            )
        folder = cls(out or storage.join(RUNS, run_id))
        local = not storage.is_url(folder.path)
        if local and Path(folder.path).exists() and not Path(folder.path).is_dir():
            raise UsageError(f"--out {folder.path}: a file, not a folder")
        if out and not fresh and folder._published():
            raise UsageError(
                f"--out {out} holds published results (a summary.json, no run.json of a run to "
                f"resume); a run does not write over them: use another --out, --publish {out} "
                "to publish a run there as a whole set, or --fresh to replace them"
            )
        return folder

    def _file(self, name: str) -> bool:
        try:
            return storage.is_file(storage.join(self.path, name))
        except (OSError, ValueError, ImportError) as error:
            raise UsageError(f"--out {self.path}: cannot reach it ({error})") from error

    def _published(self) -> bool:
        """Published results (results/latest, results/products in a clone), not a run."""
        return self._file("summary.json") and not self._file("run.json")

    def check_publish(self, folder: str) -> None:
        """--publish names a folder of published results that can be written, before the run."""
        if not folder.strip():
            raise UsageError("--publish '': an empty path names no folder")
        local = not storage.is_url(folder)
        if local and Path(folder).exists() and not Path(folder).is_dir():
            raise UsageError(f"--publish {folder}: a file, not a folder")
        same = (
            os.path.abspath(folder) == os.path.abspath(self.path)
            if local and not storage.is_url(self.path)
            else folder.rstrip("/") == self.path.rstrip("/")
        )
        try:
            if same or storage.is_file(storage.join(folder, "run.json")):
                raise UsageError(
                    f"--publish {folder}: a run folder; publish into a folder of its own, such "
                    "as results/latest"
                )
            storage.make_dirs(folder)
        except (OSError, ValueError, ImportError) as error:
            raise UsageError(
                f"--publish {folder}: cannot write there ({_reason(error)})"
            ) from error

    @contextmanager
    def held(self) -> Iterator[RunFolder]:
        """The folder's lease for the block (a second driver refuses in one line); a failure of
        the store under it is said as the store's (StoreError), whatever library raised it."""
        lease = Lease(self.path)
        try:
            lease.acquire()
        except LeaseHeld as error:
            raise UsageError(str(error)) from error
        except OSError as error:
            raise UsageError(f"--out {self.path}: cannot write there ({_reason(error)})") from error
        try:
            yield self
        except Exception as error:
            # inspect's own log writes and reads fail with the store's library's errors: when
            # the store does not answer, that is the cause the user gets, in one line
            if storage.is_url(self.path) and not isinstance(error, storage.StoreError):
                try:
                    storage.exists(self.path)
                except storage.StoreError as fault:
                    raise fault from error
            raise
        finally:
            lease.release()

    def start(self, record: RunRecord, *, fresh: bool) -> None:
        """With the lease held: empty the folder if asked, then claim it for this run."""
        if fresh:  # everything but the lease this driver holds
            for name in storage.children(self.path):
                if name != "driver.lock":
                    storage.remove_tree(storage.join(self.path, name))
        try:  # before the claim: a folder whose logs cannot be kept is not claimed
            storage.make_dirs(self.logs)
        except OSError as error:
            raise UsageError(
                f"{self.logs}: cannot make the run's log folder there ({_reason(error)})"
            ) from error
        self.claim(record)

    def claim(self, record: RunRecord) -> None:
        """Write run.json, or refuse to resume into logs made with other inputs or versions."""
        record = record.model_copy(update={"git_commit": git_commit(), "priced": True})
        path = storage.join(self.path, "run.json")
        if self._file("run.json"):
            try:
                old = RunRecord.model_validate_json(storage.read_text(path))
            except (OSError, ValueError) as error:
                raise UsageError(
                    f"{path}: unreadable run record; use --fresh to start over"
                ) from error
            # compared by meaning: a run made by code that differs only in comments or
            # structure resumes; one made under another task or sim version does not
            before, now = old.provenance.meaning(), record.provenance.meaning()
            differs = [
                name
                for name, a, b in (
                    ("model", old.model, record.model),
                    *((key, before[key], now[key]) for key in now),
                    ("seed", old.seed, record.seed),
                    ("epochs", old.epochs, record.epochs),
                )
                if a != b
            ]
            if differs:
                raise UsageError(
                    f"{self.path} holds a run made with another {', '.join(differs)}; "
                    "resuming would mix them (use --fresh to start over, or another --out)"
                )
            variants = sorted({*old.variants, *record.variants})
            agents = {**old.agents, **record.agents}
            record = record.model_copy(update={"variants": variants, "agents": agents})
        try:
            storage.write_text(path, record.model_dump_json(indent=2) + "\n")
        except OSError as error:
            raise UsageError(f"--out {self.path}: cannot write there ({_reason(error)})") from error

    def record(self) -> RunRecord:
        """The run's record, for commands on a finished run (`rescore`)."""
        try:
            text = storage.read_text(storage.join(self.path, "run.json"))
            return RunRecord.model_validate_json(text)
        except (OSError, ValueError) as error:
            raise UsageError(
                f"{self.path}: no readable run.json (a todo-bench run folder)"
            ) from error

    def shard_attempts(self) -> dict[str, int]:
        """Attempts per shard made by earlier drivers of this run (`shards.json`)."""
        path = storage.join(self.path, "shards.json")
        if not storage.is_file(path):
            return {}
        rows = [ShardRecord.model_validate(row) for row in json.loads(storage.read_text(path))]
        return {row.id: row.attempts for row in rows}

    def write_shards(self, records: list[ShardRecord]) -> None:
        text = json.dumps([r.model_dump() for r in records], indent=2) + "\n"
        storage.write_text(storage.join(self.path, "shards.json"), text)

    def write_timing(self, timing: Timing) -> None:
        text = timing.model_dump_json(indent=2) + "\n"
        storage.write_text(storage.join(self.path, "timing.json"), text)

    def rescore(self) -> tuple[Summary, int]:
        """Re-score the kept logs with today's scorer (inspect's own `score`) and summarize
        them, priced as the run was; returns the summary and how many logs were read."""
        from inspect_ai import score as inspect_score
        from inspect_ai.log import list_eval_logs, read_eval_log, write_eval_log

        from harness.scoring.scorer import todo_scorer

        record = self.record()
        logs = list_eval_logs(self.logs, recursive=True)
        if not logs:
            raise UsageError(f"{self.path}: no kept logs under logs/ to re-score")
        for info in logs:
            try:
                log = read_eval_log(info)
            except Exception:  # a damaged object: read_run below names it and skips it
                continue
            if log.status != "success":
                continue  # an unfinished variant: resume the run, then re-score
            rescored = inspect_score(log, [todo_scorer()], action="overwrite", display="none")
            write_eval_log(rescored, info.name)
        return summary_of_logs(self.logs, record, self.path), len(logs)

    def publish(self, summary: Summary) -> str:
        """The run's own summary.json and markdown board; returns the board."""
        return publish_run(summary, self.path)


def summary_of_logs(logs: str, record: RunRecord, where: str) -> Summary:
    """The summary of a run's logs as they are scored, priced as the run was (`rescore` after
    scoring them again; `verify` once every score is re-derived)."""
    from harness.results.run_logs import read_run
    from harness.results.summary import price_for
    from harness.stats.aggregate import summarize
    from harness.versions import TASK_VERSION

    results, problems = read_run(logs)
    if not results:
        raise UsageError(f"{where}: no successful logs to summarize")
    return summarize(
        results,
        seed=record.seed,
        # the price the run was made with (a run.json from before 2026-12-04 has none)
        price=record.price if record.priced else price_for(record.model),
        provenance=record.provenance.model_copy(update={"task_version": TASK_VERSION}),
        problems=problems,
        expected=record.variants,
    )
