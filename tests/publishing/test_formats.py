"""Published formats: each labelled and its numbers parsed back (fast), and checked as their
readers would: a real browser for the HTML page, pdflatex for the LaTeX (each skipped, with the
reason, where the tool is missing)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.publishing.formats import leaderboard
from harness.results.summary import read_summary
from harness.stats.aggregate import summarize
from tests.helpers import ROOT
from tests.publishing.tex import PUBLISHED, assert_printable, compile_document, needs_pdflatex
from tests.stats.test_aggregate import RUNS, result

LATEST = Path("results/latest/summary.json")
BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
CHROME_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.mark.heavy
@pytest.mark.skipif(BROWSER is None, reason="no chromium (.ci/run installs Debian's chromium)")
def test_the_html_page_renders_in_a_real_browser(tmp_path: Path) -> None:
    assert BROWSER is not None
    summary = read_summary(LATEST)
    page = tmp_path / "leaderboard.html"
    page.write_text(leaderboard(summary, "html"), encoding="utf-8")
    profile = tmp_path / "profile"
    common = [BROWSER, *CHROME_FLAGS, f"--user-data-dir={profile}"]
    dom = subprocess.run(
        [*common, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120
    ).stdout
    assert "<table" in dom and summary.model in dom
    assert dom.count('src="data:image/png;base64,') == 3
    shot = tmp_path / "shot.png"
    subprocess.run(
        [*common, f"--screenshot={shot}", "--window-size=1400,2600", page.as_uri()],
        capture_output=True,
        timeout=120,
    )
    assert shot.is_file() and shot.stat().st_size > 20_000  # a page with tables and figures


@pytest.mark.heavy
@needs_pdflatex
@pytest.mark.parametrize("folder", PUBLISHED, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_standalone_latex_compiles_and_is_printable(folder: Path, tmp_path: Path) -> None:
    """The committed standalone document compiles as it is: every table fits the page (no
    overfull box), every \\ref resolves, no type under 7 pt, and its first page renders
    (pdftoppm)."""
    shutil.copy(folder / "leaderboard-standalone.tex", tmp_path / "t.tex")
    assert_printable(compile_document(tmp_path, "t.tex"), tmp_path / "t.pdf")
    if shutil.which("pdftoppm") is None:
        pytest.skip("no poppler-utils (pdftoppm) to render the page")
    subprocess.run(
        ["pdftoppm", "-png", "-r", "80", "-f", "1", "-l", "1", "t.pdf", "page"],
        cwd=tmp_path,
        check=True,
    )
    (page,) = tmp_path.glob("page*.png")
    assert page.stat().st_size > 10_000  # a rendered page of tables, not a blank one


@pytest.mark.heavy
@needs_pdflatex
def test_the_body_inputs_into_a_paper_and_typesets_special_characters(tmp_path: Path) -> None:
    """The body \\input twice under two label prefixes (no label defined twice), and a model name
    full of TeX's special characters printed as written (read back with pdftotext)."""
    model = "acme/model_v2 & co #1 {50% ~$3^2}"
    summary = read_summary(LATEST).model_copy(update={"model": model})
    (tmp_path / "board.tex").write_text(leaderboard(summary, "latex"), encoding="utf-8")
    document = (
        "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{lmodern}\n"
        "\\usepackage{booktabs}\n\\begin{document}\n"
        "\\newcommand{\\todobenchprefix}{one}\\input{board.tex}\\clearpage\n"
        "\\renewcommand{\\todobenchprefix}{two}\\input{board.tex}\n"
        "See Tables~\\ref{one-outcomes} and \\ref{two-outcomes}.\n\\end{document}\n"
    )
    (tmp_path / "paper.tex").write_text(document, encoding="utf-8")
    log = compile_document(tmp_path, "paper.tex")
    assert "multiply defined" not in log
    assert_printable(log, tmp_path / "paper.pdf")
    if shutil.which("pdftotext") is None:
        pytest.skip("no poppler-utils (pdftotext) to read the text back")
    text = subprocess.run(
        ["pdftotext", "paper.pdf", "-"], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout
    assert model in text.replace("\n", " ")


def test_the_html_page_has_a_glossary_of_every_column_and_left_aligned_prose() -> None:
    from harness.metrics import TABLES

    page = leaderboard(read_summary(LATEST), "html")
    glossary = page[page.index("Glossary of the columns") :]
    for _, columns in TABLES:
        for name, header in columns:
            for cell in (header, name):
                assert re.search(rf"<td>\s*{re.escape(cell)}\s*</td>", glossary), cell
    assert "p { text-align: left" in page


def test_leaderboard_formats_are_labelled() -> None:
    summary = summarize([result("L0-rewrite", RUNS)], seed=1)
    md = leaderboard(summary, "md")
    assert md.startswith("Model: sim/sloppy (simulated agent") and "| L0-rewrite" in md
    assert "0.75 ± 0.25" in md and "clustered by scenario" in md
    page = leaderboard(summary, "html")
    assert page.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in page
    assert "<style>" in page and "http" not in page  # nothing fetched at view time
    assert "The designs compared" in page and "Accepts any list" in page
    latex = leaderboard(summary, "latex")
    assert "\\begin{table}" in latex and "\\toprule" in latex and "\\caption{" in latex
    assert "pass$^{" in latex and "\\resizebox" not in latex  # no shrinking
    assert json.loads(leaderboard(summary, "json"))["model"] == "sim/sloppy"


def test_csv_numbers_parse_as_floats() -> None:
    import io

    import pandas as pd

    frame = pd.read_csv(io.StringIO(leaderboard(summarize([result("L0-rewrite", RUNS)]), "csv")))
    success = frame[frame.metric == "task_success"].iloc[0]
    assert (success["mean"], success["stderr"], success["n"]) == (0.75, 0.25, 4)
    assert frame["ci_low"].dtype == float


def test_a_summary_older_than_a_metric_still_renders() -> None:
    summary = summarize([result("L0-rewrite", RUNS)], seed=1)
    del summary.variants[0].metrics["recovered_tool_calls"]
    assert "n/a" in leaderboard(summary, "md")
    assert "recovered_tool_calls" not in leaderboard(summary, "csv")
