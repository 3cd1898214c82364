"""The sandbox refuses every way out, and .xlsx files are real."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

from harness.episode.ledger import WorkspaceEvent
from harness.suite.workspace import Workspace, WorkspaceError
from tests.helpers import DOCS, Driver


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    root = tmp_path / "ws"
    root.mkdir()
    yield Workspace(root)


@pytest.mark.parametrize("path", ["../x.txt", "a/../../x.txt", "/etc/passwd", "~/x", ""])
def test_paths_outside_are_refused(ws: Workspace, path: str) -> None:
    with pytest.raises(WorkspaceError):
        ws.write_file(path, "x")


def test_symlink_pointing_out_is_refused(ws: Workspace, tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    os.symlink(outside, ws.root / "link.txt")
    with pytest.raises(WorkspaceError, match="leaves the workspace"):
        ws.read_file("link.txt")


def test_file_ops_round_trip(ws: Workspace) -> None:
    ws.write_file("a/b.txt", "hi\n")
    ws.rename_file("a/b.txt", "c.txt")
    assert ws.read_file("c.txt") == "hi\n"
    assert ws.list_files() == "c.txt"
    ws.write_file("d.txt", "")
    with pytest.raises(WorkspaceError, match="already exists"):
        ws.rename_file("c.txt", "d.txt")
    ws.delete_file("c.txt")
    with pytest.raises(WorkspaceError, match="No such file"):
        ws.read_file("c.txt")


def test_create_excel_writes_real_workbooks(ws: Workspace) -> None:
    ws.write_file("b.txt", "")
    ws.write_file("a.txt", "")
    ws.create_excel("exports/1.xlsx", from_workspace_files=True)
    assert ws.xlsx("exports/1.xlsx") == {"Sheet1": [["file"], ["a.txt"], ["b.txt"]]}
    ws.create_excel("exports/1.xlsx", rows=[["x", 1]], sheet="Two")
    sheets = ws.xlsx("exports/1.xlsx")
    assert list(sheets) == ["Sheet1", "Two"] and sheets["Two"] == [["x", "1"]]
    with pytest.raises(WorkspaceError, match=r"must end with \.xlsx"):
        ws.create_excel("out.csv", rows=[["a"]])
    with pytest.raises(WorkspaceError, match="give `rows`"):
        ws.create_excel("e.xlsx")
    # a model once wrote text into an .xlsx path, then asked for a sheet in it
    ws.write_file("text.xlsx", "file\na.txt\n")
    with pytest.raises(WorkspaceError, match="not a valid .xlsx file"):
        ws.create_excel("text.xlsx", rows=[["a"]])


def test_write_csv_and_read_back(ws: Workspace) -> None:
    ws.write_csv("t.csv", [["a", "b"], [1, 2]])
    assert ws.csv_rows("t.csv") == [["a", "b"], ["1", "2"]]
    with pytest.raises(WorkspaceError, match="list of lists"):
        ws.write_csv("t.csv", "a,b")  # type: ignore[arg-type]


def test_tool_errors_reach_the_model_and_are_recorded() -> None:
    driver = Driver("L0", DOCS)
    try:
        reply = driver.call("write_file", path="../escape.txt", content="x")
        assert reply.startswith("ERROR: Refused")
        event = driver.ledger.of(WorkspaceEvent)[-1]
        assert (event.tool, event.ok) == ("write_file", False)
        assert not driver.episode.tracker.done
    finally:
        driver.close()


def test_file_system_errors_are_tool_errors_not_crashes() -> None:
    driver = Driver("L0", DOCS)
    try:
        driver.call("write_file", path="dir/x.txt", content="x")
        reply = driver.call("write_file", path="dir", content="x")
        assert reply == "ERROR: 'dir' is a folder; cannot write it."
        assert driver.ledger.of(WorkspaceEvent)[-1].ok is False
    finally:
        driver.close()


def test_a_refused_write_changes_nothing(ws: Workspace) -> None:
    ws.write_file("keep.txt", "precious")
    with pytest.raises(WorkspaceError, match="UTF-8"):
        ws.write_file("keep.txt", "half \ud800 written")
    with pytest.raises(WorkspaceError, match="UTF-8"):
        ws.write_file("new/deep/x.txt", "\ud800")
    with pytest.raises(WorkspaceError, match="cannot hold"):
        ws.create_excel("out/book.xlsx", rows=[["a\x07b"]])
    assert ws.read_file("keep.txt") == "precious"
    assert sorted(p.name for p in ws.root.iterdir()) == ["keep.txt"]  # no folders left behind


def test_special_files_and_symlink_loops_are_refused(ws: Workspace) -> None:
    os.mkfifo(ws.root / "pipe")
    os.symlink("loop", ws.root / "loop")
    with pytest.raises(WorkspaceError, match="not a regular file"):
        ws.write_file("pipe", "x")
    with pytest.raises(WorkspaceError, match="No such file"):
        ws.read_file("pipe")
    assert ws.list_files() == "(workspace is empty)"


@pytest.mark.parametrize(
    ("path", "message"),
    [("a/" * 40 + "x", "folders deep"), ("x" * 2000, "longer than"), ("a\x00b", "NUL")],
)
def test_paths_are_bounded(ws: Workspace, path: str, message: str) -> None:
    with pytest.raises(WorkspaceError, match=message):
        ws.write_file(path, "x")


def test_path_resolution_is_linear() -> None:
    import time

    started = time.perf_counter()
    with pytest.raises(WorkspaceError):
        Workspace.normalise("a/" * 128_000)
    assert time.perf_counter() - started < 0.5


def counted_loads(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Fresh memos for the test, and a list that grows by one per workbook openpyxl loads."""
    import harness.suite.workspace as module

    loads: list[bool] = []
    real = module._load_book

    def counting(file: IO[bytes], path: str, read_only: bool = False) -> object:
        loads.append(read_only)
        return real(file, path, read_only)

    monkeypatch.setattr(module, "_load_book", counting)
    monkeypatch.setattr(module, "_PARSED", module._Memo(256))
    monkeypatch.setattr(module, "_WRITTEN", module._Memo(256))
    return loads


