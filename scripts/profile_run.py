"""Where a run's CPU goes: one `todo-bench run` (L3-granular, sim/sloppy, 3 epochs, one worker,
`--display none`) under cProfile, broken down into the items the performance issue named, for
this checkout and, with `--before REF`, for an older commit checked out beside it (its own
venv, made with its own `make install`). Both profiles run in this one invocation, so the two
columns are measured on the same machine under the same load.

    .venv/bin/python scripts/profile_run.py                       # this checkout only
    .venv/bin/python scripts/profile_run.py --before e2c969b      # before / after

cProfile's own overhead inflates every figure by a similar factor; read the shares and the
differences, not the absolute seconds. The table goes to stdout and results/profile/profile.md.
"""

from __future__ import annotations

import argparse
import pstats
import subprocess
import sys
import tempfile
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "profile"
RUN = [
    "run", "--model", "sim/sloppy", "--variants", "L3-granular", "--epochs", "3", "--seed", "0",
    "--workers", "1", "--display", "none", "--fresh",
]  # fmt: skip

#: the todo-bench command under cProfile, its import included (`python -m cProfile -m
#: harness.commands` runs the package as __main__, which older commits' pydantic models cannot
#: resolve)
DRIVER = """
import cProfile, sys
namespace = {"args": sys.argv[2:]}
statement = "from harness.commands import main\\ncode = main(args)"
cProfile.runctx(statement, namespace, namespace, sys.argv[1])
sys.exit(namespace.get("code", 1))
"""

#: (label, test on a profiled function's (file, line, name), measured as cumulative time of the
#: outermost matching calls)
ITEMS: list[tuple[str, str]] = [
    ("imports (module loading)", "import"),
    ("reference replay of every scenario at start", "replay"),
    ("rich rendering (inspect's results table and live display)", "display"),
    ("log writing (inspect recorders)", "log"),
    ("scoring (todo_scorer)", "score"),
    ("the simulated agent (model provider)", "sim"),
    ("agent loop, tools, store, workspace (harness, self time)", "harness"),
]


def _match(kind: str, key: tuple[str, int, str]) -> bool:
    file, _, name = key
    file = file.replace("\\", "/")
    if kind == "import":
        return name == "_find_and_load"
    if kind == "replay":
        return "harness" in file and name in ("load_verified", "load_verified_dir", "replay")
    if kind == "display":
        return "rich/" in file and name in ("print", "refresh")
    if kind == "log":
        return "inspect_ai/log/_recorders" in file and name in ("log_finish", "write_log", "flush")
    if kind == "score":  # the scorer's per-sample function (harness/scoring.py before the wings)
        return (
            file.endswith(("harness/scoring/scorer.py", "harness/scoring.py")) and name == "score"
        )
    if kind == "sim":
        return "harness/models/sim/provider" in file or "harness/sim/provider" in file
    return False


def breakdown(profile: Path) -> dict[str, float]:
    stats = pstats.Stats(str(profile))
    raw = stats.stats  # type: ignore[attr-defined]
    # every function's own time, summed (cumulative times double count nested event loops)
    out: dict[str, float] = {"total (profiled CPU)": stats.total_tt}  # type: ignore[attr-defined]
    for label, kind in ITEMS:
        if kind == "harness":
            out[label] = sum(
                entry[2]
                for key, entry in raw.items()
                if "/harness/" in key[0].replace("\\", "/") and "/sim/" not in key[0]
            )  # fmt: skip
            continue
        matched = {key: entry for key, entry in raw.items() if _match(kind, key)}
        # cumulative time of the outermost matches: a match called from another match is inside
        # its caller's cumulative time already
        out[label] = sum(
            entry[3]
            for key, entry in matched.items()
            if not any(caller in matched for caller in entry[4])
        )
    return out


def profile(checkout: Path, python: Path, out: Path) -> Path:
    target = out / f"{checkout.name}.prof"
    subprocess.run(
        [str(python), "-c", DRIVER, str(target), *RUN, "--out", str(out / f"{checkout.name}-run")],
        cwd=checkout,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", help="an older commit to profile beside this checkout")
    parser.add_argument(
        "--reuse", help="a folder of an earlier invocation: analyse its profiles again"
    )
    options = parser.parse_args()
    work = Path(options.reuse or tempfile.mkdtemp(prefix="todo-bench-profile-"))
    columns: dict[str, dict[str, float]] = {}
    if options.reuse:
        for path in sorted(work.glob("*.prof")):  # before.prof sorts first
            columns["before" if path.stem == "before" else "after"] = breakdown(path)
    elif options.before:
        old = work / "before"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(old), options.before],
            check=True,
        )
        try:
            subprocess.run(
                ["make", "-s", "install"], cwd=old, check=True, stdout=subprocess.DEVNULL
            )
            columns[f"before ({options.before})"] = breakdown(
                profile(old, old / ".venv" / "bin" / "python", work)
            )
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)])
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not options.reuse:
        columns[f"after ({head})"] = breakdown(profile(ROOT, Path(sys.executable), work))
    labels = list(next(iter(columns.values())))
    rows = [[label, *(f"{c[label]:.2f}" for c in columns.values())] for label in labels]
    if len(columns) == 2:
        for row, label in zip(rows, labels, strict=True):
            a, b = (c[label] for c in columns.values())
            row.append(f"{b - a:+.2f}")
    headers = ["CPU s under cProfile", *columns, *(["change"] if len(columns) == 2 else [])]
    text = (
        "`todo-bench " + " ".join(RUN) + "` under cProfile (one process; the items overlap where "
        "one calls another, e.g. imports inside the display).\n\n"
        + tabulate(rows, headers, tablefmt="github")
        + "\n"
    )
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "profile.md").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
