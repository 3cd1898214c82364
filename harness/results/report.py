"""summary.json (versioned, pydantic) from inspect logs, and leaderboard tables from summaries.

Every mean carries a standard error clustered by scenario (`harness.results.stats`); every summary
records what produced it (scenario and code hashes, project version) and whether the run was
complete, so a partial or stale run is never published as a whole one.
"""

from __future__ import annotations

import io
import re
import sys
import zipfile
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log, read_eval_log_sample_summaries

from harness import storage
from harness.metrics import CORRUPTION_COUNTS, METRICS
from harness.results.stats import clustered, pass_hat_k
from harness.results.summary import (
    PRICES as PRICES,
)
from harness.results.summary import (
    SCHEMA_VERSION as SCHEMA_VERSION,
)
from harness.results.summary import (
    STDERR_METHOD as STDERR_METHOD,
)
from harness.results.summary import (
    AgentRecord as AgentRecord,
)
from harness.results.summary import (
    EpisodeScores as EpisodeScores,
)
from harness.results.summary import (
    Price as Price,
)
from harness.results.summary import (
    Provenance as Provenance,
)
from harness.results.summary import (
    Stat as Stat,
)
from harness.results.summary import (
    Summary as Summary,
)
from harness.results.summary import (
    TaskResult as TaskResult,
)
from harness.results.summary import (
    VariantSummary as VariantSummary,
)
from harness.results.summary import (
    price_for as price_for,
)
from harness.results.summary import (
    read_summary as read_summary,
)
from harness.results.summary import (
    variant_order as variant_order,
)
from harness.results.summary import (
    write_summary as write_summary,
)


def _status(code: int) -> re.Pattern[str]:
    """An HTTP status as the providers' SDKs write it in an error ("Error code: 529 - ..."),
    not any run of those digits (a port, a line number, a request id)."""
    return re.compile(rf"(?:error code|status(?: code)?|HTTP)\W{{0,3}}{code}\b", re.IGNORECASE)


_TRUNCATED = (
    "the model server's response was cut off (a truncated response: the connection closed "
    "before the whole body arrived; a proxy or the server ended it)"
)
#: what a provider failure looks like in inspect's error text, and what it means for the user
_CAUSES: tuple[tuple[str | re.Pattern[str], str], ...] = (
    ("AttemptTimeoutError", "the model server did not answer within --timeout"),
    ("APITimeoutError", "the model server did not answer within --timeout"),
    ("ConnectError", "cannot connect to the model server (is it running? check *_BASE_URL)"),
    ("APIConnectionError", "cannot connect to the model server (is it running? check *_BASE_URL)"),
    ("RateLimitError", "rate limited (HTTP 429) through every retry"),
    (_status(429), "rate limited (HTTP 429) through every retry"),
    ("OverloadedError", "the provider is overloaded (HTTP 529) through every retry"),
    (_status(529), "the provider is overloaded (HTTP 529) through every retry"),
    ("InternalServerError", "the model server failed (HTTP 5xx) through every retry"),
    ("AuthenticationError", "the API key was refused (HTTP 401)"),
)


#: a body cut short, as httpx says it: the SDKs raise it as a connection error, so only the
#: traceback's chained cause tells it from a server that could not be reached
_CUT_OFF = ("without sending complete message body", "incomplete chunked read")


def cause(message: str, traceback: str = "") -> str:
    """One line naming why a log failed: a known provider fault in plain words, else the
    error's first line. `traceback` (the log's) is read for a truncated response only."""
    if any(marker in message or marker in traceback for marker in _CUT_OFF):
        return _TRUNCATED
    for marker, meaning in _CAUSES:
        if marker in message if isinstance(marker, str) else marker.search(message):
            return meaning
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    return (lines[-1] if lines else message)[:200]


def damage(name: str) -> str | None:
    """What is wrong with a log's bytes, or None. An `.eval` log is a zip: every member's
    checksum is checked (a damaged sample too, which a summary does not read), then the two
    parts a summary reads (header and sample summaries) are parsed."""
    try:
        if name.endswith(".eval"):
            with zipfile.ZipFile(io.BytesIO(storage.read_bytes(name))) as archive:
                bad = archive.testzip()
            if bad is not None:
                return f"its part {bad} is damaged"
        read_eval_log(name, header_only=True)
        read_eval_log_sample_summaries(name)
    except storage.StoreError:
        raise  # the store, not the log
    except Exception as error:  # inspect and zipfile raise several kinds for a damaged file
        return cause(str(error)) or type(error).__name__
    return None


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


def read_run(
    log_dir: str | Path, warn: Callable[[str], None] = _stderr
) -> tuple[list[TaskResult], list[str]]:
    """Episode scores per variant, and what is missing. A variant's episodes come from its
    newest successful log per scenario selection (one for a run by variant, one per shard for a
    sharded run); an episode found in two logs counts once, from the newer. A log that cannot
    be read (a corrupt or partial object) is skipped with a warning."""
    newest: dict[tuple[str, str], tuple[EvalLog, str]] = {}
    failed: dict[str, str] = {}
    for info in list_eval_logs(str(log_dir), recursive=True):
        problem = damage(info.name)
        if problem is not None:
            warn(f"todo-bench: ignored unreadable log {info.name} ({problem})")
            continue
        header = read_eval_log(info.name, header_only=True)
        key = str((header.eval.metadata or {}).get("variant", header.eval.task_id))
        if header.status != "success":
            message = header.error.message if header.error else header.status
            traceback = header.error.traceback if header.error else ""
            failed.setdefault(key, f"{key}: log {header.status}: {cause(message, traceback)}")
            continue
        # a resumed or repeated run leaves older logs beside newer ones: newest per selection
        block = (key, str((header.eval.task_args or {}).get("scenarios")))
        if block not in newest or header.eval.created > newest[block][0].eval.created:
            newest[block] = (header, info.name)
    succeeded = {key for key, _ in newest}
    problems = [failed[k] for k in sorted(failed) if k not in succeeded]
    by_variant: dict[str, list[tuple[EvalLog, str]]] = defaultdict(list)
    for (key, _), found in newest.items():
        by_variant[key].append(found)
    results = []
    for variant in sorted(by_variant):
        logs = sorted(by_variant[variant], key=lambda found: found[0].eval.created, reverse=True)
        episodes: dict[tuple[str, int], EpisodeScores] = {}
        for _, name in logs:
            try:
                samples = read_eval_log_sample_summaries(name)
            except Exception as error:
                warn(f"todo-bench: ignored unreadable log {name} ({cause(str(error))})")
                continue
            for sample in samples:
                if (str(sample.id), sample.epoch) in episodes:
                    continue  # a newer log has this episode
                score = (sample.scores or {}).get("todo_scorer")
                if score is None or not isinstance(score.value, dict):
                    problems.append(f"{variant}: {sample.id} epoch {sample.epoch} has no score")
                    continue
                values = {k: float(v) for k, v in score.value.items() if isinstance(v, int | float)}
                episodes[(str(sample.id), sample.epoch)] = EpisodeScores(
                    scenario=str(sample.id), epoch=sample.epoch, values=values
                )
        header = logs[0][0]
        agent = (header.eval.metadata or {}).get("agent")
        results.append(
            TaskResult(
                variant=variant,
                model=header.eval.model,
                epochs=header.eval.config.epochs or 1,
                episodes=list(episodes.values()),
                agent=AgentRecord.model_validate(agent) if agent else None,
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
