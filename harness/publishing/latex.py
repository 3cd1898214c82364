"""The leaderboard as LaTeX for a paper: an `\\input`-able body of booktabs tables written by
pandas' Styler, and a standalone document around it. Each board is one table of the columns that
fit the text width, the rest in continuation tables that refer to it by `\\ref`; a mean and its
standard error sit in two columns (`r@{\\,}r`), so digits align down the column."""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise

import pandas as pd
from pandas.io.formats.style import Styler

from harness.metrics import TABLES
from harness.publishing.cells import parts, shown, stat_of, title
from harness.results.summary import Summary

#: a table's metrics and their headers
Columns = tuple[tuple[str, str], ...]

#: the text width every table fits: LaTeX's article class at 10 pt, narrower than most journals'
TEXT_WIDTH_PT = 345.0
#: the type size of the tables: \footnotesize, 8 pt in a 10-pt document (7 pt is the least the
#: tables set: \scriptsize, for the k of pass^k)
SIZE = "footnotesize"
TABCOLSEP_PT = 3.0
#: widths in points of Computer Modern at 8 pt (cmr8, cmsy8), letters rounded up
_WIDTH_PT = {
    **dict.fromkeys("0123456789$/", 4.25),
    **dict.fromkeys(".,:;", 2.37),
    **dict.fromkeys(" -", 2.84),
    **dict.fromkeys("()[]", 3.31),
    **dict.fromkeys("+±%&", 6.62),
}
_LOWER_PT, _UPPER_PT = 4.4, 6.6
#: a thin space (\\,), between a mean and its ± column and after the ±
_THIN_PT = 1.42
#: headers that are markup, not text: the k of pass^k as a superscript set no smaller than 7 pt
_HEADERS = {"pass_k": "pass$^{\\mbox{\\scriptsize $k$}}$"}
_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "%": r"\%",
    "_": r"\_",
    "^": r"\textasciicircum{}",
    "~": r"\textasciitilde{}",
    "±": r"$\pm$",
    "×": r"$\times$",
    "→": r"$\rightarrow$",
    "≤": r"$\leq$",
    "≥": r"$\geq$",
}
#: what the body needs: booktabs' rules; T1 so that _ ^ ~ \\ print as themselves, not as OT1's
#: accents (lmodern: T1 in scalable fonts where cm-super is not installed)
PACKAGES = ("[T1]{fontenc}", "{lmodern}", "{booktabs}")
#: labels start with this macro: a paper that \inputs several boards renews it before each
PREFIX = "\\todobenchprefix"


def escape(text: str) -> str:
    """`text` typeset as itself: TeX's special characters and the symbols the titles use."""
    return "".join(_SPECIALS.get(char, char) for char in text)


def _width(text: str) -> float:
    """Estimated width in points of `text` set in the tables' type."""
    return sum(_WIDTH_PT.get(c, _UPPER_PT if c.isupper() else _LOWER_PT) for c in text)


def _lines(header: str, room: float) -> list[str]:
    """The header on one line if it is no wider than `room` (its numbers' width), else on two,
    split at the space that makes the wider line narrowest."""
    if _width(header) <= room:
        return [header]
    words = header.split(" ")
    splits = [[" ".join(words[:i]), " ".join(words[i:])] for i in range(1, len(words))]
    return min(splits, key=lambda pair: max(map(_width, pair)), default=[header])


def _header(metric: str, lines: list[str]) -> str:
    """A header cell: the markup of a metric that has one, else its lines escaped."""
    if metric in _HEADERS:
        return _HEADERS[metric]
    if len(lines) == 1:
        return escape(lines[0])
    # a one-column tabular stacks the two lines (no package needed)
    return "\\begin{tabular}[b]{@{}c@{}}" + "\\\\".join(map(escape, lines)) + "\\end{tabular}"


def _frame(summary: Summary, columns: tuple[tuple[str, str], ...]) -> pd.DataFrame:
    """Variants by (metric, mean | stderr), the cells as the other formats print them."""
    data: dict[tuple[str, str], list[str]] = {}
    for metric, _ in columns:
        means, spreads = [], []
        for v in summary.variants:
            stat = stat_of(v, metric)
            mean, spread = ("n/a", None) if stat is None else parts(stat, metric)
            means.append(mean)
            spreads.append(spread or "")
        data[(metric, "mean")], data[(metric, "stderr")] = means, spreads
    frame = pd.DataFrame(data, index=[v.variant for v in summary.variants])
    frame.columns = frame.columns.set_names(["variant", None])
    return frame


def _layout(frame: pd.DataFrame, metric: str, header: str) -> tuple[list[str], float]:
    """A column's header lines and its estimated width in points, padding included."""
    mean = max(map(_width, frame[(metric, "mean")]), default=0.0)  # no rows: a failed run
    spreads = [s for s in frame[(metric, "stderr")] if s]
    spread = _THIN_PT + _WIDTH_PT["±"] + _THIN_PT + max(map(_width, spreads)) if spreads else 0
    numbers = mean + spread
    if metric in _HEADERS:  # pass^k: about as wide as four digits
        return [header], max(numbers, 4 * _WIDTH_PT["0"]) + 2 * TABCOLSEP_PT
    lines = _lines(header, numbers)
    return lines, max(numbers, *map(_width, lines)) + 2 * TABCOLSEP_PT


