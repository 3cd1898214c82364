"""Which design differences survive at field rates: paired tests between designs of one run
(episodes paired by scenario and epoch; exact McNemar for rates, a permutation test for counts;
Holm across every comparison of a run), for sim/field's run and, for contrast, sim/sloppy's.
Writes results/field/designs.md.

    .venv/bin/python scripts/field_designs.py
"""

from __future__ import annotations

import sys
from pathlib import Path

from tabulate import tabulate

from harness.results.summary import Summary, read_summary
from harness.stats.intervals import Test, holm, paired_test

ROOT = Path(__file__).resolve().parent.parent
RUNS = {"sim/field": ROOT / "results/field/run", "sim/sloppy": ROOT / "results/latest"}
PRODUCTS = ROOT / "results/products"
PAIRS = (
    ("L0-rewrite", "L1-textlock"),
    ("L1-textlock", "L2-whitelist"),
    ("L2-whitelist", "L3-granular"),
    ("L3-granular", "L4-inject"),
    ("L4-inject", "L4-inject+gate"),
    ("L0-rewrite", "L4-inject+gate"),
    ("cc-todowrite", "cc-tasks"),
)
METRICS = (
    "task_success",
    "false_completion",
    "dropped_todos",
    "mutated_text",
    "false_todo_completions",
)


def tests(summary: Summary) -> list[Test]:
    episodes = {
        v.variant: {(e.scenario, e.epoch): e.values for e in v.per_episode}
        for v in summary.variants
    }
    out = []
    for base, new in PAIRS:
        if base not in episodes or new not in episodes:
            continue
        keys = sorted(episodes[base].keys() & episodes[new].keys())
        for metric in METRICS:
            a = [episodes[base][k].get(metric, 0.0) for k in keys]
            b = [episodes[new][k].get(metric, 0.0) for k in keys]
            out.append(paired_test(f"{base} -> {new}", metric, a, b))
    return holm(out)


def merged(folder: Path) -> Summary:
    summary = read_summary(folder / "summary.json")
    if folder.name == "latest" and (PRODUCTS / "summary.json").is_file():
        extra = read_summary(PRODUCTS / "summary.json")
        summary = summary.model_copy(update={"variants": [*summary.variants, *extra.variants]})
    return summary


def main() -> int:
    parts = [
        "Paired differences between designs within one run (episodes paired by scenario and "
        "epoch; exact McNemar for rates, sign-flip permutation for counts; Holm across the "
        "run's comparisons). `survives`: Holm p < 0.05.\n"
    ]
    for label, folder in RUNS.items():
        if not (folder / "summary.json").is_file():
            print(f"field_designs: no run at {folder}", file=sys.stderr)
            return 2
        rows = [
            [
                t.variant,
                t.metric,
                f"{t.base_mean:.2f}",
                f"{t.new_mean:.2f}",
                f"{t.delta:+.2f} [{t.ci_low:+.2f}, {t.ci_high:+.2f}]",
                f"{t.p_holm:.4f}",
                "yes" if t.p_holm < 0.05 else "no",
            ]
            for t in tests(merged(folder))
            if t.method != "no difference"
        ]
        headers = ["designs", "metric", "base", "new", "delta [95% CI]", "p (Holm)", "survives"]
        parts.append(f"### {label}\n\n" + tabulate(rows, headers=headers, tablefmt="github") + "\n")
    text = "\n".join(parts)
    (ROOT / "results/field/designs.md").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