def test_a_workbook_is_parsed_once_per_version(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads = counted_loads(monkeypatch)
    ws.create_excel("out.xlsx", rows=[["a", "b"]])
    loads.clear()
    first = ws.xlsx("out.xlsx")
    first["Sheet1"][0][0] = "changed by a caller"
    assert ws.xlsx("out.xlsx") == {"Sheet1": [["a", "b"]]}  # callers get their own copy
    assert ws.xlsx_cells("out.xlsx", None, "A1:B1") == [["a", "b"]]
    assert ws.xlsx_cells("out.xlsx", None, "A1:B1") == [["a", "b"]]
    assert len(loads) == 2  # the sheets once, the cell range once
    # a new version of the file (same size, written within the same clock tick) is read anew
    ws.create_excel("out.xlsx", rows=[["c", "d"]])
    loads.clear()
    assert ws.xlsx("out.xlsx") == {"Sheet1": [["c", "d"]]}
    assert ws.xlsx_cells("out.xlsx", None, "A1:B1") == [["c", "d"]]
    assert ws.xlsx_sheet_names("out.xlsx") == ["Sheet1"]
    assert len(loads) == 3


def test_episodes_share_what_equal_contents_parse_and_write_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import harness.suite.workspace as module

    loads = counted_loads(monkeypatch)
    saves: list[str] = []
    real = module._excel

    def counted(old: bytes | None, path: str, sheet: str, table: list[list[str]]) -> bytes:
        saves.append(path)
        return real(old, path, sheet, table)

    monkeypatch.setattr(module, "_excel", counted)
    first, second = (Workspace(tmp_path / name) for name in ("e1", "e2"))
    for ws in (first, second):
        ws.root.mkdir()
        ws.create_excel("out.xlsx", rows=[["a", 1]])
        assert ws.xlsx("out.xlsx") == {"Sheet1": [["a", "1"]]}
    assert len(saves) == 1 and len(loads) == 1  # the second episode made nothing anew
    assert (first.root / "out.xlsx").read_bytes() == (second.root / "out.xlsx").read_bytes()
    # another sheet added to the same file: written from that file, not from the table alone
    second.create_excel("out.xlsx", rows=[["a", 1]], sheet="Two")
    assert second.xlsx("out.xlsx") == {"Sheet1": [["a", "1"]], "Two": [["a", "1"]]}
    first.create_excel("new.xlsx", rows=[["a", 1]], sheet="Two")
    assert first.xlsx("new.xlsx") == {"Two": [["a", "1"]]}
    assert len(saves) == 3
    # a file that openpyxl refuses is refused every time, not remembered
    for ws in (first, second):
        ws.write_file("bad.xlsx", "not a workbook")
        with pytest.raises(WorkspaceError, match="not a valid .xlsx file"):
            ws.xlsx("bad.xlsx")
        with pytest.raises(WorkspaceError, match="not a valid .xlsx file"):
            ws.create_excel("bad.xlsx", rows=[["a"]])


def test_the_memo_is_bounded_least_recently_used_out() -> None:
    from harness.suite.workspace import _Memo

    memo: _Memo = _Memo(2)
    made: list[str] = []

    def make(key: str) -> str:
        made.append(key)
        return key.upper()

    for key in ["a", "b", "a", "c", "a", "b"]:
        assert memo.get(key, functools.partial(make, key)) == key.upper()
    assert made == ["a", "b", "c", "b"]  # "b" was the least recently used when "c" came
