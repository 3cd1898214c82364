"""Causes a run can meet outside its own folder, each said in one line: a HOME where inspect
cannot keep its data (checked before anything is written), and a disk that fills during the
run (the path, what is free, and what the rest of the run needs, from what it wrote so far)."""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from harness.errors import UsageError
from harness.results.summary import Summary, TaskResult
from harness.run.folder import RunFolder


def check_home() -> None:
    """inspect keeps its traces and caches under the user's data and cache folders (HOME, or
    XDG_DATA_HOME / XDG_CACHE_HOME) and makes them at every eval; UsageError if it could not."""
    from platformdirs import user_cache_path, user_data_path

    for kind, folder in (
        ("data", user_data_path("inspect_ai")),
        ("cache", user_cache_path("inspect_ai")),
    ):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryFile(dir=folder):
                pass
        except OSError as error:
            variable = "XDG_DATA_HOME" if kind == "data" else "XDG_CACHE_HOME"
            raise UsageError(
                f"inspect's {kind} folder {folder} cannot be written ({_reason(error)}); "
                f"HOME is {os.environ.get('HOME', '(unset)')}: set HOME or {variable} to a "
                "writable folder"
            ) from error


def check_inspect(model: str) -> None:
    """The private inspect names the model needs are there in the installed inspect-ai;
    UsageError in one line (naming the installed and the tested release) if one moved."""
    from harness._inspect_private import SIM_REACHES, require

    if model.startswith("sim/"):
        require(*SIM_REACHES)


def is_disk_full(error: BaseException) -> bool:
    """An error (or its cause) that says the device has no space left."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


#: bytes a probe writes to tell a full disk from a log that stopped for another reason
PROBE_BYTES = 64 * 1024


def disk_full_line(
    folder: str, results: Sequence[TaskResult], expected: Mapping[str, int]
) -> str | None:
    """The disk-full line if `folder` cannot take PROBE_BYTES more now, else None (for a run
    that failed: inspect may swallow a log write's ENOSPC and leave the log "started")."""
    if not Path(folder).is_dir():
        return None
    try:
        with tempfile.TemporaryFile(dir=folder) as probe:
            probe.write(b"\0" * PROBE_BYTES)
            probe.flush()
            os.fsync(probe.fileno())
    except OSError as error:
        if error.errno in (errno.ENOSPC, errno.EDQUOT):
            return disk_full(folder, _done(results), sum(expected.values()))
    return None


def published(
    folder: RunFolder, summary: Summary, results: Sequence[TaskResult], expected: Mapping[str, int]
) -> list[str]:
    """Publish the summary into the run's folder; [] when done, else the disk-full line (any
    other failure is raised)."""
    try:
        folder.publish(summary)
    except OSError as error:
        if not is_disk_full(error):
            raise
        return [disk_full(folder.path, _done(results), sum(expected.values()))]
    return []


def _done(results: Sequence[TaskResult]) -> int:
    return sum(len(result.episodes) for result in results)


def disk_full(folder: str, done: int, total: int) -> str:
    """The line for a run that ran out of space writing into `folder`: the path, what is free,
    and what the episodes still to run need at the rate of those written so far."""
    path = Path(folder)
    used = sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.is_dir() else 0
    free = shutil.disk_usage(_existing(path)).free
    if done <= 0:
        need = "no episode has finished yet"
    elif total > done:
        each = used / done
        need = f"the {total - done} episodes left need about {_size(each * (total - done))} more"
    else:
        need = "every episode ran; their logs need more than is free to be finished"
    return (
        f"no space left on the device of {folder}: {_size(free)} free, the run's folder holds "
        f"{_size(used)} for {max(done, 0)} of {total} episodes; {need}; free space and rerun "
        "the same command to resume"
    )


def _existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _size(count: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if count < 1000 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "bytes" else f"{count:.1f} {unit}"
        count /= 1000
    raise AssertionError("unreachable")


def _reason(error: OSError) -> str:
    return error.strerror or str(error)
