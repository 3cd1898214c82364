"""A static leaderboard site from a folder of submissions: `index.html`, one table across
models and variants with 95% intervals (sorted by a click on a header, filtered by a text box
and two selects, with a few lines of inline script); a page per submission with its provenance
and the leaderboard page's tables and figures (`publish.sections`); the field evidence; the
methods. No server, nothing fetched at view time; the same submissions give the same bytes."""

from __future__ import annotations

import html
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

from harness.errors import UsageError
from harness.metrics import BRIEF
from harness.publishing.cells import parts, stat_of, title
from harness.publishing.formats import incomplete, name_html, page, sections
from harness.publishing.submission import ARCHIVES, MANIFEST, Manifest
from harness.publishing.submission_check import check, opened
from harness.results.summary import Stat, Summary

#: the index's columns after model, variant and submission: (metric, header): the brief board's
#: (`harness/metrics.py` BRIEF: the headline pair, lost and changed, asks the same question of
#: every design), then pass^k, rejected updates and cost
COLUMNS = (
    *BRIEF,
    ("pass_k", "pass^k"),
    ("rejected_updates", "rejected"),
    ("cost_usd", "cost $"),
)
#: the field evidence's files shown as data beside its pages
FIELD_DATA = (".json", ".yaml")

SITE_STYLE = """
nav { margin-bottom: 1rem; } nav a { margin-right: 1rem; }
th[data-sort] { cursor: pointer; user-select: none; }
th[aria-sort=ascending]::after { content: " \\25B2"; }
th[aria-sort=descending]::after { content: " \\25BC"; }
div.filters { margin: 1rem 0; display: flex; gap: 1rem; flex-wrap: wrap; }
div.doc > ul, div.doc > ol, ul.suites { max-width: 60rem; }
ul.suites { font-size: 0.85rem; color: #555; overflow-wrap: anywhere; }
div.doc table td { white-space: normal; text-align: left; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f6f6; padding: 0.5rem; }
code { overflow-wrap: anywhere; }
#board td:nth-child(-n+3), #board th:nth-child(-n+3) { text-align: left; }
#board { font-size: 0.8rem; } #board th, #board td { padding: 0.3rem 0.4rem; }
#board th { white-space: nowrap; }
div.doc div.wide td { white-space: normal; }
table.provenance td { white-space: normal; text-align: left; overflow-wrap: anywhere; }
"""

#: sort on a header's click (numbers as numbers, blanks last), filter on every change
SCRIPT = """
const table = document.getElementById("board"), body = table.tBodies[0];
const rows = Array.from(body.rows), count = document.getElementById("count");
function filter() {
  const text = document.getElementById("q").value.toLowerCase();
  const model = document.getElementById("model").value;
  const variant = document.getElementById("variant").value;
  let shown = 0;
  for (const row of rows) {
    const ok = row.textContent.toLowerCase().includes(text)
      && (!model || row.dataset.model === model) && (!variant || row.dataset.variant === variant);
    row.hidden = !ok; shown += ok ? 1 : 0;
  }
  count.textContent = shown + " of " + rows.length + " rows";
}
function sortBy(th) {
  const column = th.cellIndex, up = th.getAttribute("aria-sort") !== "ascending";
  for (const other of table.tHead.rows[0].cells) other.removeAttribute("aria-sort");
  th.setAttribute("aria-sort", up ? "ascending" : "descending");
  const key = row => row.cells[column].dataset.v;
  rows.sort((a, b) => {
    const x = key(a), y = key(b);
    if (x === "" || y === "") return (x === "") - (y === "");
    const d = th.dataset.sort === "number" ? Number(x) - Number(y) : (x > y) - (x < y);
    return up ? d : -d;
  });
  for (const row of rows) body.appendChild(row);
}
for (const th of table.tHead.rows[0].cells) th.addEventListener("click", () => sortBy(th));
for (const id of ["q", "model", "variant"]) {
  document.getElementById(id).addEventListener("input", filter);
}
filter();
"""


@dataclass(frozen=True)
class Entry:
    """One submission as the site shows it."""

    name: str
    manifest: Manifest
    summary: Summary


def build(submissions: Path, out: Path, *, field: Path | None, methods: list[Path]) -> list[Path]:
    """Write the site into `out` (emptied first if it is an earlier site); returns its pages.
    A submission that fails verify's checks (all but rescoring) is refused in one line."""
    entries = _entries(submissions)
    for source in [*methods, *([field] if field else [])]:
        if not source.exists():
            raise UsageError(f"{source}: not found")
    if out.exists() and any(out.iterdir()) and not (out / "index.html").is_file():
        raise UsageError(f"--out {out}: a folder that is not a site; it is never emptied")
    shutil.rmtree(out, ignore_errors=True)
    (out / "submissions").mkdir(parents=True)
    links = [("index.html", "Leaderboard")]
    if field is not None:
        links.append(("field.html", "Field evidence"))
    if methods:
        links.append(("methods.html", "Methods"))
    pages = {out / "index.html": _index(entries, links)}
    for entry in entries:
        pages[out / "submissions" / f"{entry.name}.html"] = _submission(entry, links)
    if field is not None:
        pages[out / "field.html"] = _field(field, out, links)
    if methods:
        body = "\n".join(_markdown(path) for path in methods)
        pages[out / "methods.html"] = page(
            "todo-bench: methods", _nav(links) + body, style=SITE_STYLE
        )
    for path, text in pages.items():
        path.write_text(text, encoding="utf-8")
    return sorted(pages)


