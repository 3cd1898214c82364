"""The technical report: docs/paper/todo-bench.tex compiled with pdflatex from the committed
results (the boards' leaderboard.tex as `todo-bench report` wrote them, the field evidence in
results/field, the committed figures), written to docs/paper/todo-bench.pdf with its pages as
PNG beside it (docs/paper/page-N.png). The build folder, docs/paper/build/, is not committed.

    make paper      (or .venv/bin/python scripts/paper.py)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd

from harness.metrics import BRIEF, BY_NAME
from harness.publishing.latex import body, table
from harness.results.summary import read_summary

ROOT = Path(__file__).resolve().parent.parent
PAPER = ROOT / "docs" / "paper"
SOURCE = PAPER / "todo-bench.tex"
FIELD = ROOT / "results" / "field"
#: pages rendered small: a committed picture of each page, not a print
DPI = 60


def _rates() -> str:
    """The rates fitted on the real sessions, one row per rate (results/field/rates.json)."""
    fit = json.loads((FIELD / "rates.json").read_text(encoding="utf-8"))
    rows = {
        rate["name"]: {
            "family": rate["family"],
            "sim/field": f"{rate['value']:.4f}",
            "95% CI": f"[{rate['ci_low']:.4f}, {rate['ci_high']:.4f}]",
            "events": str(rate["events"]),
            "opportunities": str(rate["opportunities"]),
            "sessions": str(rate["sessions"]),
        }
        for rate in fit["rates"]
    }
    caption = (
        f"Fault rates fitted on {fit['sessions']} real coding-agent sessions "
        f"({fit['transitions']} list transitions), as \\texttt{{sim/field}} uses them; what each "
        "counts is in docs/field.md (results/field/rates.json)."
    )
    return table(pd.DataFrame.from_dict(rows, orient="index"), caption, "field-rates")


def _replay() -> str:
    """Each design replayed on the real sessions' list transitions (results/field/replay.json)."""
    replay = json.loads((FIELD / "replay.json").read_text(encoding="utf-8"))
    rows = {}
    for d in replay["designs"]:
        unasked = sum(d["unsanctioned"].values())
        rows[d["design"]] = {
            "caught": f"{sum(d['caught'].values())}/{unasked}",
            "explicit": f"{sum(d['explicit'].values())}/{unasked}",
            "friction": f"{d['friction']}/{d['sanctioned_changes']}",
            "extra calls": str(d["friction_calls"]),
            "rejected calls": str(d["rejected"]),
            "over cap": str(d["over_cap"]),
            "todo tokens": str(d["todo_tokens"]),
        }
    caption = (
        f"The {replay['sessions']} real sessions replayed transition by transition under each "
        "design, first-try counts: unasked drops and rewordings refused (caught) or needing a call "
        "of their own (explicit), asked changes refused (friction) and the calls that adds "
        "(results/field/replay.json; docs/field.md)."
    )
    return table(pd.DataFrame.from_dict(rows, orient="index"), caption, "field-replay")


def _share(share: dict[str, float]) -> str:
    return f"{share['rate']:.3f} [{share['ci_low']:.3f}, {share['ci_high']:.3f}]"


def _power() -> str:
    """The power study (results/power/study.json): the sequential gate's false alarms in A/A
    runs, and the sequential run's episodes against the fixed run's at equal power."""
    study = json.loads((ROOT / "results" / "power" / "study.json").read_text(encoding="utf-8"))
    alarms = {
        f"{row['variant']}, {row['looks']} x {row['batch']}, {row['method']}": {
            "false alarms": f"{row['false_alarms']['hits']} of {row['false_alarms']['reps']}",
            "rate [95% CI]": _share(row["false_alarms"]),
        }
        for row in study["aa"]
    }
    first = table(
        pd.DataFrame.from_dict(alarms, orient="index"),
        f"The sequential gate against itself (A/A, {study['reps_aa']} repetitions drawn from "
        f"a pool of {study['pool_episodes']:,} \\texttt{{sim/field}} episodes): runs that "
        f"declared a difference at alpha {study['alpha']} over two metrics, looks x epochs per "
        "look (results/power/study.md).",
        "power-aa",
    )
    plans = {}
    for row in study["plans"]:
        # the fixed run on the suite at the plan's power
        fixed = next((e for e in row["equal_power"] if e["power"] == study["power"]), None)
        if fixed is None or not fixed["fixed_episodes"]:
            continue
        saved = 1 - row["sequential_mean_episodes"] / fixed["fixed_episodes"]
        metric = BY_NAME[row["metric"]].header if row["metric"] in BY_NAME else row["metric"]
        plans[f"{row['base']} to {row['new']}, {metric}"] = {
            "fixed episodes": str(fixed["fixed_episodes"]),
            "fixed power": f"{fixed['fixed_power']['rate']:.2f}",
            "sequential episodes": f"{row['sequential_mean_episodes']:.0f}",
            "sequential power": f"{row['sequential_power']['rate']:.2f}",
            "saved": f"{saved:.0%}",
        }
    second = table(
        pd.DataFrame.from_dict(plans, orient="index"),
        "A fixed run on the suite's 12 scenarios at the fewest epochs that reach power 0.8, "
        "against a sequential run with one-epoch looks up to the same size: mean episodes "
        f"and power over {study['reps_ab']} draws (their intervals are in "
        "results/power/study.md), and the share of episodes saved.",
        "power-sequential",
    )
    # here, in the section's text: at the top of a later page they would stand alone on it
    return (first + "\n" + second).replace("\\begin{table}[t]", "\\begin{table}[!h]")


