"""Published formats checked as their readers would: a real browser for the HTML page, pdflatex
for the LaTeX (each skipped, with the reason, where the tool is missing)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from harness.publish import leaderboard
from harness.report import read_summary

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
@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="no pdflatex (texlive)")
def test_the_latex_compiles(tmp_path: Path) -> None:
    body = leaderboard(read_summary(LATEST), "latex")
    document = (
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n"
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
