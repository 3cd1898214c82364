"""A shell command line's words as the seed's workspace calls (harness/suite/shell_calls.py):
each form it reads is read, what it must not read is not, and the workspace after the command
settles what a misreading would claim."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.suite.shell_calls import patch_calls, settled, shell_calls

ROOT = "/work/ws"


@pytest.mark.parametrize(
    ("command", "calls"),
    [
        ("echo hi > notes.md", [("write_file", {"path": "notes.md"})]),
        ("printf 'a\\n' >> out/log.txt", [("write_file", {"path": "out/log.txt"})]),
        ("cat > main.py <<'EOF'\nprint('> not.py')\nEOF", [("write_file", {"path": "main.py"})]),
        (
            "cat a.txt | tee b.txt c.txt",
            [
                ("read_file", {"path": "a.txt"}),
                ("write_file", {"path": "b.txt"}),
                ("write_file", {"path": "c.txt"}),
            ],
        ),
        (
            "mv -f old.csv new.csv && ls",
            [
                ("rename_file", {"src": "old.csv", "dst": "new.csv"}),
                ("list_files", {}),
            ],
        ),
        (
            "rm -f a.tmp b.tmp; touch c.md",
            [
                ("delete_file", {"path": "a.tmp"}),
                ("delete_file", {"path": "b.tmp"}),
                ("write_file", {"path": "c.md"}),
            ],
        ),
        ("sed -i 's/a/b/' src/app.py", [("write_file", {"path": "src/app.py"})]),
        ("cp template.md /work/ws/report.md", [("write_file", {"path": "report.md"})]),
        ("FOO=1 sudo head -n 3 data.csv", [("read_file", {"path": "data.csv"})]),
        ("python make.py 2> err.log", [("write_file", {"path": "err.log"})]),
    ],
)
def test_each_form_it_reads(command: str, calls: list[tuple[str, dict[str, str]]]) -> None:
    assert shell_calls(command, ROOT) == calls


@pytest.mark.parametrize(
    "command",
    [
        "echo 'a > b.txt'",  # quoted: no redirection
        "python make.py > /dev/null 2>&1",  # nowhere, and a descriptor
        "cat ../secret.txt > /tmp/copy.txt",  # outside the workspace both ways
        "grep -r TODO . # > notes.md",  # a comment
        "echo 'unclosed > x.txt",  # shlex cannot split it: not certain
        "sed 's/a/b/' app.py",  # no -i: nothing written
        "mv a.txt b.txt c/",  # three operands: not a rename of one file
    ],
)
def test_what_it_must_not_read(command: str) -> None:
    assert shell_calls(command, ROOT) == []


def test_a_codex_patch_adds_updates_moves_and_deletes() -> None:
    patch = "\n".join([
        "*** Begin Patch",
        "*** Add File: docs/new.md",
        "+hello",
        "*** Update File: src/app.py",
        "*** Move to: src/main.py",
        "@@",
        "-a",
        "+b",
        "*** Delete File: old.txt",
        "*** Update File: ../outside.py",
        "*** End Patch",
    ])  # fmt: skip
    assert patch_calls(patch, ROOT) == [
        ("write_file", {"path": "docs/new.md"}),
        ("rename_file", {"src": "src/app.py", "dst": "src/main.py"}),
        ("write_file", {"path": "src/main.py"}),
        ("delete_file", {"path": "old.txt"}),
    ]
    heredoc = f"apply_patch <<'PATCH'\n{patch}\nPATCH"
    assert shell_calls(heredoc, ROOT) == patch_calls(patch, ROOT)


def test_the_workspace_settles_what_the_words_claim(tmp_path: Path) -> None:
    (tmp_path / "written.md").write_text("x", encoding="utf-8")
    (tmp_path / "kept.txt").write_text("x", encoding="utf-8")
    (tmp_path / "new.csv").write_text("x", encoding="utf-8")
    claimed = [
        ("write_file", {"path": "written.md"}),
        ("write_file", {"path": "never.md"}),  # the command failed before it wrote
        ("delete_file", {"path": "gone.txt"}),
        ("delete_file", {"path": "kept.txt"}),  # still there
        ("rename_file", {"src": "old.csv", "dst": "new.csv"}),
        ("rename_file", {"src": "kept.txt", "dst": "new.csv"}),  # the source is still there
        ("read_file", {"path": "missing.txt"}),
    ]
    assert settled(claimed, str(tmp_path)) == [
        ("write_file", {"path": "written.md"}),
        ("delete_file", {"path": "gone.txt"}),
        ("rename_file", {"src": "old.csv", "dst": "new.csv"}),
    ]
