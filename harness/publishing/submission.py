"""A submission: a run's results handed in to be checked and put beside others.

A folder (or a .zip / .tar.gz of one) holding `submission.json` (the manifest below: who ran
what, when, at what cost, with which versions, and every file's sha256), `summary.json`, the
run's `run.json` where there was one, and its inspect logs under `logs/` when they are included
(their digests are listed either way). `check` reads one without trusting it; the one check it
cannot make, rescoring the logs, is `harness.run.verify`'s (it needs the run wing).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tarfile
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Annotated, Literal, TypeVar

from pydantic import AwareDatetime, BaseModel, Field, ValidationError, field_validator

from harness.errors import UsageError
from harness.publishing.intake import (
    DEFAULT,
    Limits,
    copy_regular,
    extract_tar,
    extract_zip,
    json_text,
    regular_files,
)
from harness.results.summary import RunRecord, Summary, read_summary
from harness.versions import SIM_VERSION, TASK_VERSION

#: the manifest's own format; a change of its fields bumps it
SUBMISSION_VERSION = 1
MANIFEST = "submission.json"
SUMMARY = "summary.json"
RECORD = "run.json"
LOGS = "logs"
ARCHIVES = (".zip", ".tar.gz")
T = TypeVar("T")
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
        raise UsageError(f"{path}: not a readable run record ({_first(error)})") from error


def _first(error: Exception) -> str:
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


@contextmanager
def opened(path: Path, limits: Limits = DEFAULT) -> Iterator[Path]:
    """A submission's folder: the folder itself (only regular files inside it), or an archive
    unpacked within the bounds into a scratch folder that is always removed (members outside
    it, links and devices refused)."""
    if path.is_dir():
        regular_files(path, limits)
        yield path
        return
    if not path.is_file() or not path.name.endswith(ARCHIVES):
        raise UsageError(f"{path}: not a submission (a folder, .zip or .tar.gz)")
    with tempfile.TemporaryDirectory() as scratch:
        try:
            if path.name.endswith(".zip"):
                extract_zip(path, Path(scratch), limits)
            else:
                extract_tar(path, Path(scratch), limits)
        except (OSError, EOFError, zipfile.BadZipFile, tarfile.TarError) as error:
            raise UsageError(f"{path}: not a readable archive ({_first(error)})") from error
        found = [p.parent for p in Path(scratch).rglob(MANIFEST)]
        if len(found) != 1:
            raise UsageError(f"{path}: holds {len(found)} {MANIFEST} files, not one")
        yield found[0]


class Checked(BaseModel):
    """What reading a submission found: its problems (each one line), what could not be
    checked, and the parts read (None where unreadable)."""

    problems: list[str] = Field(default_factory=list)
    unchecked: list[str] = Field(default_factory=list)
    manifest: Manifest | None = None
    summary: Summary | None = None
    record: RunRecord | None = None
    #: the rows (variants) whose every episode was re-derived from its transcript
    rederived: list[str] = Field(default_factory=list)


def check(folder: Path, limits: Limits = DEFAULT) -> Checked:
    """Every check that needs no rescoring: schema, file digests, the manifest against the
    summary, versions, the scenario set's hash, the logs' digests. A JSON file beyond the
    bounds is refused unread (UsageError)."""
    found = Checked()
    found.manifest = _read(folder / MANIFEST, found.problems, Manifest.model_validate_json, limits)
    found.summary = _read(
        folder / SUMMARY, found.problems, lambda _: read_summary(folder / SUMMARY), limits
    )
    if found.manifest is None:
        return found
    manifest = found.manifest
    if RECORD in manifest.files:
        found.record = _read(folder / RECORD, found.problems, RunRecord.model_validate_json, limits)
    for name in (SUMMARY, RECORD):
        if name not in manifest.files and (name == SUMMARY or (folder / name).is_file()):
            found.problems.append(f"digest: the manifest lists no sha256 for {name}")
    for name, digest in sorted(manifest.files.items()):
        if (folder / name).is_file() and sha256(folder / name) != digest:
            found.problems.append(f"digest: {name} is not the file the manifest lists")
    if found.summary is not None:
        found.problems += _disagreements(manifest, found.summary)
        found.problems += versions(found.summary)
        found.problems += _scenarios(found.summary)
    found.problems += _logs(folder, manifest, found.unchecked, limits)
    return found


def _read(path: Path, problems: list[str], parse: Callable[[str], T], limits: Limits) -> T | None:
    """A file parsed by its model, or None with a `schema:` problem said."""
    if not path.is_file():
        problems.append(f"schema: {path.name} is missing")
        return None
    try:
        return parse(json_text(path, limits))
    except (OSError, ValueError) as error:
        problems.append(f"schema: {path.name} does not follow its schema ({_first(error)})")
        return None


def _disagreements(manifest: Manifest, summary: Summary) -> list[str]:
    """The manifest's claims that the summary beside it does not make."""
    origin = summary.provenance
    claims = {
        "model": (manifest.model, summary.model),
        "variants": (manifest.variants, [v.variant for v in summary.variants]),
        "scenarios": (manifest.scenarios, summary.scenarios),
        "epochs": (manifest.epochs, summary.epochs),
        "seed": (manifest.seed, summary.seed),
        "episodes": (manifest.episodes, sum(v.episodes for v in summary.variants)),
        "cost_usd": (manifest.cost_usd, total_cost(summary)),
        "task_version": (manifest.versions.task_version, origin.task_version),
        "sim_version": (manifest.versions.sim_version, origin.sim_version),
        "scenario_hash": (manifest.versions.scenario_hash, origin.scenario_hash),
    }
    return [
        f"manifest: its {name} {claimed} is not the summary's {actual}"
        for name, (claimed, actual) in claims.items()
        if claimed != actual
    ]


