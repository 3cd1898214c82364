"""The published result of a run, as data: `summary.json`'s schema and its reading and writing.

Pure data (pydantic), so a reader (the leaderboard, `compare`, a notebook) imports it without
loading inspect, the statistics libraries or the agent loop; `harness.results.run_logs` reads
a run's episodes from its inspect logs and `harness.stats.aggregate` computes it from them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar, Literal

import yaml
from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer

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


class AgentRecord(BaseModel):
    """A shipping agent's row (`cli/...`): which product, at which version, with which of its
    own switches, and the scenarios its row left out (and why)."""

    product: str
    package: str
    version: str
    switches: dict[str, str]
    model_config_id: str = Field(description="the model id the CLI was told it talks to")
    hooks: list[str] = Field(
        default_factory=list, description="the seed's fixes installed as its hooks (docs/hooks.md)"
    )
    left_out: dict[str, str] = Field(default_factory=dict, description="scenario: reason")


class _OmitsAbsent(BaseModel):
    """A model whose fields named in `_absent_when_none` are left out of its JSON while None:
    fields added later, so files written without them stay byte for byte what they were."""

    _absent_when_none: ClassVar[tuple[str, ...]] = ()

    @model_serializer(mode="wrap")
    def _without_absent(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for name in self._absent_when_none:
            if getattr(self, name) is None:
                data.pop(name, None)
        return data


class VariantSummary(_OmitsAbsent):
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
    agent: AgentRecord | None = Field(None, description="a shipping agent's row; absent otherwise")

    # the harness's own rows stay byte for byte what they were before the field
    _absent_when_none: ClassVar[tuple[str, ...]] = ("agent",)


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


class RunRecord(BaseModel):
    """run.json: what a run folder's logs were made with; a resume must match it (pure data
    here, so a submission reads it without the run wing; `harness.run.folder` writes it)."""

    model: str
    #: the model's arguments (`-M`; the simulated agent's seed, its latency, ...); empty in run
    #: folders made before 2026-12-05
    model_args: dict[str, Any] = {}
    variants: list[str]
    seed: int
    epochs: int
    provenance: Provenance
    git_commit: str | None = None
    #: the price the run's cost was computed with (`--prices`), so `rescore` prices it the same;
    #: unset in run folders made before 2026-12-04 (rescore then reads the shipped table)
    price: Price | None = None
    priced: bool = False
    #: each shipping agent's row (`cli/...`): its product, version and every switch it set;
    #: empty for a run without one (and in run folders made before 2026-12-04, evening)
    agents: dict[str, AgentRecord] = {}
    #: where the shipping agents' CLIs ran (docker, local); None for a run without one
    cli_sandbox: str | None = None


#: a watched comparison's state at a look: a difference shown either way, no difference beyond
#: the tolerance shown, or neither yet
Verdict = Literal["better", "worse", "within tolerance", "futile", "undecided"]
#: a sequential run's alpha spending function (`run --spending`)
Spending = Literal["obrien-fleming", "pocock"]
#: why a sequential run stopped
StopReason = Literal["decided", "max batches", "max episodes", "max cost", "incomplete"]


class Futility(BaseModel):
    """A sequential run's futility stop (`run --futility P --mde ...`)."""

    threshold: float = Field(gt=0, lt=1, description="conditional power below which to stop")
    #: per watched metric, the smallest difference worth finding (a magnitude, either way)
    mde: dict[str, float]


class LookDecision(_OmitsAbsent):
    """One watched comparison (new - base on a metric) at one look of a sequential run."""

    base: str
    new: str
    metric: str
    pairs: int = Field(ge=0, description="paired episodes (same scenario and epoch)")
    effect: float = Field(description="mean paired difference, new - base")
    stderr: float = Field(ge=0, description="from the pooled within-scenario variance")
    ci_low: float = Field(description="repeated confidence interval at this look")
    ci_high: float
    verdict: Verdict
    #: the look that first decided it (its verdict stands from then on); None: undecided
    decided_at: int | None = None
    conditional_power: float | None = Field(
        None, description="with a futility stop: the chance the last look decides, at the MDE"
    )

    # a run without a futility stop writes its looks as before the field
    _absent_when_none: ClassVar[tuple[str, ...]] = ("conditional_power",)


class Look(BaseModel):
    """The state of a sequential run after one batch."""

    look: int = Field(ge=1)
    epochs: int = Field(ge=1, description="epochs per scenario so far")
    episodes: int = Field(ge=0, description="episodes so far, every variant")
    cost_usd: float | None = Field(None, description="cost so far, where the price is known")
    boundary: float = Field(ge=0, description="|z| critical value of this look")
    alpha_spent: float = Field(ge=0, description="cumulative, per comparison")
    decisions: list[LookDecision]


class SequentialRecord(_OmitsAbsent):
    """How a `--until-decided` run looked at its data and why it stopped."""

    method: str
    alpha: float = Field(description="family-wise, two-sided")
    alpha_each: float = Field(description="per comparison (Bonferroni)")
    batch_epochs: int = Field(ge=1)
    planned_looks: int = Field(ge=1)
    max_episodes: int | None = None
    max_cost: float | None = None
    tolerance: dict[str, float] = Field(default_factory=dict)
    looks: list[Look]
    #: each comparison's final state: its first decision, or its last look's interval
    decisions: list[LookDecision]
    stopped: StopReason
    reason: str
    spending: Spending | None = Field(
        None, description="the alpha spending function; absent: O'Brien-Fleming-type"
    )
    futility: Futility | None = Field(None, description="the futility stop; absent: none")

    # a run with the default rule writes its record as before the fields
    _absent_when_none: ClassVar[tuple[str, ...]] = ("spending", "futility")


class Summary(_OmitsAbsent):
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
    sequential: SequentialRecord | None = Field(
        None, description="a --until-decided run's looks and why it stopped; absent otherwise"
    )

    # a fixed-size run's summary.json stays byte for byte what it was before the field
    _absent_when_none: ClassVar[tuple[str, ...]] = ("sequential",)


def variant_order(name: str) -> tuple[int, str]:
    """The board's order: the seed's levels as the seed numbers them, then the rest by name."""
    return (HEADLINE.index(name) if name in HEADLINE else len(HEADLINE), name)


class TaskResult(BaseModel):
    """The scored episodes of one variant (from its eval log, or its shards' logs)."""

    variant: str
    model: str
    epochs: int
    episodes: list[EpisodeScores]
    agent: AgentRecord | None = None


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
