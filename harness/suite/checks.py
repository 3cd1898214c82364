"""Outcome checks: does the final workspace hold what the scenario asked for?"""

from __future__ import annotations

import configparser
import json
from fnmatch import fnmatchcase
from pathlib import PurePosixPath
from typing import Any

import yaml
from pydantic import BaseModel

from harness.suite.scenario import (
    CsvRows,
    DataEquals,
    FileAbsent,
    FileContains,
    FileEquals,
    FileExists,
    FilesMatching,
    LinesInOrder,
    OutcomeCheck,
    RowCount,
    Scenario,
    XlsxCells,
    XlsxRows,
    XlsxSheets,
)
from harness.suite.workspace import Workspace, WorkspaceError


class CheckResult(BaseModel):
    """One outcome check and why it passed or failed."""

    kind: str
    path: str
    passed: bool
    detail: str = ""


def _lines_in_order(text: str, wanted: list[str]) -> tuple[bool, str]:
    lines = [line.strip() for line in text.splitlines()]
    position = 0
    for expected in wanted:
        try:
            position = lines.index(expected, position) + 1
        except ValueError:
            return False, f"line '{expected}' missing or out of order"
    return True, ""


def _matching(files: list[str], pattern: str) -> list[str]:
    """Files matching a glob whose `*` does not cross folders (`a/*/*.jpg`)."""
    parts = PurePosixPath(pattern).parts
    return [
        f
        for f in files
        if len(PurePosixPath(f).parts) == len(parts)
        and all(fnmatchcase(p, q) for p, q in zip(PurePosixPath(f).parts, parts, strict=True))
    ]


def _parse(text: str, fmt: str) -> Any:
    if fmt == "json":
        return json.loads(text)
    if fmt == "yaml":
        return yaml.safe_load(text)
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    return {section: dict(parser[section]) for section in parser.sections()}


def _at(value: Any, key: str | None) -> Any:
    for part in key.split(".") if key else []:
        if isinstance(value, dict):
            value = value.get(part)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return None
    return value


def run_check(workspace: Workspace, check: OutcomeCheck) -> CheckResult:
    """Evaluate one check; a missing or unreadable file fails the check, never raises."""
    passed, detail = False, ""
    try:
        match check:
            case FileExists():
                passed = workspace.resolve(check.path).is_file()
                detail = "" if passed else "missing"
            case FileAbsent():
                passed = not workspace.resolve(check.path).exists()
                detail = "" if passed else "still present"
            case FileEquals():
                actual = workspace.read_file(check.path)
                passed = actual.rstrip("\n") == check.content.rstrip("\n")
                detail = "" if passed else f"content differs: {actual[:80]!r}"
            case FileContains():
                passed = check.text in workspace.read_file(check.path)
                detail = "" if passed else f"does not contain {check.text!r}"
            case XlsxRows():
                sheets = workspace.xlsx(check.path)
                name = check.sheet or next(iter(sheets))
                actual_rows = sheets.get(name)
                passed = actual_rows == check.rows
                detail = "" if passed else f"sheet {name!r} rows: {actual_rows}"
            case CsvRows():
                actual_rows = workspace.csv_rows(check.path)
                passed = actual_rows == check.rows
                detail = "" if passed else f"rows: {actual_rows}"
            case LinesInOrder():
                passed, detail = _lines_in_order(workspace.read_file(check.path), check.lines)
            case FilesMatching():
                found = _matching(workspace.files(), check.path)
                passed = len(found) == check.count if check.count is not None else bool(found)
                wanted = "at least 1" if check.count is None else str(check.count)
                detail = (
                    "" if passed else f"{len(found)} files match, expected {wanted}: {found[:5]}"
                )
            case DataEquals():
                actual = _at(_parse(workspace.read_file(check.path), check.format), check.key)
                passed = actual == check.value
                detail = "" if passed else f"value {actual!r:.120}"
            case XlsxSheets():
                names = workspace.xlsx_sheet_names(check.path)
                extra = sorted(set(names) & set(check.absent))
                same = check.sheets is None or sorted(names) == sorted(check.sheets)
                passed = same and not extra
                detail = (
                    ""
                    if passed
                    else f"sheets {names}" + (f"; must not exist: {extra}" if extra else "")
                )
            case XlsxCells():
                cells = workspace.xlsx_cells(check.path, check.sheet, check.range)
                passed = cells == check.rows
                detail = "" if passed else f"cells {cells}"
            case RowCount():
                if workspace.resolve(check.path).suffix == ".xlsx":
                    sheets = workspace.xlsx(check.path)
                    rows = sheets.get(check.sheet or next(iter(sheets)), [])
                else:
                    rows = workspace.csv_rows(check.path)
                passed = len(rows) == check.count
                detail = "" if passed else f"{len(rows)} rows"
    except WorkspaceError as error:
        passed, detail = False, str(error)
    except (ValueError, yaml.YAMLError, configparser.Error) as error:
        passed, detail = False, f"cannot parse: {str(error)[:120]}"
    return CheckResult(kind=check.kind, path=check.path, passed=passed, detail=detail)


def run_checks(workspace: Workspace, scenario: Scenario) -> list[CheckResult]:
    return [run_check(workspace, check) for check in scenario.checks]
