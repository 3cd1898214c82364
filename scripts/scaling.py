"""Cost against list length: a generated per-file family (n = 5 ... 100 todos) under each design,
capped and uncapped, on the simulated agent; fitted slopes, a table and a plot in results/scaling/.

Run with `make scaling` (a few minutes on 2 cores; `sim/oracle` by default), or
`python scripts/scaling.py --model M` for another model (`--sizes 5,10` keeps a slow local
model's run short). Every number comes from the run's summary.json (the harness's own ledger),
never from the model.
"""

from __future__ import annotations

import argparse
import math
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd
import statsmodels.api as sm
from tabulate import tabulate

from harness.results.summary import Summary, price_for, read_summary

OUT = Path("results/scaling")
#: every level, capped (the demo's 20 items) and uncapped
VARIANTS = ",".join(
    f"{level}{cap}"
    for level in ("L0-rewrite", "L1-textlock", "L2-whitelist", "L3-granular", "L4-inject")
    for cap in ("", "+uncapped")
)
PRICED = ("anthropic/claude-sonnet-4-5", "openai/gpt-4o")
FAMILY = """# the scaling study's family: n files, one todo each, nothing else changing
family: per_file
title: Copy n files in capitals, one todo each (scaling study)
seed: 0
sizes: [{sizes}]
"""


def run(
    model: str, sizes: list[int], epochs: int, out: Path, variants: str, extra: list[str]
) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="todo-bench-scaling-"))
    (folder / "scaling.yaml").write_text(FAMILY.format(sizes=", ".join(map(str, sizes))))
    command = [sys.executable, "-m", "harness.commands", "run", "--model", model]
    command += ["--variants", variants, "--scenario-dir", str(folder), "--epochs", str(epochs)]
    command += ["--seed", "0", "--out", str(out / "run"), "--fresh", *extra]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return out / "run" / "summary.json"


def episodes(summary: Summary) -> pd.DataFrame:
    rows: list[dict[str, Any]] = []
    for variant in summary.variants:
        for episode in variant.per_episode:
            rows.append(
                {
                    "variant": variant.variant,
                    "n": int(episode.scenario.rsplit("_", 1)[1]),
                    **episode.values,
                }
            )
    return pd.DataFrame(rows)


def table(frame: pd.DataFrame) -> pd.DataFrame:
    grouped = frame.groupby(["variant", "n"]).mean(numeric_only=True).reset_index()
    out = pd.DataFrame(
        {
            "variant": grouped["variant"],
            "n": grouped["n"],
            "success": grouped["task_success"],
            "rejected": grouped["rejected_updates"],
            "todo updates": grouped["todo_updates"],
            "out tok / todo update": grouped["todo_output_tokens"]
            / grouped["todo_updates"].where(grouped["todo_updates"] > 0),
            "todo out tok / ep": grouped["todo_output_tokens"],
            "in tok / turn": grouped["input_tokens"] / grouped["turns"],
            "in tok / ep": grouped["input_tokens"],
            "todo share of out": grouped["todo_output_tokens"] / grouped["output_tokens"],
        }
    )
    for model in PRICED:
        price = price_for(model)
        assert price is not None, model
        out[f"$ / ep {model.split('/')[1]}"] = (
            grouped["input_tokens"] * price.input + grouped["output_tokens"] * price.output
        ) / 1e6
    return out


def slopes(frame: pd.DataFrame) -> pd.DataFrame:
    """Per variant: the log-log slope (scaling exponent) of todo output tokens and of input
    tokens per episode against n, by OLS over every episode with tokens > 0. A slope needs
    episodes at two sizes at least and an interval one more episode than that; where they are
    missing (a model that never touched its list, a one-size run) the cell says so."""
    rows = []
    for variant, group in frame.groupby("variant"):
        row: dict[str, Any] = {"variant": variant}
        for column, label in (("todo_output_tokens", "todo out"), ("input_tokens", "input")):
            used = group[group[column] > 0]
            row[f"{label} exponent"] = math.nan
            row[f"{label} 95% CI"] = f"too few points ({len(used)} episodes with tokens)"
            if used["n"].nunique() < 2:
                continue
            fit = sm.OLS(used[column].map(math.log), sm.add_constant(used["n"].map(math.log))).fit()
            row[f"{label} exponent"] = fit.params.iloc[1]
            if fit.df_resid >= 1:
                row[f"{label} 95% CI"] = "[{:.2f}, {:.2f}]".format(*fit.conf_int().iloc[1])
            else:
                row[f"{label} 95% CI"] = "none (exact fit through 2 points)"
        rows.append(row)
    return pd.DataFrame(rows)


def plot(frame: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    grouped = frame.groupby(["variant", "n"]).mean(numeric_only=True).reset_index()
    figure, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for variant, group in grouped.groupby("variant"):
        style = "--" if "uncapped" in str(variant) else "-"
        axes[0].plot(group["n"], group["todo_output_tokens"], style, marker="o", label=variant)
        axes[1].plot(group["n"], group["input_tokens"], style, marker="o", label=variant)
    for axis, title in zip(
        axes, ("todo output tokens per episode", "input tokens per episode"), strict=True
    ):
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("todos in the task (n)")
        axis.set_title(title)
        axis.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    # the fault-free simulated agent: a fallible one quits long lists early (a false "done"),
    # and the curve would then measure when it quits rather than what each design costs
    parser.add_argument("--model", default="sim/oracle")
    parser.add_argument("--sizes", default="5,10,20,50,100")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--variants", default=VARIANTS)
    parser.add_argument(
        "--run-args",
        default="",
        help="more `todo-bench run` options, e.g. '--workers 1 --max-turns 30' for a local model",
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="analyse OUT/run/summary.json again without running (e.g. after changing the table)",
    )
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.reuse:
        summary = out / "run" / "summary.json"
        if not summary.is_file():
            sys.exit(f"scaling: --reuse needs a finished run at {summary}; run without --reuse")
    else:
        extra = shlex.split(args.run_args)
        summary = run(args.model, sizes, args.epochs, out, args.variants, extra)
    facts = read_summary(summary)
    frame = episodes(facts)
    numbers, fitted = table(frame), slopes(frame)
    numbers.to_csv(out / "scaling.csv", index=False, float_format="%.4g")
    fitted.to_csv(out / "slopes.csv", index=False, float_format="%.4g")
    plot(frame, out / "scaling.png")
    text = (
        f"# Cost against list length ({facts.model}, {facts.epochs} epochs, seed {facts.seed})\n\n"
        + tabulate(numbers, headers="keys", tablefmt="github", showindex=False, floatfmt=".3g")
        + "\n\nScaling exponents (log-log OLS slope over episodes, with 95% CI):\n\n"
        + tabulate(fitted, headers="keys", tablefmt="github", showindex=False, floatfmt=".2f")
        + "\n"
    )
    (out / "scaling.md").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
