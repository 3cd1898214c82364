"""What inspect itself costs for a task's tool schemas: the bare-inspect baseline of `make perf`
(`scripts/bare_inspect.py`) under cProfile three times on the same samples, turns and tool calls
(those of one harness run: L3-granular, sim/sloppy, 3 epochs): offering one trivial tool; also
the harness's 12 schemas handed over as the harness hands them (built once, never copied); and
the same schemas as ToolDefs, inspect's usual way. None of the three runs harness code, so the
differences are inspect's handling of a larger tool list on every model call.

    .venv/bin/python scripts/profile_schemas.py

Prints, and writes to results/profile/schemas.md, the total profiled CPU of each and the
functions whose own (self) time grows most with the shared schemas. cProfile's overhead
inflates every column alike.
"""

from __future__ import annotations

import json
import pstats
import subprocess
import sys
import tempfile
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "profile"
sys.path.insert(0, str(ROOT / "scripts"))

from perf import calls_per_turn  # noqa: E402  (a script beside this one, not a package)

DRIVER = """
import cProfile, json, sys
sys.path.insert(0, sys.argv[4])
from bare_inspect import run
turns = json.loads(open(sys.argv[2]).read())
cProfile.runctx("run(turns, 1, log_dir, tools)", globals(),
                {"run": run, "turns": turns, "log_dir": sys.argv[3], "tools": sys.argv[5]},
                sys.argv[1])
"""

TOP = 12


def profile(turns_file: Path, tools: str, folder: Path) -> pstats.Stats:
    out = folder / f"{tools}.prof"
    subprocess.run(
        [sys.executable, "-c", DRIVER, str(out), str(turns_file), str(folder / f"logs-{tools}"),
         str(ROOT / "scripts"), tools],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    return pstats.Stats(str(out))


def self_times(stats: pstats.Stats) -> dict[str, float]:
    """Own CPU seconds per function, keyed `package/module.py:function`."""
    out: dict[str, float] = {}
    for (file, _line, name), row in stats.stats.items():  # type: ignore[attr-defined]
        short = "/".join(Path(file).parts[-2:]) if "/" in file else file
        key = f"{short}:{name}"
        out[key] = out.get(key, 0.0) + float(row[2])
    return out


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="todo-bench-schemas-") as tmp:
        folder = Path(tmp)
        run = folder / "run"
        subprocess.run(
            [sys.executable, "-m", "harness.commands", "run", "--model", "sim/sloppy", "--variants",
             "L3-granular", "--epochs", "3", "--seed", "0", "--workers", "1", "--display",
             "none", "--out", str(run), "--fresh"],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        turns = calls_per_turn(run)
        turns_file = folder / "turns.json"
        turns_file.write_text(json.dumps(turns))
        one = profile(turns_file, "note", folder)
        many = profile(turns_file, "harness", folder)
        defs = profile(turns_file, "harness-defs", folder)
    calls = sum(map(len, turns))
    a, b, c = self_times(one), self_times(many), self_times(defs)
    total_a, total_b, total_c = sum(a.values()), sum(b.values()), sum(c.values())
    grown = sorted(((b.get(k, 0.0) - a.get(k, 0.0), k) for k in set(a) | set(b)), reverse=True)
    rows = [
        [k, f"{a.get(k, 0.0):.2f}", f"{b.get(k, 0.0):.2f}", f"{d:+.2f}", f"{c.get(k, 0.0):.2f}"]
        for d, k in grown[:TOP]
    ]
    rows.append(
        ["(every function)", f"{total_a:.2f}", f"{total_b:.2f}", f"{total_b - total_a:+.2f}",
         f"{total_c:.2f}"]
    )  # fmt: skip
    per_call = (total_b - total_a) / calls * 1000
    text = (
        f"Bare inspect on one harness run's {len(turns)} episodes and {calls} model calls "
        "(L3-granular, sim/sloppy, 3 epochs) under cProfile: one trivial tool, then also the "
        "harness's 12 tool schemas handed over shared (as the harness does), then as ToolDefs "
        "(inspect's usual way). Own CPU seconds of the functions that grow most with the shared "
        f"schemas (per model call: {per_call:.1f} ms more; as ToolDefs "
        f"{(total_c - total_a) / calls * 1000:.1f} ms more).\n\n"
        + tabulate(
            rows,
            headers=[
                "function (own time)",
                "1 tool",
                "+ 12 schemas, shared",
                "change",
                "+ 12 schemas as ToolDefs",
            ],
            tablefmt="github",
        )  # fmt: skip
        + "\n"
    )
    print(text)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "schemas.md").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
