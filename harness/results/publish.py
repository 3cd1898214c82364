"""Leaderboards from a summary: markdown, CSV and JSON with numbers apart, LaTeX (booktabs) and a
self-contained HTML page."""

from __future__ import annotations

import csv
import html
import inspect as pyinspect
import io
from collections.abc import Callable
from datetime import UTC, datetime

from tabulate import tabulate

from harness.metrics import BRIEF, BY_NAME, TABLES
from harness.results.stopping import section
from harness.results.summary import Stat, Summary, VariantSummary

SIM_NOTE = "simulated agent: demonstrates the harness, not evidence about real models"

#: every leaderboard column, (metric, header), from the tables harness.metrics declares
COLUMNS = tuple(column for _, columns in TABLES for column in columns)


def _cell(stat: Stat, metric: str) -> str:
    digits = 0 if metric.endswith("tokens") else 4 if metric == "cost_usd" else 2
    if stat.stderr:
        return f"{stat.mean:.{digits}f} ± {stat.stderr:.{digits}f}"
    return f"{stat.mean:.{digits}f}"


def title(summary: Summary) -> str:
    note = f" ({SIM_NOTE})" if summary.simulated else ""
    seed = f", seed {summary.seed}" if summary.seed is not None else ""
    head = "INCOMPLETE RUN: " if not summary.complete else ""
    return (
        f"{head}Model: {summary.model}{note}; {len(summary.scenarios)} scenarios x "
        f"{summary.epochs} epochs{seed}; {versions(summary)}. "
        f"Cells: mean ± {summary.stderr_method}."
    )


def versions(summary: Summary) -> str:
    """Which task (and sim) version made the numbers: runs of different versions differ in
    meaning and are never mixed silently."""
    origin = summary.provenance
    task = f"task v{origin.task_version}" if origin.task_version else "task version not recorded"
    return task + (f", sim v{origin.sim_version}" if origin.sim_version is not None else "")


def _stat_of(v: VariantSummary, metric: str) -> Stat | None:
    if metric == "pass_k":
        return v.pass_k
    if metric == "cost_usd":
        return v.cost_usd
    return v.metrics.get(metric)  # None: the summary predates this metric


def _rows(summary: Summary, columns: tuple[tuple[str, str], ...]) -> list[list[object]]:
    rows: list[list[object]] = []
    for v in summary.variants:
        cells = []
        for metric, _ in columns:
            stat = _stat_of(v, metric)
            cells.append("n/a" if stat is None else _cell(stat, metric))
        rows.append([v.variant, v.episodes, *cells])
    return rows


