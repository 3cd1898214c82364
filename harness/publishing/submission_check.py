"""A submission read without trusting it: its folder, or its archive unpacked within the intake's
bounds (`intake.py`), and every check that needs no rescoring: schema, file digests, the
manifest against the summary, versions, the scenario set's hash, the logs' digests. The one
check it cannot make, rescoring the logs, is `harness.run.verify`'s (it needs the run wing).
"""

from __future__ import annotations

import tarfile
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, Field

from harness.errors import UsageError
from harness.publishing.intake import (
    DEFAULT,
    Limits,
    extract_tar,
    extract_zip,
    json_text,
    regular_files,
)
from harness.publishing.submission import (
    ARCHIVES,
    LOGS,
    MANIFEST,
    RECORD,
    SUMMARY,
    Manifest,
    error_line,
    log_files,
    sha256,
    total_cost,
)
from harness.results.summary import RunRecord, Summary, read_summary
from harness.versions import SIM_VERSION, TASK_VERSION

T = TypeVar("T")


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
            raise UsageError(f"{path}: not a readable archive ({error_line(error)})") from error
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
        problems.append(f"schema: {path.name} does not follow its schema ({error_line(error)})")
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
