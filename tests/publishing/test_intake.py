"""Reading a submission within bounds: each hostile shape is refused in one line, exit 2, before
anything past the bound is written or opened; a submission within them still verifies."""

from __future__ import annotations

import io
import os
import tarfile
import zipfile
from pathlib import Path

import pytest

from harness.commands import main
from harness.errors import UsageError
from harness.publishing.intake import Limits, json_text, regular_files, zip_member_count


def refused(path: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> str:
    """verify's answer to a submission that must be refused: exit 2, one line, no traceback."""
    assert main(["verify", str(path), *flags]) == 2
    captured = capsys.readouterr()
    lines = [line for line in (captured.out + captured.err).splitlines() if line]
    assert len(lines) == 1 and "Traceback" not in captured.err, lines
    return lines[0]


def zeros_zip(path: Path, size: int, members: int = 1) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for index in range(members):
            archive.writestr(f"sub/file{index}", b"\0" * size)
    return path


def test_a_zip_s_member_count_comes_from_its_end_record(tmp_path: Path) -> None:
    assert zip_member_count(zeros_zip(tmp_path / "a.zip", 1, members=7)) == 7


def test_too_many_members_are_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = zeros_zip(tmp_path / "many.zip", 1, members=20)
    monkeypatch.setenv("TMPDIR", str(tmp_path / "scratch"))
    (tmp_path / "scratch").mkdir()
    line = refused(archive, capsys, "--max-members", "10")
    assert "20 archive members, above the bound of 10 (--max-members raises it)" in line
    assert list((tmp_path / "scratch").iterdir()) == []


def test_a_zip_bomb_is_refused_from_its_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = zeros_zip(tmp_path / "bomb.zip", 4 << 20)
    assert "expands to more than 1048576 bytes" in refused(
        archive, capsys, "--max-bytes", "1048576"
    )
    line = refused(archive, capsys, "--max-ratio", "10")
    assert "times its size, above the bound of 10" in line


def test_a_member_that_lies_about_its_size_is_refused_while_extracting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = zeros_zip(tmp_path / "liar.zip", 4 << 20)
    data = bytearray(archive.read_bytes())
    central = data.rfind(b"PK\x01\x02")
    data[central + 24 : central + 28] = (1000).to_bytes(4, "little")  # uncompressed size
    archive.write_bytes(bytes(data))
    assert "not a readable archive" in refused(archive, capsys)


def test_a_tar_with_a_link_member_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = tmp_path / "link.tar.gz"
    with tarfile.open(archive, "w:gz") as packed:
        member = tarfile.TarInfo("sub/logs/zero")
        member.type, member.linkname = tarfile.SYMTYPE, "/dev/zero"
        packed.addfile(member)
    assert "member sub/logs/zero is a link or a special file" in refused(archive, capsys)


def test_a_tar_with_too_many_members_is_refused_as_it_streams(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = tmp_path / "many.tar.gz"
    with tarfile.open(archive, "w:gz") as packed:
        for index in range(20):
            member = tarfile.TarInfo(f"sub/file{index}")
            packed.addfile(member, io.BytesIO(b""))
    line = refused(archive, capsys, "--max-members", "10")
    assert "more than 10 archive members (--max-members raises it)" in line


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "loop", "folder-outside"])
def test_a_folder_holding_anything_but_regular_files_is_refused_unopened(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    folder = tmp_path / "sub"
    (folder / "logs").mkdir(parents=True)
    (folder / "submission.json").write_text("{}")
    bad = folder / "logs" / "x.eval"
    if kind == "fifo":
        os.mkfifo(bad)
    elif kind == "dev-zero":
        bad.symlink_to("/dev/zero")
    elif kind == "loop":
        bad.symlink_to(folder / "logs" / "y.eval")
        (folder / "logs" / "y.eval").symlink_to(bad)
    else:
        (tmp_path / "outside").mkdir()
        bad.symlink_to(tmp_path / "outside")
    line = refused(folder, capsys)
    assert "not a regular file: refused" in line and ("a FIFO" in line or "a symlink" in line)


def test_json_past_its_size_or_depth_is_refused_before_parsing(tmp_path: Path) -> None:
    deep = tmp_path / "summary.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(UsageError, match="nested deeper than 64 levels"):
        json_text(deep, Limits())
    quoted = tmp_path / "quoted.json"
    quoted.write_text('{"a": "' + "[" * 1000 + '"}')  # brackets in a string do not nest
    assert json_text(quoted, Limits()).startswith("{")
    with pytest.raises(UsageError, match="above the bound of 10 for a JSON file"):
        json_text(quoted, Limits(max_json_bytes=10))


def test_a_deep_summary_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "submission.json").write_text("{}")
    (folder / "summary.json").write_text("[" * 100_000 + "]" * 100_000)
    assert "nested deeper than 64 levels" in refused(folder, capsys)


def test_regular_files_are_listed_in_path_order(tmp_path: Path) -> None:
    for name in ("b/2", "a/1", "c"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(name)
    found = [p.relative_to(tmp_path).as_posix() for p in regular_files(tmp_path, Limits())]
    assert found == ["a/1", "b/2", "c"]


def test_submit_of_a_run_with_a_fifo_in_its_logs_leaves_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.helpers import ROOT

    run = tmp_path / "run"
    (run / "logs").mkdir(parents=True)
    (run / "summary.json").write_bytes((ROOT / "results/latest/summary.json").read_bytes())
    os.mkfifo(run / "logs" / "stuck.eval")
    out = tmp_path / "out" / "sub"
    out.parent.mkdir()
    args = ["submit", str(run), "--out", str(out), "--include-logs", "--who", "x"]
    assert main(args) == 2
    assert "a FIFO, not a regular file: refused" in capsys.readouterr().err
    assert list(out.parent.iterdir()) == []