def _columns(summary: Summary, columns: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    priced = any(v.cost_usd is not None for v in summary.variants)
    return columns if priced else tuple(c for c in columns if c[0] != "cost_usd")


def _tables(summary: Summary, tablefmt: str) -> list[tuple[str, str]]:
    """Each leaderboard table, rendered by tabulate in `tablefmt`, with its caption."""
    out = []
    for caption, all_columns in TABLES:
        columns = _columns(summary, all_columns)
        headers = ["variant", "episodes", *(h for _, h in columns)]
        rows = _rows(summary, columns)
        out.append(
            (caption, tabulate(rows, headers=headers, tablefmt=tablefmt, disable_numparse=True))
        )
    return out


def _csv(summary: Summary) -> str:
    """One row per variant and metric, every number in its own column (floats parse)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        ["model", "variant", "episodes", "metric", "mean", "stderr", "n", "ci_low", "ci_high"]
    )
    for v in summary.variants:
        for metric, _ in _columns(summary, COLUMNS):
            stat = _stat_of(v, metric)
            if stat is None:
                continue
            low = "" if stat.ci_low is None else stat.ci_low
            high = "" if stat.ci_high is None else stat.ci_high
            writer.writerow(
                [
                    summary.model,
                    v.variant,
                    v.episodes,
                    metric,
                    stat.mean,
                    stat.stderr,
                    stat.n,
                    low,
                    high,
                ]
            )
    return buffer.getvalue()


def _latex_escape(text: str) -> str:
    out = text.replace("\\", r"\textbackslash{}")
    for char in "&%$#_{}":
        out = out.replace(char, "\\" + char)
    # the caret as a character: a superscript k would be set in 6-point type
    return out.replace("±", r"$\pm$").replace("pass^k", r"pass\textasciicircum{}k")


#: metric columns per LaTeX table: at most this many fit a page at a readable size
LATEX_COLUMNS = 4


def _latex(summary: Summary) -> str:
    """Booktabs tables in `table` environments with caption and label: each declared table is
    cut into tables of at most `LATEX_COLUMNS` metric columns, so every one fits an article's text
    width in 8-point type (a wide table scaled to fit was set in 3-point type)."""
    parts = [
        "% needs \\usepackage{booktabs} and \\usepackage{array}",
        f"% {title(summary)}",
    ]
    number = 0
    episodes = sorted({v.episodes for v in summary.variants})
    per = "episodes per variant: " + ", ".join(str(e) for e in episodes)
    for caption, all_columns in TABLES:
        columns = _columns(summary, all_columns)
        chunks = [columns[i : i + LATEX_COLUMNS] for i in range(0, len(columns), LATEX_COLUMNS)]
        for part, chunk in enumerate(chunks, start=1):
            number += 1
            headers = ["variant", *(h for _, h in chunk)]
            body = [
                [_latex_escape(str(c)) for c in (row[0], *row[2:])] for row in _rows(summary, chunk)
            ]
            # fixed-width columns let a long header wrap instead of widening the table
            spec = "l" + ">{\\raggedleft\\arraybackslash}p{1.9cm}" * (len(headers) - 1)
            label = caption if len(chunks) == 1 else f"{caption}, part {part} of {len(chunks)}"
            # the run is described once, in the first caption
            about = title(summary) if number == 1 else "Run as in Table 1"
            lines = [
                "\\begin{table}[t]",
                "\\centering",
                "\\footnotesize",
                "\\setlength{\\tabcolsep}{4pt}",
                f"\\begin{{tabular}}{{{spec}}}",
                "\\toprule",
                " & ".join(_latex_escape(h) for h in headers) + " \\\\",
                "\\midrule",
                *(" & ".join(row) + " \\\\" for row in body),
                "\\bottomrule",
                "\\end{tabular}",
                f"\\caption{{{_latex_escape(label)}; {per}. {_latex_escape(about)}}}",
                f"\\label{{tab:todo-bench-{number}}}",
                "\\end{table}",
            ]
            parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def _glossary() -> str:
    """What every leaderboard column means and which way is better (from harness.metrics)."""
    sense = {"higher": "higher is better", "lower": "lower is better", "none": "descriptive"}
    rows = [
        [header, name, sense[BY_NAME[name].direction], BY_NAME[name].doc]
        for _, columns in TABLES
        for name, header in columns
    ]
    table = tabulate(rows, headers=["column", "metric", "direction", "meaning"], tablefmt="html")
    return f'<h2>Glossary of the columns</h2>\n<div class="wide glossary">{table}</div>'


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem; color: #1b1b1b; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
p { text-align: left; max-width: 60rem; }
p.meta { color: #555; } p.incomplete { color: #b00020; font-weight: bold; }
div.glossary td { text-align: left; white-space: normal; }
table { border-collapse: collapse; font-size: 0.85rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3rem 0.5rem; text-align: right; }
td { white-space: nowrap; }
div.wide { overflow-x: auto; }
th:first-child, td:first-child { text-align: left; }
thead th { border-bottom: 2px solid #333; }
img { display: block; max-width: 100%; margin: 1rem 0; }
table.heat th { writing-mode: vertical-rl; font-weight: normal; }
"""


def _design_table(summary: Summary) -> str:
    """What each variant is: its design's tools and rule, and the switches on top."""
    from harness.todo.registry import designs
    from harness.todo.variants import Variant

    rows = []
    for v in summary.variants:
        try:
            variant = Variant.parse(v.variant)
            design = designs()[variant.design]
        except (ValueError, KeyError):
            rows.append([v.variant, "", "(a design not registered here)", ""])
            continue
        tools = ", ".join(spec.name for spec in design.tool_specs())
        rule = (pyinspect.getdoc(design) or "").split("\n\n")[0].replace("\n", " ")
        switches = [
            name
            for name, on in (
                ("list injected into every prompt", variant.inject),
                ("completion gate", variant.gate),
                ("no item cap", variant.uncapped),
            )
            if on
        ]
        rows.append([v.variant, tools, rule, ", ".join(switches)])
    table = tabulate(
        rows, headers=["variant", "todo tools", "backend rule", "switches"], tablefmt="html"
    )
    return f'<h2>The designs compared</h2>\n<div class="wide">{table}</div>'


def _heat_map(summary: Summary) -> str:
    """Per-scenario success, variants by scenarios, shaded from red (0) to green (1)."""
    head = "".join(f"<th>{html.escape(s)}</th>" for s in summary.scenarios)
    rows = []
    for v in summary.variants:
        cells = []
        for scenario in summary.scenarios:
            value = v.per_scenario_success.get(scenario)
            if value is None:
                cells.append("<td></td>")
                continue
            hue = int(120 * value)  # 0 red .. 120 green
            cells.append(f'<td style="background:hsl({hue},60%,80%)">{value:.2f}</td>')
        rows.append(f"<tr><td>{html.escape(v.variant)}</td>{''.join(cells)}</tr>")
    return (
        "<h2>Success per scenario</h2>\n"
        f'<table class="heat"><thead><tr><th>variant</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _html(summary: Summary) -> str:
    """A self-contained page: inline CSS, no script, nothing fetched at view time."""
    when = datetime.now(UTC).strftime("%Y-%m-%d")
    sections = [
        f'<h2>{html.escape(caption)}</h2>\n<div class="wide">{table}</div>'
        for caption, table in _tables(summary, "html")
    ]
    incomplete = (
        f'<p class="incomplete">INCOMPLETE RUN: {html.escape("; ".join(summary.problems))}</p>'
        if not summary.complete
        else ""
    )
    from harness.results import plots  # matplotlib is imported only when a page is drawn

    figures = [
        ("Corruption and false completion", plots.corruption_bars(summary)),
        ("Success against cost", plots.success_vs_tokens(summary)),
        ("The price of safety", plots.price_of_safety(summary)),
    ]
    sections.append(
        "<h2>Figures</h2>\n"
        + "\n".join(f'<img alt="{html.escape(a)}" src="{src}">' for a, src in figures)
    )
    if summary.sequential is not None:
        sections.append("<h2>Sequential run</h2>\n" + section(summary.sequential, "html"))
    sections.append(_heat_map(summary))
    sections.append(_design_table(summary))
    sections.append(_glossary())
    heading = html.escape(f"todo-bench: {summary.model}")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{heading}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        f"<h1>{heading}</h1>\n{incomplete}\n"
        f'<p class="meta">{html.escape(title(summary))} Rendered {when}.</p>\n'
        + "\n".join(sections)
        + "\n</body>\n</html>\n"
    )


def brief(summary: Summary) -> str:
    """The headline columns in one table that fits a 120-column terminal."""
    columns = _columns(summary, BRIEF)
    headers = ["variant", *(h for _, h in columns)]
    rows = [[row[0], *row[2:]] for row in _rows(summary, columns)]
    table = tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)
    record = summary.sequential
    after = "" if record is None else "\n" + section(record, looks=False)
    return f"{title(summary)}\n\n{table}\n{after}"


def _markdown(summary: Summary) -> str:
    parts = [f"**{caption}**\n\n{table}" for caption, table in _tables(summary, "github")]
    if summary.sequential is not None:
        parts.append("**Sequential run**\n\n" + section(summary.sequential).rstrip("\n"))
    return f"{title(summary)}\n\n" + "\n\n".join(parts) + "\n"


def _json(summary: Summary) -> str:
    return summary.model_dump_json(indent=2)


#: every output format: its file name in a run folder (None: printed only; json is
#: summary.json itself) and its renderer. A new format is one entry here and its renderer.
FORMATS: dict[str, tuple[str | None, Callable[[Summary], str]]] = {
    "md": ("leaderboard.md", _markdown),
    "brief": (None, brief),
    "html": ("leaderboard.html", _html),
    "latex": ("leaderboard.tex", _latex),
    "csv": ("leaderboard.csv", _csv),
    "json": (None, _json),
}


def leaderboard(summary: Summary, fmt: str = "md") -> str:
    """The summary in one of `FORMATS` (one row per variant, labelled with the model)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format '{fmt}' (use {', '.join(FORMATS)})")
    return FORMATS[fmt][1](summary)
