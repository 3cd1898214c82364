"""`todo-bench verify`: a submission checked without trusting it. The checks that read files
are `harness.results.submission.check`'s; this adds the one that needs the run wing: the
included logs re-scored with this code's scorer (`RunFolder.rescore`, on a scratch copy) must
give the submitted summary."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from harness.errors import UsageError
from harness.results.submission import LOGS, RECORD, Checked, check, opened
from harness.results.summary import Summary
from harness.run.folder import RunFolder

#: fields that differ this many at most are named in the problem line
NAMED = 3
#: a differing value is shown up to this many characters
SHORT = 40


def verify(path: Path) -> Checked:
    """Every check of a submission (a folder or archive); rescoring only where the logs are
    included and every other check held (a summary of another version cannot match)."""
    with opened(path) as folder:
        found = check(folder)
        manifest, summary = found.manifest, found.summary
        if manifest is None or summary is None or not manifest.logs_included or found.problems:
            if manifest is not None and manifest.logs_included and found.problems:
                found.unchecked.append("rescoring the logs: left until the problems above go")
            return found
        found.problems += _rescored(folder, summary)
    return found


def _rescored(folder: Path, summary: Summary) -> list[str]:
    """The summary against what rescoring the included logs gives, field by field."""
    if not (folder / RECORD).is_file():
        return [f"rescore: the logs are included without the {RECORD} that rescoring needs"]
    with tempfile.TemporaryDirectory() as scratch:
        shutil.copyfile(folder / RECORD, Path(scratch) / RECORD)
        shutil.copytree(folder / LOGS, Path(scratch) / LOGS)
        try:
            rescored, _ = RunFolder(scratch).rescore()
        except UsageError as error:
            return [f"rescore: {str(error).replace(scratch, 'the submission')}"]
    # a sequential run's looks are the run's, not the logs'; everything else must agree
    submitted = summary.model_dump(exclude={"sequential"})
    differs = _differences(submitted, rescored.model_dump(exclude={"sequential"}))
    if not differs:
        return []
    named = "; ".join(differs[:NAMED]) + (
        f"; {len(differs) - NAMED} more" if len(differs) > NAMED else ""
    )
    return [f"rescore: the summary is not what rescoring the logs gives ({named})"]


def _differences(submitted: object, rescored: object, where: str = "") -> list[str]:
    """`field: submitted, rescored` for every leaf that differs."""
    if isinstance(submitted, dict) and isinstance(rescored, dict):
        return [
            line
            for key in sorted(submitted.keys() | rescored.keys(), key=str)
            for line in _differences(
                submitted.get(key), rescored.get(key), f"{where}.{key}" if where else str(key)
            )
        ]
    if (
        isinstance(submitted, list)
        and isinstance(rescored, list)
        and len(submitted) == len(rescored)
    ):
        return [
            line
            for index, (a, b) in enumerate(zip(submitted, rescored, strict=True))
            for line in _differences(a, b, f"{where}[{_label(a, index)}]")
        ]
    if submitted == rescored:
        return []
    return [f"{where}: {_short(submitted)} submitted, {_short(rescored)} rescored"]


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= SHORT else text[: SHORT - 3] + "..."


def _label(item: object, index: int) -> str:
    """A list item's name where it has one (a variant), else its index."""
    return str(item.get("variant", index)) if isinstance(item, dict) else str(index)