def _entries(folder: Path) -> list[Entry]:
    if not folder.is_dir():
        raise UsageError(f"{folder}: not a folder of submissions")
    found = [
        p for p in sorted(folder.iterdir()) if (p / MANIFEST).is_file() or p.name.endswith(ARCHIVES)
    ]
    if not found:
        raise UsageError(f"{folder}: no submissions (folders with {MANIFEST}, or archives)")
    entries = []
    for path in found:
        with opened(path) as unpacked:
            checked = check(unpacked)
        if checked.problems or checked.manifest is None or checked.summary is None:
            first = checked.problems[0] if checked.problems else "unreadable"
            raise UsageError(f"{path}: does not verify ({first}); see todo-bench verify {path}")
        name = re.sub(r"[^A-Za-z0-9._-]", "-", _stem(path.name))
        entries.append(Entry(name, checked.manifest, checked.summary))
    names = [e.name for e in entries]
    if len(set(names)) != len(names):
        raise UsageError(f"{folder}: two submissions with one name ({', '.join(names)})")
    return entries


def _stem(name: str) -> str:
    return next((name.removesuffix(s) for s in ARCHIVES if name.endswith(s)), name)


def _nav(links: list[tuple[str, str]], up: str = "") -> str:
    return (
        "<nav>"
        + "".join(f'<a href="{up}{href}">{html.escape(text)}</a>' for href, text in links)
        + "</nav>\n"
    )


def _cell(stat: Stat | None, metric: str) -> str:
    """The mean, its 95% interval below it; data-v carries the mean for sorting."""
    if stat is None:
        return '<td data-v="">n/a</td>'
    mean, _ = parts(stat, metric)
    interval = ""
    if stat.ci_low is not None and stat.ci_high is not None:
        low, _ = parts(Stat(mean=stat.ci_low, stderr=0), metric)
        high, _ = parts(Stat(mean=stat.ci_high, stderr=0), metric)
        interval = f"<small>[{low}, {high}]</small>"
    return f'<td data-v="{stat.mean!r}">{mean}{interval}</td>'


def _index(entries: list[Entry], links: list[tuple[str, str]]) -> str:
    heads = [("model", "text"), ("variant", "text"), ("submission", "text")]
    heads += [(header, "number") for _, header in COLUMNS]
    head = "".join(f'<th data-sort="{kind}">{html.escape(h)}</th>' for h, kind in heads)
    suites = _suites(entries)
    rows = []
    for entry in entries:
        suite, scenarios = suites[entry.name], ", ".join(entry.manifest.scenarios)
        for v in entry.summary.variants:
            model, link = html.escape(entry.manifest.model), f"submissions/{entry.name}.html"
            cells = [
                f'<td data-v="{model}">{model}</td>',
                f'<td class="name" data-v="{html.escape(v.variant)}">{name_html(v.variant)}</td>',
                f'<td data-v="{entry.name}" title="{html.escape(scenarios)}">'
                f'<a href="{link}">{entry.name}</a><small>suite {suite}</small></td>',
                *(_cell(stat_of(v, metric), metric) for metric, _ in COLUMNS),
            ]
            rows.append(
                f'<tr data-model="{model}" data-variant="{html.escape(v.variant)}">'
                + "".join(cells)
                + "</tr>"
            )
    models = sorted({e.manifest.model for e in entries})
    variants = sorted({v.variant for e in entries for v in e.summary.variants})
    body = (
        _nav(links)
        + "<h1>todo-bench leaderboard</h1>\n"
        + f'<p class="meta">{len(entries)} submissions, every one checked as todo-bench verify '
        "checks it (rescoring aside). Cells: mean per episode, its 95% interval below "
        "(percentile bootstrap over scenarios). Click a header to sort. Simulated agents "
        "(sim/...) demonstrate the harness; they are not evidence about real models.</p>\n"
        + '<p class="meta">Rows compare only within one suite: the same scenario set and '
        "the same epochs. The suites here:</p>\n"
        + _suite_legend(entries, suites)
        + '<div class="filters"><label>filter <input id="q" type="search"></label>'
        + _select("model", models)
        + _select("variant", variants)
        + '<span id="count"></span></div>\n'
        + f'<table id="board"><thead><tr>{head}</tr></thead>\n<tbody>\n'
        + "\n".join(rows)
        + "\n</tbody></table>"
    )
    return page("todo-bench leaderboard", body, style=SITE_STYLE, script=SCRIPT)


def _suites(entries: list[Entry]) -> dict[str, str]:
    """Each submission's suite, named by a letter per distinct scenario set (in the order first
    met) and its epochs: `A x3`."""
    letters: dict[str, str] = {}
    named = {}
    for entry in entries:
        scenarios = entry.manifest.versions.scenario_hash + ":" + ",".join(entry.manifest.scenarios)
        letter = letters.setdefault(scenarios, _letter(len(letters)))
        named[entry.name] = f"{letter} x{entry.manifest.epochs}"
    return named


