"""A published board's episodes in a compact committed form (`episodes.json.gz` beside its
summary.json): what the scorer reads of each episode (its ledger, its outcome checks, its task
state) and the price the run was costed at, so `todo-bench rescore FOLDER` rebuilds the summary
with today's scorer from the folder alone, byte for byte where nothing changed, instead of a
rerun (`harness/run/rescore_kept.py`). Written deterministically: the same episodes give the
same bytes."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from harness import storage
from harness.errors import UsageError
from harness.results.summary import Price

#: the file's name in a published folder
EPISODES = "episodes.json.gz"
#: the file is refused past this size, compressed and expanded (a board is a few MB expanded)
MAX_BYTES = 256 * 1024 * 1024


class KeptEpisode(BaseModel):
    """One episode as the scorer reads it (the solver's `EpisodeRecord`, the final file list
    aside: no detector reads it)."""

    variant: str
    scenario: str
    epoch: int = Field(ge=1)
    ledger_json: str
    checks: list[dict[str, Any]]
    task_state: dict[str, Any]


class KeptRun(BaseModel):
    """A board's episodes, and the price its cost was computed with (None: not priced)."""

    price: Price | None = None
    episodes: list[KeptEpisode]


def write_kept(run: KeptRun, folder: str | Path) -> str:
    """Write the folder's episodes.json.gz (sorted, no timestamp in the gzip header); returns
    its location."""
    ordered = run.model_copy(
        update={"episodes": sorted(run.episodes, key=lambda e: (e.variant, e.scenario, e.epoch))}
    )
    text = json.dumps(ordered.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    target = storage.join(folder, EPISODES)
    data = gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)
    # an unchanged board is left as it is, as publish_set leaves its other files
    if not (storage.is_file(target) and storage.read_bytes(target) == data):
        storage.write_bytes(target, data)
    return target


def read_kept(folder: str | Path) -> KeptRun:
    """A folder's episodes.json.gz, or a one-line UsageError saying what is wrong with it."""
    where = storage.join(folder, EPISODES)
    if not storage.is_file(where):
        raise UsageError(f"{folder}: no {EPISODES} (a board published before it was kept)")
    data = storage.read_bytes(where)
    if len(data) > MAX_BYTES:
        raise UsageError(f"{where}: larger than {MAX_BYTES:,} bytes")
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            text = stream.read(MAX_BYTES + 1)
        if len(text) > MAX_BYTES:
            raise UsageError(f"{where}: expands past {MAX_BYTES:,} bytes")
        return KeptRun.model_validate_json(text)
    except (OSError, EOFError, ValidationError, ValueError) as error:
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise UsageError(f"{where}: not a kept-episodes file ({first})") from error
