"""The LaTeX leaderboard as a paper takes it: a body to \\input and a standalone document, one
table per board with the columns that fit, the rest referred to by \\ref, the same numbers as
every other format (compiled by pdflatex in tests/publishing/test_formats.py, heavy)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.metrics import TABLES
from harness.publishing import latex
from harness.publishing.cells import parts, shown, stat_of
from harness.publishing.formats import FORMATS, leaderboard
from harness.results.summary import read_summary
from tests.helpers import ROOT
from tests.publishing.tex import PUBLISHED

LATEST = read_summary(ROOT / "results" / "latest" / "summary.json")


@pytest.mark.parametrize("folder", PUBLISHED, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_committed_latex_is_what_the_code_writes(folder: Path) -> None:
    summary = read_summary(folder / "summary.json")
    for fmt in ("latex", "latex-standalone"):
        name, render = FORMATS[fmt]
        assert name is not None
        assert (folder / name).read_text(encoding="utf-8") == render(summary), name


def test_the_body_names_its_packages_and_the_standalone_loads_them() -> None:
    body = leaderboard(LATEST, "latex")
    commands = [line for line in body.splitlines() if not line.startswith("%")]
    assert not any(line.startswith(("\\documentclass", "\\begin{document}")) for line in commands)
    assert body.startswith("% todo-bench leaderboard: \\input this after \\begin{document}\n")
    needs = "\\usepackage[T1]{fontenc} \\usepackage{lmodern} \\usepackage{booktabs}"
    assert f"% needs {needs}\n" in body
    document = leaderboard(LATEST, "latex-standalone")
    assert document.startswith("\\documentclass{article}\n")
    preamble = document.split("\\begin{document}")[0]
    assert all(f"\\usepackage{p}" in preamble for p in latex.PACKAGES)
    assert body in document and document.endswith("\\end{document}\n")


def test_one_table_per_board_and_its_continuations_refer_to_it_by_label() -> None:
    body = leaderboard(LATEST, "latex")
    labels = re.findall(r"\\label\{\\todobenchprefix-([a-z0-9-]+)\}", body)
    assert labels == [
        "outcomes",
        "list-corruption",
        "list-corruption-2",
        "tool-calls",
        "price-of-safety-and-cost",
        "price-of-safety-and-cost-2",
    ]
    assert "continued from Table~\\ref{\\todobenchprefix-list-corruption}" in body
    assert "Run as in Table~\\ref{\\todobenchprefix-outcomes}" in body
    assert "Table 1" not in body and "\\resizebox" not in body  # no fixed number, no shrinking
    assert body.count("\\toprule") == len(labels) and body.count("\\footnotesize") == len(labels)


def test_every_number_of_the_board_is_in_the_latex_split_into_aligned_columns() -> None:
    body = leaderboard(LATEST, "latex")
    for _, columns in TABLES:
        for metric, _ in shown(LATEST, columns):
            for v in LATEST.variants:
                stat = stat_of(v, metric)
                assert stat is not None
                mean, spread = parts(stat, metric)
                cells = f" & {mean} & $\\pm$\\,{spread}" if spread else f" & {mean} & "
                assert cells in body, (v.variant, metric)
    # a mean and its error are two cells of `r@{\,}r` columns: their digits align
    assert "r@{\\,}r" in body and " ± " not in body.split("\\begin{table}", 1)[1]


def test_pass_k_is_a_superscript_no_smaller_than_seven_points() -> None:
    body = leaderboard(LATEST, "latex")
    assert "pass$^{\\mbox{\\scriptsize $k$}}$" in body and "textasciicircum" not in body


def test_special_characters_are_escaped() -> None:
    text = "a\\b{c}$d&e#f%g_h^i~j ± k"
    assert latex.escape(text) == (
        "a\\textbackslash{}b\\{c\\}\\$d\\&e\\#f\\%g\\_h\\textasciicircum{}i\\textasciitilde{}j"
        " $\\pm$ k"
    )
    summary = LATEST.model_copy(update={"model": "acme/model_v2 & co #1"})
    assert "Model: acme/model\\_v2 \\& co \\#1" in leaderboard(summary, "latex")


def test_a_wide_board_is_split_evenly_and_a_narrow_one_stays_whole() -> None:
    assert latex._split([50.0] * 6, 400) == [slice(0, 6)]
    assert latex._split([50.0] * 11, 300) == [slice(0, 6), slice(6, 11)]
    assert latex._split([50.0] * 11, 200) == [slice(0, 4), slice(4, 8), slice(8, 11)]
    assert latex._split([500.0, 10.0], 300) == [slice(0, 1), slice(1, 2)]  # no fit at all


def test_a_plain_table_aligns_numbers_right_words_left_and_stacks_a_wide_header() -> None:
    import pandas as pd

    frame = pd.DataFrame(
        {"family": ["full_list", "ids"], "events over opportunities": ["16/1190", "6/689"]},
        index=["drop", "wrong_id"],
    )
    out = latex.table(frame, "Rates", "rates")
    assert "\\begin{tabular}{llr}" in out and "\\label{rates}" in out
    assert "wrong\\_id & ids & 6/689 \\\\" in out and "full\\_list" in out
    assert "\\begin{tabular}[b]{@{}c@{}}events over\\\\opportunities\\end{tabular}" in out
