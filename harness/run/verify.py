"""`todo-bench verify`: a submission checked without trusting it. The checks that read files
are `harness.publishing.submission_check.check`'s (within `harness.publishing.intake`'s
bounds); with the logs included this adds the ones that need the run wing: every log's header
bound to run.json and the manifest (`harness.publishing.binding`), every episode re-derived from
its transcript (`harness.run.rederive`), and the summary of the logs, whose every score is then
a re-derived one, against the submitted summary. No model of the logs is built, so no key or
network is needed."""

from __future__ import annotations

from pathlib import Path

from inspect_ai.log import (
    EvalLog,
    list_eval_logs,
    read_eval_log,
    read_eval_log_sample_summaries,
)

from harness.errors import UsageError
from harness.publishing.binding import EVAL_SET, bound
from harness.publishing.differences import differences
from harness.publishing.intake import DEFAULT, Limits, check_zip, json_text
from harness.publishing.submission import LOGS, RECORD
from harness.publishing.submission_check import Checked, check, opened
from harness.results.summary import RunRecord, Summary
from harness.run.folder import summary_of_logs
from harness.run.rederive import rederive, rescore_stored, task_args
from harness.run.rederive_cli import REDERIVED, TRUSTED, cli_product, rederive_cli

#: fields that differ this many at most are named in the problem line
NAMED = 3


def verify(path: Path, limits: Limits = DEFAULT) -> Checked:
    """Every check of a submission (a folder or archive); the logs' checks only where they are
    included and every other check held (a summary of another version cannot match)."""
    with opened(path, limits) as folder:
        found = check(folder, limits)
        manifest, summary = found.manifest, found.summary
        if manifest is None or summary is None or not manifest.logs_included or found.problems:
            if manifest is not None and manifest.logs_included and found.problems:
                found.unchecked.append("the logs: left until the problems above go")
            return found
        if found.record is None:
            found.problems.append(f"rescore: the logs are included without the {RECORD} it needs")
            return found
        found.problems += _logs(folder, found, found.record, limits)
        if not found.problems:
            found.problems += _rescored(folder, summary, found.record)
    return found


def _logs(folder: Path, found: Checked, record: RunRecord, limits: Limits) -> list[str]:
    """The headers bound to the run, then every successful log's episodes re-derived."""
    assert found.manifest is not None
    logs: dict[str, EvalLog] = {}
    problems: list[str] = []
    root = folder / LOGS
    names = {}
    for info in list_eval_logs(str(root), recursive=True):
        file = Path(info.name.removeprefix("file://"))
        where = file.relative_to(root).as_posix()
        try:
            if file.suffix == ".eval":
                check_zip(file, limits)  # a log is an archive too: its bounds before inspect
            else:
                json_text(file, limits)  # a JSON log: its size and depth before inspect parses
            logs[where] = read_eval_log(str(file), header_only=True)
            names[where] = str(file)
        except UsageError as error:
            problems.append(f"logs: {str(error).replace(str(root), 'logs')}")
        except Exception as error:  # inspect's reader: any damage is one line
            problems.append(f"logs: logs/{where} is not a readable log ({type(error).__name__})")
    sets = {
        p.parent.relative_to(root).as_posix(): json_text(p, limits) for p in root.rglob(EVAL_SET)
    }
    problems += bound(logs, sets, record, found.manifest)
    for where, header in sorted(logs.items()):
        if header.status != "success":
            continue
        problems += _episodes(names[where], f"logs/{where}", found)
    return problems


def _episodes(name: str, where: str, found: Checked) -> list[str]:
    """One log's episodes: replayed (a harness-loop row) or their stored records scored again
    (a row this code cannot replay: said on the OK line)."""
    try:
        log = read_eval_log(name, resolve_attachments=True)
        summaries = read_eval_log_sample_summaries(name)
    except Exception as error:  # inspect's reader: any damage is one line
        return [f"logs: {where} is not a readable log ({type(error).__name__})"]
    variant = str((log.eval.task_args or {}).get("variant"))
    if task_args(log) is not None:
        if variant not in found.rederived:
            found.rederived.append(variant)
        return rederive(log, summaries, where)
    product = cli_product(log)
    if product is not None:
        if f"{variant} ({REDERIVED})" not in found.rederived:
            found.rederived.append(f"{variant} ({REDERIVED})")
            found.unchecked.append(f"{variant}: {TRUSTED}")
        return rederive_cli(log, product, where) + rescore_stored(log, where)
    found.unchecked.append(
        f"{variant} ({where}): its stored records were scored again, not re-derived from the "
        "transcript (a row of code from outside this todo-bench: its records are trusted)"
    )
    return rescore_stored(log, where)


def _rescored(folder: Path, summary: Summary, record: RunRecord) -> list[str]:
    """The submitted summary against the summary of the logs (each score re-derived above)."""
    try:
        derived = summary_of_logs(str(folder / LOGS), record, "the submission")
    except UsageError as error:
        return [f"rescore: {error}"]
    # a sequential run's looks are the run's, not the logs'; everything else must agree
    differs = differences(
        summary.model_dump(exclude={"sequential"}), derived.model_dump(exclude={"sequential"})
    )
    if not differs:
        return []
    named = "; ".join(differs[:NAMED]) + (
        f"; {len(differs) - NAMED} more" if len(differs) > NAMED else ""
    )
    return [f"rescore: the summary is not what the re-derived scores give ({named})"]
