"""The published result of a run, as data: `summary.json`'s schema and its reading and writing.

Pure data (pydantic), so a reader (the leaderboard, `compare`, a notebook) imports it without
loading inspect, the statistics libraries or the agent loop; `harness.results.report` computes
it from
inspect logs.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from pydantic import BaseModel, Field

from harness import storage
from harness.todo.variants import HEADLINE

#: 2: rates per accepted-or-rejected todo update; ending, matcher and cache metrics added
#: 3: clustered standard errors with n and 95% intervals; per-episode values; provenance;
#:    completeness; pass^k over scenarios with enough epochs
SCHEMA_VERSION = 3
#: the oldest summary.json this code still reads (committed real-model runs are of version 1)
OLDEST_SCHEMA_VERSION = 1

STDERR_METHOD = (
    "standard error clustered by scenario (cluster-robust OLS, statsmodels); "
    "95% interval: percentile bootstrap over scenarios (scipy)"
)


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


class Stat(BaseModel):
    """Mean over episodes, its clustered standard error, a 95% interval, and the count."""

    mean: float
    stderr: float = Field(ge=0)
    n: int = Field(0, ge=0)
    ci_low: float | None = None
    ci_high: float | None = None


class EpisodeScores(BaseModel):
    """One scored episode as read back from an inspect log."""

    scenario: str
    epoch: int = Field(ge=1)
    values: dict[str, float]


class VariantSummary(BaseModel):
    variant: str
    episodes: int = Field(ge=0)
    metrics: dict[str, Stat]
    cost_usd: Stat | None = Field(None, description="per episode, where the price is known")
    pass_k: Stat = Field(description="share of scenarios solved in all k epochs (pass^k)")
    pass_k_scenarios: int = Field(0, ge=0, description="scenarios with at least k epochs")
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

    schema_version: int = Field(SCHEMA_VERSION, ge=OLDEST_SCHEMA_VERSION, le=SCHEMA_VERSION)
    model: str
    simulated: bool
    seed: int | None
    epochs: int = Field(ge=1)
    scenarios: list[str]
    variants: list[VariantSummary]
    stderr_method: str = STDERR_METHOD
    provenance: Provenance = Field(default_factory=Provenance)
    complete: bool = True
    #: why the run is incomplete: failed or missing variants, episodes without a score
    problems: list[str] = Field(default_factory=list)


def variant_order(name: str) -> tuple[int, str]:
    """The board's order: the seed's levels as the seed numbers them, then the rest by name."""
    return (HEADLINE.index(name) if name in HEADLINE else len(HEADLINE), name)


class TaskResult(BaseModel):
    """The scored episodes of one variant (from its eval log, or its shards' logs)."""

    variant: str
    model: str
    epochs: int
    episodes: list[EpisodeScores]


def write_summary(summary: Summary, path: Path | str) -> None:
    """Write summary.json (a local path or an object-store URL), whole or not at all."""
    storage.write_text(path, summary.model_dump_json(indent=2) + "\n")


def read_summary(path: Path | str) -> Summary:
    """A summary.json; NaN and infinities are refused (JSON has no such numbers, and a
    comparison against one would pass whatever the other side says)."""

    def refuse(constant: str) -> float:
        raise ValueError(f"{constant} where a number belongs")

    data = json.loads(storage.read_text(path), parse_constant=refuse)
    version = data.get("schema_version") if isinstance(data, dict) else None
    if isinstance(version, int) and not (
        OLDEST_SCHEMA_VERSION <= version <= SCHEMA_VERSION and not isinstance(version, bool)
    ):
        raise SchemaVersionError(
            f"summary schema version {version}; this todo-bench reads versions "
            f"{OLDEST_SCHEMA_VERSION} to {SCHEMA_VERSION}"
        )
    return Summary.model_validate(data)


class SchemaVersionError(ValueError):
    """A summary.json of a schema version this code does not read (a newer todo-bench's)."""
