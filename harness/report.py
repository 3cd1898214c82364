"""summary.json (versioned, pydantic) from inspect logs, and leaderboard tables from summaries.

Every mean carries a standard error clustered by scenario (`harness.stats`); every summary
records what produced it (scenario and code hashes, project version) and whether the run was
complete, so a partial or stale run is never published as a whole one.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import yaml
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log, read_eval_log_sample_summaries
from pydantic import BaseModel, Field

from harness.scoring import CORRUPTION_COUNTS, METRICS
from harness.stats import STDERR_METHOD, Stat, clustered, pass_hat_k
from harness.variants import HEADLINE, PRODUCTS

#: 2: rates per accepted-or-rejected todo update; ending, matcher and cache metrics added
#: 3: clustered standard errors with n and 95% intervals; per-episode values; provenance;
#:    completeness; pass^k over scenarios with enough epochs
SCHEMA_VERSION = 3


PRICES = Path(__file__).resolve().parent / "prices.yaml"


class Price(BaseModel):
    """USD per million tokens; `cache_read` prices prompt-cache hits where the provider has a
    rate for them (otherwise they cost `input`)."""

    input: float
    output: float
    cache_read: float | None = None

    def cost(self, input_tokens: float, cache_read_tokens: float, output_tokens: float) -> float:
        cached_rate = self.input if self.cache_read is None else self.cache_read
        fresh = input_tokens - cache_read_tokens
        return (
            fresh * self.input + cache_read_tokens * cached_rate + output_tokens * self.output
        ) / 1e6


def price_for(model: str, table: Path = PRICES) -> Price | None:
    """The longest price-table key that prefixes the model name, if any."""
    entries = yaml.safe_load(table.read_text(encoding="utf-8")) or {}
    keys = sorted((k for k in entries if model.startswith(k)), key=len, reverse=True)
    return Price.model_validate(entries[keys[0]]) if keys else None


class EpisodeScores(BaseModel):
    """One scored episode as read back from an inspect log."""

    scenario: str
    epoch: int
    values: dict[str, float]


class VariantSummary(BaseModel):
    variant: str
    episodes: int
    metrics: dict[str, Stat]
    cost_usd: Stat | None = Field(None, description="per episode, where the price is known")
    pass_k: Stat = Field(description="share of scenarios solved in all k epochs (pass^k)")
    pass_k_scenarios: int = Field(0, description="scenarios with at least k epochs")
    per_100_todo_updates: dict[str, float]
    per_scenario_success: dict[str, float]
    #: every episode's values, so two runs can be compared pair by pair
    per_episode: list[EpisodeScores] = Field(default_factory=list)


class Provenance(BaseModel):
    """What produced a summary. The versions and the scenario hash decide comparability; the
    rest is information (a refactor changes the code hash but no number)."""

    task_version: int = Field(0, description="harness.versions.TASK_VERSION; 0: not recorded")
    sim_version: int | None = Field(
        None, description="harness.versions.SIM_VERSION for simulated agents, else null"
    )
    scenario_hash: str = ""  # of the selected scenarios, as loaded
    project_version: str = ""
    code_hash: str = ""  # of the harness's source files: information only
    inspect_ai: str = ""  # the inspect_ai version: information only

    def meaning(self) -> dict[str, object]:
        """The fields that decide whether two runs may be mixed or compared."""
        return {
            "task version": self.task_version,
            "sim version": self.sim_version,
            "scenarios": self.scenario_hash,
        }


class Summary(BaseModel):
    """The published result of one run; the leaderboard is rendered from it."""

    schema_version: int = SCHEMA_VERSION
    model: str
    simulated: bool
    seed: int | None
    epochs: int
    scenarios: list[str]
    variants: list[VariantSummary]
    stderr_method: str = STDERR_METHOD
    provenance: Provenance = Field(default_factory=Provenance)
    complete: bool = True
    #: why the run is incomplete: failed or missing variants, episodes without a score
    problems: list[str] = Field(default_factory=list)


def variant_order(name: str) -> tuple[int, str]:
    known = (*HEADLINE, *PRODUCTS)
    return (known.index(name) if name in known else len(known), name)


class TaskResult(BaseModel):
    """The scored episodes of one variant's eval log."""

    variant: str
    model: str
    epochs: int
    episodes: list[EpisodeScores]