def _split(widths: list[float], room: float) -> list[slice]:
    """The fewest runs of columns, evenly sized, each fitting `room` (one column a table when
    even that does not fit)."""
    count = len(widths)
    for tables in range(1, count + 1):
        bounds = [math.ceil(count * i / tables) for i in range(tables + 1)]
        runs = [slice(a, b) for a, b in pairwise(bounds)]
        if all(sum(widths[run]) <= room for run in runs):
            return runs
    return [slice(i, i + 1) for i in range(count)]


def _slug(caption: str) -> str:
    """`Outcomes (per episode)` -> `outcomes`."""
    return caption.split(" (")[0].lower().replace(" ", "-")


def _write(styler: Styler, column_format: str, caption: str, label: str) -> str:
    """A Styler's table as every table here is set: booktabs rules, centred, at the tables'
    type size and column padding, caption above."""
    styler = styler.hide(axis="index", names=True).format_index(escape, axis=0)
    styler = styler.set_table_styles(
        [
            {"selector": SIZE, "props": ":;"},
            {"selector": "setlength", "props": f":{{\\tabcolsep}}{{{TABCOLSEP_PT:g}pt}};"},
        ]
    )
    latex: str = styler.to_latex(
        column_format=column_format,
        position="t",
        position_float="centering",
        hrules=True,
        label=label,
        caption=caption,
        multicol_align="c",
        environment="table",
    )
    return latex


def _board_table(frame: pd.DataFrame, heads: dict[str, list[str]], caption: str, label: str) -> str:
    """One table of a board: a header over each metric's mean and ± columns."""
    metrics = list(dict.fromkeys(frame.columns.get_level_values(0)))
    styler = frame.style.hide(axis="columns", level=1).format(escape)
    spread_columns = [c for c in frame.columns if c[1] == "stderr"]
    styler = styler.format(lambda s: f"$\\pm$\\,{escape(s)}" if s else "", subset=spread_columns)
    styler = styler.format_index(lambda metric: _header(metric, heads[metric]), axis=1, level=0)
    return _write(styler, "l" + "r@{\\,}r" * len(metrics), caption, label)


def table(frame: pd.DataFrame, caption: str, label: str) -> str:
    """A table of text cells (`frame`'s index first; numbers right-aligned, words left), each
    header on two lines where it is wider than its cells. `caption` is LaTeX; the cells and
    headers are escaped."""
    heads = {
        str(name): _lines(str(name), max(map(_width, frame[name].astype(str)), default=0.0))
        for name in frame.columns
    }
    styler = frame.style.format(escape)
    styler = styler.format_index(lambda name: _header(str(name), heads[str(name)]), axis=1)
    # numbers (and intervals, counts like 15/22) right-aligned, words left
    aligns = ["r" if all(str(c)[:1] in "0123456789[-+" for c in frame[n]) else "l" for n in heads]
    return _write(styler, "l" + "".join(aligns), caption, label)


def body(summary: Summary, tables: Sequence[tuple[str, Columns]] = TABLES) -> str:
    """Every board (or the `tables` named), `\\input`-able after `\\begin{document}`: the
    comment at the top names the packages it needs; the run is described in the first table's
    caption only."""
    about = escape(title(summary))
    episodes = ", ".join(str(e) for e in sorted({v.episodes for v in summary.variants}))
    per = f"episodes per variant: {episodes}"
    out = [
        "% todo-bench leaderboard: \\input this after \\begin{document}",
        "% needs " + " ".join(f"\\usepackage{p}" for p in PACKAGES),
        f"% labels are {PREFIX}-<board>[-<part>] ({PREFIX} is todo-bench unless renewed first)",
        f"% {title(summary)}",
        f"\\providecommand{{{PREFIX}}}{{todo-bench}}",
    ]
    first = ""
    for caption, all_columns in tables:
        columns = shown(summary, all_columns)
        frame = _frame(summary, columns)
        layouts = {metric: _layout(frame, metric, header) for metric, header in columns}
        heads = {metric: lines for metric, (lines, _) in layouts.items()}
        names = [v.variant for v in summary.variants]
        room = TEXT_WIDTH_PT - max(map(_width, [*names, "variant"])) - 2 * TABCOLSEP_PT
        runs = _split([width for _, width in layouts.values()], room)
        label = f"{PREFIX}-{_slug(caption)}"
        first = first or label
        for number, run in enumerate(runs, start=1):
            part = frame[[m for m, _ in columns[run]]]
            if number == 1:
                text = f"{escape(caption)}; {per}."
                text += f" {about}" if label == first else f" Run as in Table~\\ref{{{first}}}."
                out.append(_board_table(part, heads, text, label))
            else:
                text = f"{escape(caption)}, continued from Table~\\ref{{{label}}}."
                out.append(_board_table(part, heads, text, f"{label}-{number}"))
    return "\n".join(out)


def standalone(summary: Summary) -> str:
    """`body` in a document of its own, with the packages the body names."""
    preamble = "\n".join(f"\\usepackage{p}" for p in PACKAGES)
    return (
        f"\\documentclass{{article}}\n\\usepackage[utf8]{{inputenc}}\n{preamble}\n"
        f"\\begin{{document}}\n{body(summary)}\\end{{document}}\n"
    )
