"""Leaderboards from a summary: markdown, CSV and JSON with numbers apart, LaTeX (booktabs; its
own module, harness/publishing/latex.py) and a self-contained HTML page."""

from __future__ import annotations

import csv
import html
import inspect as pyinspect
import io
import re
from collections.abc import Callable
from datetime import UTC, datetime

from tabulate import tabulate

from harness.metrics import BRIEF, BY_NAME, TABLES
from harness.publishing.cells import COLUMNS, cell, shown, stat_of, title
from harness.publishing.stopping import section
from harness.results.summary import Summary


def _rows(summary: Summary, columns: tuple[tuple[str, str], ...]) -> list[list[object]]:
    rows: list[list[object]] = []
    for v in summary.variants:
        cells = []
        for metric, _ in columns:
            stat = stat_of(v, metric)
            cells.append("n/a" if stat is None else cell(stat, metric))
        rows.append([v.variant, v.episodes, *cells])
    return rows


#: a tabulate html row's first cell (a variant's name)
_FIRST_CELL = re.compile(r"<tr><td([^>]*)>([^<]*?)\s*</td>")
#: a cell holding a mean and its standard error
_SPREAD = re.compile(r"<td([^>]*)>([^<]*?) ± ([^<]*?)\s*</td>")


def name_html(name: str) -> str:
    """A variant's name that may break only before a switch (`L4-inject` / `+gate`), never
    inside a level's or a switch's own name."""
    first, *switches = html.escape(name).split("+")
    pieces = [first, *(f"+{s}" for s in switches)]
    return "<wbr>".join(f'<span class="name">{piece}</span>' for piece in pieces)


def _readable(table: str) -> str:
    """A tabulate html table whose variant names break only between switches and whose
    standard errors sit under their means, so that no number wraps inside itself."""
    table = _FIRST_CELL.sub(lambda m: f'<tr><td{m[1]} class="name">{name_html(m[2])}</td>', table)
    return _SPREAD.sub(r"<td\1>\2<small>± \3</small></td>", table)


def _tables(summary: Summary, tablefmt: str) -> list[tuple[str, str]]:
    """Each leaderboard table, rendered by tabulate in `tablefmt`, with its caption."""
    out = []
    for caption, all_columns in TABLES:
        columns = shown(summary, all_columns)
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
        for metric, _ in shown(summary, COLUMNS):
            stat = stat_of(v, metric)
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


STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem; color: #1b1b1b; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
p { text-align: left; max-width: 60rem; }
p.meta { color: #555; } p.incomplete { color: #b00020; font-weight: bold; }
div.glossary td, div.prose td { text-align: left; white-space: normal; }
table { border-collapse: collapse; font-size: 0.85rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3rem 0.5rem; text-align: right; }
td { white-space: nowrap; }
td.name { white-space: normal; } span.name { white-space: nowrap; }
td small { color: #555; display: block; font-size: 0.75rem; }
div.wide { overflow-x: auto; }
th:first-child, td:first-child { text-align: left; }
thead th { border-bottom: 2px solid #333; }
img { display: block; max-width: 100%; margin: 1rem 0; }
table.heat th { writing-mode: vertical-rl; font-weight: normal; }
"""


def _design_table(summary: Summary) -> str:
    """What each variant is: its design's tools and rule, and the switches on top."""
    from harness.todo.registry import designs
    from harness.todo.variants import SWITCHES, Variant

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
        switches = [SWITCHES[s].board for s in variant.switches if SWITCHES[s].board]
        rows.append([v.variant, tools, rule, ", ".join(switches)])
    table = tabulate(
        rows, headers=["variant", "todo tools", "backend rule", "switches"], tablefmt="html"
    )
    return f'<h2>The designs compared</h2>\n<div class="wide prose">{_readable(table)}</div>'


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
        rows.append(f'<tr><td class="name">{name_html(v.variant)}</td>{"".join(cells)}</tr>')
    return (
        "<h2>Success per scenario</h2>\n"
        f'<table class="heat"><thead><tr><th>variant</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def sections(summary: Summary) -> list[str]:
    """The page's parts after its title: the tables, the figures, the sequential record, the
    heat map, the designs and the glossary (the site's submission pages show them too)."""
    parts = [
        f'<h2>{html.escape(caption)}</h2>\n<div class="wide">{_readable(table)}</div>'
        for caption, table in _tables(summary, "html")
    ]
    from harness.publishing import plots  # matplotlib is imported only when a page is drawn

    figures = [
        ("Corruption and false completion", plots.corruption_bars(summary)),
        ("Success against cost", plots.success_vs_tokens(summary)),
        ("The price of safety", plots.price_of_safety(summary)),
    ]
    parts.append(
        "<h2>Figures</h2>\n"
        + "\n".join(f'<img alt="{html.escape(a)}" src="{src}">' for a, src in figures)
    )
    agents = agents_table(summary, "html")
    if agents is not None:
        parts.append(f'<h2>Shipping agents</h2>\n<div class="wide prose">{_readable(agents)}</div>')
    if summary.sequential is not None:
        parts.append("<h2>Sequential run</h2>\n" + section(summary.sequential, "html"))
    parts.append(_heat_map(summary))
    parts.append(_design_table(summary))
    parts.append(_glossary())
    return parts


def incomplete(summary: Summary) -> str:
    """The warning an incomplete run's page opens with (empty for a complete run)."""
    if summary.complete:
        return ""
    return f'<p class="incomplete">INCOMPLETE RUN: {html.escape("; ".join(summary.problems))}</p>'


def page(heading: str, body: str, *, style: str = "", script: str = "") -> str:
    """A self-contained HTML page: inline CSS (and script, if any), nothing fetched."""
    title = html.escape(heading)
    code = f"<script>{script}</script>\n" if script else ""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{title}</title>\n<style>{STYLE}{style}</style>\n</head>\n<body>\n"
        f"{body}\n{code}</body>\n</html>\n"
    )


def _html(summary: Summary) -> str:
    """A self-contained page: inline CSS, no script, nothing fetched at view time."""
    when = datetime.now(UTC).strftime("%Y-%m-%d")
    heading = f"todo-bench: {summary.model}"
    body = (
        f"<h1>{html.escape(heading)}</h1>\n{incomplete(summary)}\n"
        f'<p class="meta">{html.escape(title(summary))} Rendered {when}.</p>\n'
        + "\n".join(sections(summary))
    )
    return page(heading, body)


def brief(summary: Summary) -> str:
    """The headline columns in one table that fits a 120-column terminal."""
    columns = shown(summary, BRIEF)
    headers = ["variant", *(h for _, h in columns)]
    rows = [[row[0], *row[2:]] for row in _rows(summary, columns)]
    table = tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)
    record = summary.sequential
    after = "" if record is None else "\n" + section(record, looks=False)
    left = [
        f"{v.variant} leaves out {', '.join(f'{k} ({why})' for k, why in v.agent.left_out.items())}"
        for v in summary.variants
        if v.agent is not None and v.agent.left_out
    ]
    notes = "".join(f"\nnot supported: {line}" for line in left)
    return f"{title(summary)}\n\n{table}\n{notes}{after}"


def agents_table(summary: Summary, fmt: str = "github") -> str | None:
    """The shipping agents' rows: product, version, their own switches, what each left out."""
    rows = [
        [
            v.variant,
            f"{v.agent.product} ({v.agent.package} {v.agent.version})",
            " ".join(f"{k}={value}" for k, value in sorted(v.agent.switches.items()))
            + (f"; hooks: {', '.join(v.agent.hooks)}" if v.agent.hooks else ""),
            "; ".join(f"{k}: {why}" for k, why in v.agent.left_out.items()) or "none",
        ]
        for v in summary.variants
        if v.agent is not None
    ]
    if not rows:
        return None
    headers = ["variant", "product", "its switches", "scenarios left out (not supported)"]
    return tabulate(rows, headers=headers, tablefmt=fmt, disable_numparse=True)


def _markdown(summary: Summary) -> str:
    parts = [f"**{caption}**\n\n{table}" for caption, table in _tables(summary, "github")]
    agents = agents_table(summary)
    if agents is not None:
        parts.append("**Shipping agents** (docs/agents.md)\n\n" + agents)
    if summary.sequential is not None:
        parts.append("**Sequential run**\n\n" + section(summary.sequential).rstrip("\n"))
    return f"{title(summary)}\n\n" + "\n\n".join(parts) + "\n"


def _latex_body(summary: Summary) -> str:
    from harness.publishing import latex  # pandas is imported only when LaTeX is written

    return latex.body(summary)


def _latex_standalone(summary: Summary) -> str:
    from harness.publishing import latex

    return latex.standalone(summary)


def _json(summary: Summary) -> str:
    return summary.model_dump_json(indent=2)


#: every output format: its file name in a run folder (None: printed only; json is
#: summary.json itself) and its renderer. A new format is one entry here and its renderer.
FORMATS: dict[str, tuple[str | None, Callable[[Summary], str]]] = {
    "md": ("leaderboard.md", _markdown),
    "brief": (None, brief),
    "html": ("leaderboard.html", _html),
    "latex": ("leaderboard.tex", _latex_body),
    "latex-standalone": ("leaderboard-standalone.tex", _latex_standalone),
    "csv": ("leaderboard.csv", _csv),
    "json": (None, _json),
}


def leaderboard(summary: Summary, fmt: str = "md") -> str:
    """The summary in one of `FORMATS` (one row per variant, labelled with the model)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format '{fmt}' (use {', '.join(FORMATS)})")
    return FORMATS[fmt][1](summary)