def _headline(board: str) -> str:
    """A board's headline columns only (every column is in its leaderboard.md): the fixes
    inside the products make a board of 27 rows, 11 pages in full."""
    summary = read_summary(ROOT / "results" / board / "summary.json")
    return body(summary, (("Headline columns (per episode)", BRIEF),))


#: what a cell of docs/hooks.md's fix x product matrix says was done, strongest first: the
#: report's matrix names the evidence each cell cites, its words read from the cell itself
EVIDENCE = {"board": "B", "real binary": "R", "heavy test": "H", "unit tests": "U", "probe": "P"}
ABSENT = {"not applicable": "n/a", "not yet measured": "not yet", "not possible": "none"}


def _matrix() -> str:
    """docs/hooks.md's fix x product matrix in short: each cell's kinds of evidence, or why
    there is none (the cells' own words, so the report and the docs cannot disagree)."""
    text = (ROOT / "docs" / "hooks.md").read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if line.startswith("| ")]
    start = next(i for i, line in enumerate(lines) if line.startswith("| fix |"))
    header = [cell.strip() for cell in lines[start].strip("|").split("|")]
    rows = {}
    for line in lines[start + 1 :]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) != len(header) or not cells[0].startswith("`"):
            break
        row = {}
        for name, cell in zip(header[1:], cells[1:], strict=True):
            head = cell.split(":")[0].split("(")[0].strip()
            absent = next((ABSENT[a] for a in ABSENT if head.startswith(a)), None)
            # "not a board row (yet)": a mention that is not evidence
            said = re.sub(r"not (?:yet )?an? [a-z ]*?row", "", cell)
            found = [mark for words, mark in EVIDENCE.items() if words in said]
            row[name.replace(", ", " ")] = absent or " ".join(found) or head
        rows[cells[0].split("`")[1]] = row
    return table(
        pd.DataFrame.from_dict(rows, orient="index"),
        "Each fix inside each product: where it was measured (B: a board row of "
        "results/agents-hooks; R: the real binary run outside any benchmark with a scripted "
        "model, what fired counted exactly; H: a heavy test; U: unit tests; P: observed by a "
        "probe script), or why not (n/a: the fix does not apply to that todo tool); each cell "
        "in full, with its numbers and reasons, in docs/hooks.md.",
        "fix-matrix",
    ).replace("\\begin{table}[t]", "\\begin{table}[!h]")  # in the section's text, after it


#: the report's text width (article, 10 pt: 345 pt) in inches: the figure is drawn at the size it
#: is printed, so its type is the size it says
TEXT_WIDTH = 345 / 72.27
#: each level's place in the figure's colours and markers
FAMILIES = {"L0-rewrite": 0, "L1-textlock": 1, "L2-whitelist": 2, "L3-granular": 3, "L4-inject": 4}


def _short(value: float) -> str:
    """A tick's count as 100, 1k, 10k, 1M."""
    for size, suffix in ((1e6, "M"), (1e3, "k")):
        if value >= size:
            return f"{value / size:g}{suffix}"
    return f"{value:g}"


