"""The technical report (`make paper`, scripts/paper.py) compiles from the committed results with
no box sticking out, every reference resolved and no type under 7 pt, and its committed pages
are the report as it stands (heavy: pdflatex runs twice)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import ROOT, load_script
from tests.publishing.tex import assert_printable, needs_pdflatex

PAPER = ROOT / "docs" / "paper"


@pytest.mark.heavy
@needs_pdflatex
def test_the_report_compiles_printably_and_its_committed_pages_match(tmp_path: Path) -> None:
    paper = load_script("paper")
    pdf, log = paper.build(tmp_path / "here")
    assert_printable(log, pdf)
    # the same bytes from another folder (pdfTeX's /ID would otherwise derive from the path)
    elsewhere, _ = paper.build(tmp_path / "somewhere" / "else")
    assert elsewhere.read_bytes() == pdf.read_bytes()
    # the committed report is the one the committed docs and results make (its matrix is read
    # from docs/hooks.md: a cell edited there left the report stale once)
    assert pdf.read_bytes() == (PAPER / "todo-bench.pdf").read_bytes(), "stale: run make paper"
    assert "\\resizebox" not in (PAPER / "todo-bench.tex").read_text(encoding="utf-8")
    if shutil.which("pdfinfo") is None:
        pytest.skip("no poppler-utils (pdfinfo) to count the pages")
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    match = re.search(r"^Pages:\s+(\d+)", info.stdout, re.M)
    assert match is not None
    assert len(list(PAPER.glob("page-*.png"))) == int(match.group(1))  # make paper ran last


def test_without_pdflatex_the_report_names_the_packages_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    paper = load_script("paper")
    monkeypatch.setenv("PATH", str(tmp_path))  # neither pdflatex nor pdftoppm
    assert paper.main() == 2
    said = capsys.readouterr().err.strip()
    assert said == (
        "make paper needs pdflatex (Debian: texlive-latex-recommended), pdftoppm (Debian: "
        "poppler-utils); install them first"
    )


def test_the_fix_matrix_is_read_from_the_docs_cells_own_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cell's evidence is what it says was done ("not a board row" is not a board row), and a
    cell that says why nothing was measured says that."""
    paper = load_script("paper")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "hooks.md").write_text(
        "| fix | A, x | B, y |\n|---|---|---|\n"
        "| `inject` (L4) | real binary: counted; not a board row yet: a trial | board (1 -> 0); "
        "unit tests |\n"
        "| `gate-open` | not applicable (reads a list) | not yet measured: stalled |\n\nafter\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(paper, "ROOT", tmp_path)
    rows = [line for line in paper._matrix().splitlines() if line.startswith(("inject", "gate"))]
    assert rows == ["inject & R & B U \\\\", "gate-open & n/a & not yet \\\\"]