#: what a provider failure looks like in inspect's error text, and what it means for the user
_CAUSES = (
    ("AttemptTimeoutError", "the model server did not answer within --timeout"),
    ("APITimeoutError", "the model server did not answer within --timeout"),
    ("ConnectError", "cannot connect to the model server (is it running? check *_BASE_URL)"),
    ("APIConnectionError", "cannot connect to the model server (is it running? check *_BASE_URL)"),
    ("RateLimitError", "rate limited (HTTP 429) through every retry"),
    ("429", "rate limited (HTTP 429) through every retry"),
    ("OverloadedError", "the provider is overloaded (HTTP 529) through every retry"),
    ("529", "the provider is overloaded (HTTP 529) through every retry"),
    ("InternalServerError", "the model server failed (HTTP 5xx) through every retry"),
    ("AuthenticationError", "the API key was refused (HTTP 401)"),
)


def cause(message: str) -> str:
    """One line naming why a log failed: a known provider fault in plain words, else the
    error's first line."""
    for marker, meaning in _CAUSES:
        if marker in message:
            return meaning
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    return (lines[-1] if lines else message)[:200]


def read_results(log_dir: Path) -> list[TaskResult]:
    """The newest successful log per variant in a log directory, read as episode scores."""
    return read_run(log_dir)[0]


def read_run(log_dir: Path) -> tuple[list[TaskResult], list[str]]:
    """Episode scores per variant (the newest successful log each), and what is missing."""
    newest: dict[str, tuple[EvalLog, str]] = {}
    failed: dict[str, str] = {}
    for info in list_eval_logs(str(log_dir), recursive=True):
        header = read_eval_log(info.name, header_only=True)
        key = str((header.eval.metadata or {}).get("variant", header.eval.task_id))
        if header.status != "success":
            message = header.error.message if header.error else header.status
            failed.setdefault(key, f"{key}: log {header.status}: {cause(message)}")
            continue
        # one result per variant: a resumed or repeated run leaves older logs beside newer ones
        if key not in newest or header.eval.created > newest[key][0].eval.created:
            newest[key] = (header, info.name)
    problems = [failed[k] for k in sorted(failed) if k not in newest]
    results = []
    for variant, (header, name) in sorted(newest.items()):
        episodes = []
        for sample in read_eval_log_sample_summaries(name):
            score = (sample.scores or {}).get("todo_scorer")
            if score is None or not isinstance(score.value, dict):
                problems.append(f"{variant}: {sample.id} epoch {sample.epoch} has no score")
                continue
            values = {k: float(v) for k, v in score.value.items() if isinstance(v, int | float)}
            episodes.append(
                EpisodeScores(scenario=str(sample.id), epoch=sample.epoch, values=values)
            )
        results.append(
            TaskResult(
                variant=variant,
                model=header.eval.model,
                epochs=header.eval.config.epochs or 1,
                episodes=episodes,
            )
        )
    return results, problems


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
    model, epochs = "", 1
    for result in results:
        model, epochs = result.model, result.epochs
        by_variant[result.variant].extend(result.episodes)
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
            )
        )
    return Summary(
        model=model,
        simulated=model.startswith("sim/"),
        seed=seed,
        epochs=epochs,
        scenarios=sorted({e.scenario for v in by_variant.values() for e in v}),
        variants=summaries,
        provenance=provenance or Provenance(),
        complete=not issues,
        problems=issues,
    )


def write_summary(summary: Summary, path: Path) -> None:
    path.write_text(summary.model_dump_json(indent=2) + "\n", encoding="utf-8")


def read_summary(path: Path) -> Summary:
    """A summary.json; NaN and infinities are refused (JSON has no such numbers, and a
    comparison against one would pass whatever the other side says)."""

    def refuse(constant: str) -> float:
        raise ValueError(f"{constant} where a number belongs")

    data = json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)
    return Summary.model_validate(data)