def _scaling(folder: Path) -> Path:
    """Figure 1 as a vector PDF drawn at print size from results/scaling/scaling.csv: todo output
    tokens and input tokens per episode against the list's length, a colour per level, dashed
    uncapped. Levels whose curves are the same at every length are drawn once and named together
    (in the left panel the three full-list levels coincide, as do the two granular ones)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    frame = pd.read_csv(ROOT / "results" / "scaling" / "scaling.csv").sort_values("n")
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]  # tab10, as plots.py draws
    markers = "os^Dv"  # a shape per level too: curves that nearly coincide still show
    plt.rcParams.update({"font.size": 7, "axes.titlesize": 8, "legend.fontsize": 7})
    figure, axes = plt.subplots(1, 2, figsize=(TEXT_WIDTH, 2.7))
    panels = (
        ("todo out tok / ep", "todo output tokens per episode"),
        ("in tok / ep", "input tokens per episode"),
    )
    for axis, (column, title) in zip(axes, panels, strict=True):
        drawn: dict[tuple[object, ...], list[str]] = {}
        for variant, group in frame.groupby("variant", sort=True):
            uncapped = "+uncapped" in str(variant)
            drawn.setdefault((*group[column], uncapped), []).append(str(variant))
        for names in drawn.values():
            group = frame[frame["variant"] == names[0]]
            level = FAMILIES[names[0].split("+")[0]]
            axis.plot(
                group["n"],
                group[column],
                "--" if "+uncapped" in names[0] else "-",
                color=colours[level],
                marker=markers[level],
                markersize=3,
                linewidth=1,
            )
            if len(names) > 1 and "+uncapped" not in names[0]:
                together = "=".join(n.split("-")[0] for n in names)
                axis.annotate(together, (group["n"].iloc[0], group[column].iloc[0]),
                              textcoords="offset points", xytext=(4, 4), fontsize=7)  # fmt: skip
        axis.set_xscale("log")
        axis.set_yscale("log")
        # plain tick labels: a power of ten's exponent would be set in 5 pt type
        sizes = sorted(frame["n"].unique())
        axis.xaxis.set_major_locator(FixedLocator(sizes))
        axis.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        axis.xaxis.set_minor_formatter(NullFormatter())
        axis.yaxis.set_major_formatter(FuncFormatter(lambda v, _: _short(v)))
        axis.yaxis.set_minor_formatter(NullFormatter())
        axis.set_xlabel("todos in the task (n)")
        axis.set_title(title)
        axis.grid(True, which="both", alpha=0.3, linewidth=0.4)
    handles = [
        Line2D([], [], color=colours[i], marker=markers[i], markersize=3, linewidth=1, label=name)
        for name, i in ((n.split("-")[0], i) for n, i in FAMILIES.items())
    ]
    handles += [
        Line2D([], [], color="black", linewidth=1, label="capped at 20"),
        Line2D([], [], color="black", linewidth=1, linestyle="--", label="uncapped"),
    ]
    figure.legend(handles=handles, loc="lower center", ncol=len(handles), frameon=False,
                  handlelength=1.8, columnspacing=1.0)  # fmt: skip
    figure.tight_layout(rect=(0, 0.08, 1, 1))
    path = folder / "scaling.pdf"
    # no creation date: the same data gives the same bytes
    figure.savefig(path, metadata={"CreationDate": None, "Creator": None, "Producer": None})
    plt.close(figure)
    return path


def _pdflatex(build: Path) -> str:
    """Two passes (the second resolves \\ref); the second pass's log."""
    command = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error"]
    command += [f"-output-directory={build}", str(SOURCE.relative_to(ROOT))]
    # the build folder first, then TeX's own path (the empty entry after the colon); a fixed
    # date in the PDF's metadata, so the same sources give the same committed bytes
    env = {**os.environ, "TEXINPUTS": f"{build}{os.pathsep}", "SOURCE_DATE_EPOCH": "0"}
    for _ in range(2):
        done = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
        )
        if done.returncode != 0:
            raise RuntimeError(f"pdflatex failed:\n{done.stdout[-3000:]}")
    return done.stdout


def build(folder: Path) -> tuple[Path, str]:
    """Compile the report in `folder`: the PDF and pdflatex's log."""
    folder.mkdir(parents=True, exist_ok=True)
    # the source \inputs the field tables from the build folder, found by its name
    (folder / "field-tables.tex").write_text(_rates() + "\n" + _replay(), encoding="utf-8")
    (folder / "power-tables.tex").write_text(_power(), encoding="utf-8")
    (folder / "fix-matrix.tex").write_text(_matrix(), encoding="utf-8")
    (folder / "agents-hooks-headline.tex").write_text(_headline("agents-hooks"), encoding="utf-8")
    _scaling(folder)
    log = _pdflatex(folder)
    return folder / "todo-bench.pdf", log


def pages(pdf: Path, folder: Path) -> list[Path]:
    """The PDF's pages as page-N.png in `folder`, the old pictures removed first."""
    for old in folder.glob("page-*.png"):
        old.unlink()
    subprocess.run(["pdftoppm", "-png", "-r", str(DPI), str(pdf), str(folder / "page")], check=True)
    return sorted(folder.glob("page-*.png"))


#: the commands the report needs, each with the Debian package that has it
TOOLS = {"pdflatex": "texlive-latex-recommended", "pdftoppm": "poppler-utils"}


def missing_tools() -> list[str]:
    """The commands of TOOLS not on PATH, each with its Debian package."""
    return [f"{c} (Debian: {pkg})" for c, pkg in TOOLS.items() if shutil.which(c) is None]


def main() -> int:
    missing = missing_tools()
    if missing:
        print(f"make paper needs {', '.join(missing)}; install them first", file=sys.stderr)
        return 2
    pdf, _ = build(PAPER / "build")
    shutil.copyfile(pdf, PAPER / "todo-bench.pdf")
    written = pages(PAPER / "todo-bench.pdf", PAPER)
    print(f"docs/paper/todo-bench.pdf and {len(written)} pages as PNG in docs/paper/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
