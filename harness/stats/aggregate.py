"""summary.json's numbers from a run's episodes: per variant, every metric's mean with its
standard error and interval clustered by scenario (`harness.stats.intervals`), pass^k, rates per
100 todo updates and the cost where a price is known; and what produced it and whether the run
was complete, so a partial or stale run is never published as a whole one."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from harness.metrics import CORRUPTION_COUNTS, METRICS
from harness.results.summary import (
    AgentRecord,
    EpisodeScores,
    Price,
    Provenance,
    Summary,
    TaskResult,
    VariantSummary,
    variant_order,
)
from harness.stats.intervals import clustered, pass_hat_k


def summarize(
    results: Iterable[TaskResult],
    seed: int | None = None,
    price: Price | None = None,
    provenance: Provenance | None = None,
    problems: Iterable[str] = (),
    expected: Iterable[str] = (),
) -> Summary:
    """Aggregate per-episode scores into per-variant means (clustered by scenario), pass^k and
    rates. `expected` variants that have no result make the summary incomplete."""
    by_variant: dict[str, list[EpisodeScores]] = defaultdict(list)
    agents: dict[str, AgentRecord] = {}
    model, epochs = "", 1
    for result in results:
        model, epochs = result.model, result.epochs
        by_variant[result.variant].extend(result.episodes)
        if result.agent is not None:
            agents[result.variant] = result.agent
    issues = [*problems, *(f"{v}: no results" for v in expected if v not in by_variant)]
    summaries = []
    for variant in sorted(by_variant, key=variant_order):
        episodes = sorted(by_variant[variant], key=lambda e: (e.scenario, e.epoch))
        clusters = [e.scenario for e in episodes]
        column = {m: [e.values.get(m, 0.0) for e in episodes] for m in METRICS}
        success: dict[str, list[float]] = defaultdict(list)
        for e in episodes:
            success[e.scenario].append(e.values.get("task_success", 0.0))
        # per accepted-or-rejected update: list_todos reads and malformed calls are not updates
        updates = sum(column["todo_updates"])
        rates = {
            m: round(100 * sum(column[m]) / updates, 6) if updates else 0.0
            for m in CORRUPTION_COUNTS
        }
        cost = None
        if price is not None:
            costs = [
                price.cost(i, c, o)
                for i, c, o in zip(
                    column["input_tokens"],
                    column["cache_read_tokens"],
                    column["output_tokens"],
                    strict=True,
                )
            ]
            cost = clustered(costs, clusters)
        pass_k, eligible = pass_hat_k(success, epochs)
        summaries.append(
            VariantSummary(
                variant=variant,
                episodes=len(episodes),
                metrics={m: clustered(column[m], clusters) for m in METRICS},
                cost_usd=cost,
                pass_k=pass_k,
                pass_k_scenarios=eligible,
                per_100_todo_updates=rates,
                per_scenario_success={
                    s: round(sum(v) / len(v), 6) for s, v in sorted(success.items())
                },
                per_episode=[
                    e.model_copy(update={"values": {m: e.values.get(m, 0.0) for m in METRICS}})
                    for e in episodes
                ],
                agent=agents.get(variant),
            )
        )
    return Summary(
        model=model,
        simulated=model.startswith("sim/"),
        seed=seed,
        epochs=epochs,
        scenarios=sorted({e.scenario for v in by_variant.values() for e in v}),
        variants=summaries,
        # the code hash is information for run.json; a summary carries what decides its
        # meaning, so the same inputs give the same bytes whichever commit ran them
        provenance=(provenance or Provenance()).model_copy(update={"code_hash": ""}),
        complete=not issues,
        problems=issues,
    )
