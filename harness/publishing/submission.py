"""A submission: a run's results handed in to be checked and put beside others.

A folder (or a .zip / .tar.gz of one) holding `submission.json` (the manifest below: who ran
what, when, at what cost, with which versions, and every file's sha256), `summary.json`, the
run's `run.json` where there was one, and its inspect logs under `logs/` when they are included
(their digests are listed either way). This module makes one (`manifest_for`, `write`);
`submission_check.py` reads one without trusting it.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tarfile
import tempfile
import zipfile
from datetime import datetime
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AwareDatetime, BaseModel, Field, ValidationError, field_validator

from harness.errors import UsageError
from harness.publishing.intake import DEFAULT, Limits, copy_regular, regular_files
from harness.results.summary import RunRecord, Summary

#: the manifest's own format; a change of its fields bumps it
SUBMISSION_VERSION = 1
MANIFEST = "submission.json"
SUMMARY = "summary.json"
RECORD = "run.json"
LOGS = "logs"
ARCHIVES = (".zip", ".tar.gz")

#: a sha256, as hex
Digest = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class LogFile(BaseModel):
    """One file of the run's logs folder, by its path under logs/ and its digest."""

    path: str = Field(description="relative to logs/, with forward slashes, never leaving it")
    sha256: Digest
    bytes: int = Field(ge=0)

    @field_validator("path")
    @classmethod
    def _inside(cls, path: str) -> str:
        parts = path.split("/")
        if not path or path.startswith("/") or ".." in parts or "" in parts or "\\" in path:
            raise ValueError("a path under logs/ (relative, no '..', forward slashes)")
        return path


class Versions(BaseModel):
    """What made the numbers (task and sim versions, the scenario set's hash decide their
    meaning) and, as information, the code that ran them."""

    task_version: int = Field(description="harness.versions.TASK_VERSION of the run")
    sim_version: int | None = Field(description="harness.versions.SIM_VERSION; null: real model")
    scenario_hash: str = Field(description="of the scenarios the summary names, as loaded")
    project_version: str = Field(description="the todo-bench (harness) version: information")
    inspect_ai: str = Field(description="the inspect_ai version: information")
    git_commit: str | None = Field(None, description="from run.json, where there was one")


class Manifest(BaseModel):
    """`submission.json`: what a submission claims; `todo-bench verify` checks every claim
    it can against the files beside it."""

    submission_version: int = Field(SUBMISSION_VERSION, ge=1, le=SUBMISSION_VERSION)
    model: str
    agent: str = Field(description="the agent and designs, in the submitter's words")
    who: str = Field(min_length=1, description="who ran it")
    when: AwareDatetime = Field(description="when it was submitted, with its time zone")
    variants: list[str]
    scenarios: list[str]
    epochs: int = Field(ge=1)
    seed: int | None
    episodes: int = Field(ge=0, description="every variant's scored episodes")
    cost_usd: float | None = Field(
        description="total over every episode, from the summary's cost per episode; null: the "
        "model was not priced"
    )
    versions: Versions
    files: dict[Literal["summary.json", "run.json"], Digest] = Field(
        description="sha256 of summary.json and, where the run had one, run.json"
    )
    logs_included: bool
    logs: list[LogFile] = Field(description="every file of the run's logs/, included or not")


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def total_cost(summary: Summary) -> float | None:
    """The run's cost in USD: each priced variant's mean cost per episode times its episodes."""
    priced = [v for v in summary.variants if v.cost_usd is not None]
    if not priced:
        return None
    return round(sum(v.cost_usd.mean * v.episodes for v in priced if v.cost_usd), 6)


def log_files(logs: Path, limits: Limits = DEFAULT) -> list[LogFile]:
    """Every file under a logs folder, in path order; anything but a regular file inside it
    (a symlink, a FIFO, a device) is refused in one line before it is opened."""
    if not logs.is_dir() or logs.is_symlink():
        return []
    return [
        LogFile(path=p.relative_to(logs).as_posix(), sha256=sha256(p), bytes=p.stat().st_size)
        for p in regular_files(logs, limits)
    ]


def manifest_for(
    run: Path, summary: Summary, *, who: str, agent: str, when: datetime, include_logs: bool
) -> Manifest:
    """The manifest of a run folder (its summary, read; run.json and logs/ where it has
    them)."""
    record = _record(run / RECORD) if (run / RECORD).is_file() else None
    origin = summary.provenance
    files = {SUMMARY: sha256(run / SUMMARY)}
    if record is not None:
        files[RECORD] = sha256(run / RECORD)
    logs = log_files(run / LOGS)
    return Manifest(
        model=summary.model,
        agent=agent,
        who=who,
        when=when,
        variants=[v.variant for v in summary.variants],
        scenarios=summary.scenarios,
        epochs=summary.epochs,
        seed=summary.seed,
        episodes=sum(v.episodes for v in summary.variants),
        cost_usd=total_cost(summary),
        versions=Versions(
            task_version=origin.task_version,
            sim_version=origin.sim_version,
            scenario_hash=origin.scenario_hash,
            project_version=origin.project_version,
            inspect_ai=origin.inspect_ai,
            git_commit=record.git_commit if record else None,
        ),
        files=files,
        logs_included=include_logs and bool(logs),
        logs=logs,
    )


def _record(path: Path) -> RunRecord:
    try:
        return RunRecord.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UsageError(f"{path}: not a readable run record ({error_line(error)})") from error


def error_line(error: Exception) -> str:
    """What went wrong in one line: a validation error's first field and message, else the
    error's first line (its type where it says nothing)."""
    if isinstance(error, ValidationError):
        detail = error.errors()[0]
        where = ".".join(str(part) for part in detail["loc"]) or "(top level)"
        return f"field '{where}': {detail['msg']}"
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def write(run: Path, out: Path, manifest: Manifest) -> Path:
    """The submission folder (or archive, by `out`'s suffix) of a run; returns its path. It is
    made in a scratch folder beside `out` and renamed into place, so a failure leaves nothing
    (and a retry finds no half-written submission in its way)."""
    archive = next((s for s in ARCHIVES if out.name.endswith(s)), None)
    if out.exists() or out.is_symlink():
        raise UsageError(f"--out {out}: already exists; a submission is never written over")
    out.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        folder = scratch / out.name.removesuffix(archive or "")
        folder.mkdir()
        shutil.copyfile(run / SUMMARY, folder / SUMMARY)
        if RECORD in manifest.files:
            shutil.copyfile(run / RECORD, folder / RECORD)
        if manifest.logs_included:
            logs = run / LOGS
            copy_regular(regular_files(logs, DEFAULT), logs, folder / LOGS)
        text = manifest.model_dump_json(indent=2) + "\n"
        (folder / MANIFEST).write_text(text, encoding="utf-8")
        made = folder
        if archive is not None:
            made = scratch / out.name
            _pack(folder, made)
        made.rename(out)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return out


def _pack(folder: Path, out: Path) -> None:
    """An archive of the folder, its members in path order under the folder's name."""
    members = [folder, *sorted(folder.rglob("*"))]
    if out.name.endswith(".zip"):
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in members[1:]:
                archive.write(path, path.relative_to(folder.parent).as_posix())
        return
    with tarfile.open(out, "w:gz") as packed:
        for path in members:
            packed.add(path, path.relative_to(folder.parent).as_posix(), recursive=False)


def json_schema() -> str:
    """The manifest's JSON Schema as committed in results/submission.schema.json."""
    return json.dumps(Manifest.model_json_schema(), indent=2, sort_keys=True) + "\n"