def _letter(n: int) -> str:
    """A, B, ..., Z, AA, AB, ..."""
    return ("" if n < 26 else _letter(n // 26 - 1)) + chr(ord("A") + n % 26)


def _suite_legend(entries: list[Entry], suites: dict[str, str]) -> str:
    seen: dict[str, str] = {}
    for entry in entries:
        letter = suites[entry.name].split(" ")[0]
        manifest = entry.manifest
        seen.setdefault(
            letter,
            f"{len(manifest.scenarios)} scenarios, set {manifest.versions.scenario_hash}: "
            + ", ".join(manifest.scenarios),
        )
    items = "".join(
        f"<li><b>{letter}</b>: {html.escape(text)}</li>" for letter, text in seen.items()
    )
    return f'<ul class="suites">{items}</ul>\n'


def _select(name: str, options: list[str]) -> str:
    choices = "".join(f"<option>{html.escape(o)}</option>" for o in options)
    return (
        f'<label>{name} <select id="{name}"><option value="">all</option>{choices}</select></label>'
    )


def _submission(entry: Entry, links: list[tuple[str, str]]) -> str:
    manifest, summary = entry.manifest, entry.summary
    versions = manifest.versions
    cost = "not priced" if manifest.cost_usd is None else f"${manifest.cost_usd:.4f}"
    logs = (
        f"included ({len(manifest.logs)} files)"
        if manifest.logs_included
        else f"not included ({len(manifest.logs)} digests listed)"
        if manifest.logs
        else "none (published results: the folder kept no logs)"
    )
    facts = [
        ("model", manifest.model),
        ("agent", manifest.agent),
        ("who", manifest.who),
        ("when", manifest.when.isoformat().replace("+00:00", "Z")),
        ("cost", cost),
        (
            "episodes",
            f"{manifest.episodes} ({len(manifest.scenarios)} scenarios x "
            f"{manifest.epochs} epochs x {len(manifest.variants)} variants)",
        ),
        ("task / sim version", f"{versions.task_version} / {versions.sim_version}"),
        ("scenario set", f"{versions.scenario_hash}: {', '.join(manifest.scenarios)}"),
        ("todo-bench, inspect_ai", f"{versions.project_version}, {versions.inspect_ai}"),
        ("git commit", versions.git_commit or "not recorded (no run.json)"),
        ("logs", logs),
        *((f"sha256 {name}", digest) for name, digest in sorted(manifest.files.items())),
    ]
    table = "".join(
        f"<tr><th>{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>" for k, v in facts
    )
    body = (
        _nav(links, "../")
        + f"<h1>{html.escape(entry.name)}: {html.escape(manifest.model)}</h1>\n"
        + incomplete(summary)
        + f'\n<p class="meta">{html.escape(title(summary))}</p>\n'
        + f'<h2>Provenance</h2>\n<table class="provenance">{table}</table>\n'
        + "\n".join(sections(summary))
    )
    return page(f"todo-bench: {entry.name}", body, style=SITE_STYLE)


def _field(folder: Path, out: Path, links: list[tuple[str, str]]) -> str:
    """The field evidence's markdown pages, and its data files copied beside them."""
    docs = [_markdown(path) for path in sorted(folder.glob("*.md"))]
    data = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in FIELD_DATA)
    if data:
        (out / "field").mkdir()
    for path in data:
        shutil.copyfile(path, out / "field" / path.name)
    listing = "".join(f'<li><a href="field/{p.name}">{p.name}</a></li>' for p in data)
    body = (
        _nav(links)
        + "<h1>Field evidence: real agents' sessions</h1>\n"
        + f'<p class="meta">From {html.escape(folder.name)}/: fitted rates, the designs '
        "replayed, and the labelled data (docs/field.md in the repository says how).</p>\n"
        + "\n".join(docs)
        + (f"<h2>Data</h2>\n<ul>{listing}</ul>" if listing else "")
    )
    return page("todo-bench: field evidence", body, style=SITE_STYLE)


_MARKDOWN = MarkdownIt("commonmark").enable("table")
#: a link or picture into the repository, which the site does not hold: kept as its text
_LOCAL_LINK = re.compile(r'<a href="(?!https?://|#)[^"]*">(.*?)</a>', re.DOTALL)
_LOCAL_IMAGE = re.compile(r'<img src="(?!https?://)[^"]*" alt="([^"]*)"[^>]*>')


def _markdown(path: Path) -> str:
    """A markdown page as HTML; links into the repository become their text, tables scroll."""
    rendered = _MARKDOWN.render(path.read_text(encoding="utf-8"))
    rendered = _LOCAL_IMAGE.sub(r"<em>[figure: \1]</em>", _LOCAL_LINK.sub(r"\1", rendered))
    rendered = rendered.replace("<table>", '<div class="wide"><table>').replace(
        "</table>", "</table></div>"
    )
    return f'<div class="doc">\n{rendered}</div>'
