"""LaTeX as a reader meets it: compiled with pdflatex, its log read for boxes that stick out, and
the type sizes its PDF sets (a test that needs pdflatex is skipped, saying so, without it)."""

from __future__ import annotations

import re
import shutil
import subprocess
import zlib
from pathlib import Path

import pytest

from tests.helpers import ROOT

needs_pdflatex = pytest.mark.skipif(
    shutil.which("pdflatex") is None,
    reason="no pdflatex (.ci/run installs Debian's texlive-latex-recommended)",
)
#: the committed runs published with their LaTeX (scripts/regenerate.sh reports them)
PUBLISHED = [ROOT / "results" / run for run in ("latest", "products", "hard", "field/run")]
#: TeX points per PDF point: pdflatex writes sizes in big points ("/F8 7.9701 Tf" is 8 pt)
PT_PER_BP = 72.27 / 72


def compile_document(folder: Path, name: str) -> str:
    """`name` in `folder` compiled twice (the second pass resolves \\ref); the second log."""
    command = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", name]
    for _ in range(2):
        done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout[-2000:]
    return done.stdout


def _inflate(stream: bytes) -> bytes:
    try:
        return zlib.decompress(stream)
    except zlib.error:
        return b""  # an image or font stream, not page text


def type_sizes(pdf: Path) -> list[float]:
    """Every size, in TeX points, at which the PDF sets text: pdflatex selects a font at its
    size (`Tf`) and draws text unscaled, so a \\resizebox would escape this (none is used)."""
    data = pdf.read_bytes()
    return [
        round(float(size) * PT_PER_BP, 2)
        for stream in re.findall(rb"stream\r?\n(.*?)\r?\nendstream", data, re.S)
        for size in re.findall(rb"/F\d+ ([\d.]+) Tf", _inflate(stream))
    ]


def assert_printable(log: str, pdf: Path) -> None:
    """No box wider than the text, no reference left unresolved, no text under 7 pt."""
    assert "Overfull \\hbox" not in log
    assert "undefined" not in log.replace("\n", ""), "a \\ref or citation is undefined"
    sizes = type_sizes(pdf)
    assert sizes and min(sizes) >= 7.0, sorted(set(sizes))
