"""Published formats checked as their readers would: a real browser for the HTML page, pdflatex
for the LaTeX (each skipped, with the reason, where the tool is missing)."""

from __future__ import annotations

import re
import shutil
import subprocess
import zlib
from pathlib import Path

import pytest

from harness.results.publish import leaderboard
from harness.results.report import read_summary

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


def _inflate(stream: bytes) -> bytes:
    try:
        return zlib.decompress(stream)
    except zlib.error:
        return b""  # an image or font stream, not page text


@pytest.mark.heavy
@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="no pdflatex (texlive)")
@pytest.mark.parametrize("run", ["latest", "products"])
def test_the_latex_compiles_and_is_printable(tmp_path: Path, run: str) -> None:
    """Every table fits the page (no overfull box) in type no smaller than 7 pt, measured from
    the compiled PDF's words, and the first page renders as a picture (pdftoppm)."""
    body = leaderboard(read_summary(Path(f"results/{run}/summary.json")), "latex")
    document = (
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage{array}\n"
        "\\usepackage[utf8]{inputenc}\n\\begin{document}\n" + body + "\\end{document}\n"
    )
    (tmp_path / "t.tex").write_text(document, encoding="utf-8")
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    assert "Overfull \\hbox" not in done.stdout
    # the type sizes the PDF sets (pdflatex writes text unscaled: "/F8 7.9701 Tf")
    data = (tmp_path / "t.pdf").read_bytes()
    sizes = [
        float(size)
        for stream in re.findall(rb"stream\r?\n(.*?)\r?\nendstream", data, re.S)
        for size in re.findall(rb"/F\d+ ([\d.]+) Tf", _inflate(stream))
    ]
    assert sizes and min(sizes) >= 7.0, sorted(set(sizes))
    if shutil.which("pdftoppm") is None:
        pytest.skip("no poppler-utils (pdftoppm) to render the page")
    subprocess.run(
        ["pdftoppm", "-png", "-r", "80", "-f", "1", "-l", "1", "t.pdf", "page"],
        cwd=tmp_path,
        check=True,
    )
    (page,) = tmp_path.glob("page*.png")
    assert page.stat().st_size > 10_000  # a rendered page of tables, not a blank one


def test_the_html_page_has_a_glossary_of_every_column_and_left_aligned_prose() -> None:
    from harness.metrics import TABLES

    page = leaderboard(read_summary(LATEST), "html")
    glossary = page[page.index("Glossary of the columns") :]
    for _, columns in TABLES:
        for name, header in columns:
            for cell in (header, name):
                assert re.search(rf"<td>\s*{re.escape(cell)}\s*</td>", glossary), cell
    assert "p { text-align: left" in page