def versions(summary: Summary) -> list[str]:
    """The summary's task and sim versions, against the ones this code scores and simulates."""
    origin = summary.provenance
    problems = []
    if origin.task_version != TASK_VERSION:
        known = "an older" if 0 < origin.task_version < TASK_VERSION else "an unknown"
        problems.append(
            f"version: task version {origin.task_version} is {known} task version; this "
            f"todo-bench scores task version {TASK_VERSION}"
        )
    if summary.simulated and origin.sim_version != SIM_VERSION:
        problems.append(
            f"version: sim version {origin.sim_version} is not this todo-bench's simulated "
            f"agent (sim version {SIM_VERSION})"
        )
    return problems


def _scenarios(summary: Summary) -> list[str]:
    """The scenario set's hash, recomputed from the shipped scenarios the summary names."""
    from harness.results.provenance import scenario_hash
    from harness.suite.scenario import ScenarioError, load_scenarios, select

    try:
        computed = scenario_hash(select(load_scenarios(), summary.scenarios))
    except ScenarioError as error:
        return [f"scenarios: {error}"]
    if computed != summary.provenance.scenario_hash:
        return [
            f"scenarios: hash {summary.provenance.scenario_hash} is not {computed}, the hash of "
            f"this todo-bench's scenarios {','.join(summary.scenarios)}"
        ]
    return []


def _logs(folder: Path, manifest: Manifest, unchecked: list[str], limits: Limits) -> list[str]:
    """Included logs against their listed digests; without them, what cannot be checked."""
    if RECORD not in manifest.files:
        unchecked.append(f"no {RECORD} (a folder of published results, not a run folder)")
    if not manifest.logs_included:
        count = f"{len(manifest.logs)} digests listed" if manifest.logs else "none listed"
        unchecked.append(f"logs not included ({count}): the numbers were not recomputed")
        return []
    listed = {log.path: log.sha256 for log in manifest.logs}
    present = {log.path: log.sha256 for log in log_files(folder / LOGS, limits)}
    problems = [f"logs: {path} is missing" for path in sorted(listed.keys() - present.keys())]
    problems += [
        f"logs: {path} is not listed in the manifest"
        for path in sorted(present.keys() - listed.keys())
    ]
    problems += [
        f"digest: logs/{path} is not the file the manifest lists"
        for path in sorted(listed.keys() & present.keys())
        if listed[path] != present[path]
    ]
    return problems


def json_schema() -> str:
    """The manifest's JSON Schema as committed in results/submission.schema.json."""
    return json.dumps(Manifest.model_json_schema(), indent=2, sort_keys=True) + "\n"
