"""Outcome checks: does the final workspace hold what the scenario asked for?"""

from __future__ import annotations

from pydantic import BaseModel

from harness.scenario import (
    CsvRows,
    FileAbsent,
    FileContains,
    FileEquals,
    FileExists,
    LinesInOrder,
    OutcomeCheck,
    Scenario,
    XlsxRows,
)
from harness.workspace import Workspace, WorkspaceError


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
    except WorkspaceError as error:
        passed, detail = False, str(error)
    return CheckResult(kind=check.kind, path=check.path, passed=passed, detail=detail)


def run_checks(workspace: Workspace, scenario: Scenario) -> list[CheckResult]:
    return [run_check(workspace, check) for check in scenario.checks]
