"""The technical report: docs/paper/todo-bench.tex compiled with pdflatex from the committed
results (the boards' leaderboard.tex as `todo-bench report` wrote them, the field evidence in
results/field, the committed figures), written to docs/paper/todo-bench.pdf with its pages as
PNG beside it (docs/paper/page-N.png). The build folder, docs/paper/build/, is not committed.

    make paper      (or .venv/bin/python scripts/paper.py)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd

from harness.metrics import BY_NAME
from harness.publishing.latex import table

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
        if not row.get("suite_episodes"):
            continue
        saved = 1 - row["sequential_mean_episodes"] / row["suite_episodes"]
        metric = BY_NAME[row["metric"]].header if row["metric"] in BY_NAME else row["metric"]
        plans[f"{row['base']} to {row['new']}, {metric}"] = {
            "fixed episodes": str(row["suite_episodes"]),
            "fixed power": f"{row['suite_power']['rate']:.2f}",
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
