"""A published board's episodes kept beside it (`harness/results/kept.py`), and its summary
rebuilt from them with today's scorer: `todo-bench rescore FOLDER` on a folder that has
summary.json and episodes.json.gz but no logs."""

from __future__ import annotations

from typing import Any

from inspect_ai.log import list_eval_logs, read_eval_log

from harness import storage
from harness._inspect_private import sample_stores
from harness.episode.ledger import Ledger
from harness.errors import UsageError
from harness.results.kept import KeptEpisode, KeptRun, read_kept
from harness.results.summary import EpisodeScores, Price, Summary, TaskResult
from harness.scoring.scorer import detect
from harness.suite.checks import CheckResult
from harness.suite.scenario import load_scenarios


def kept_of_logs(logs: str, results: list[TaskResult], price: Price | None) -> KeptRun:
    """The scored episodes of `results` (as `read_run` chose them) from the run's logs, the
    newest log's where an episode is in two."""
    wanted = {(r.variant, e.scenario, e.epoch) for r in results for e in r.episodes}
    found: dict[tuple[str, str, int], KeptEpisode] = {}
    headers = []
    for info in list_eval_logs(logs, recursive=True):
        header = read_eval_log(info.name, header_only=True)
        if header.status == "success":
            variant = str((header.eval.metadata or {}).get("variant", header.eval.task_id))
            headers.append((header.eval.created, info.name, variant))
    for _, name, variant in sorted(headers, reverse=True):  # newest first
        for scenario, epoch, store in _stores(name):
            key = (variant, scenario, epoch)
            if key not in wanted or key in found:
                continue
            found[key] = KeptEpisode(
                variant=variant,
                scenario=scenario,
                epoch=epoch,
                ledger_json=str(store.get("EpisodeRecord:ledger_json") or ""),
                checks=list(store.get("EpisodeRecord:checks") or []),
                task_state=dict(store.get("EpisodeRecord:task_state") or {}),
            )
    missing = sorted(wanted - set(found))
    if missing:
        raise UsageError(f"{logs}: the logs lack {len(missing)} scored episodes ({missing[0]})")
    return KeptRun(price=price, episodes=list(found.values()))


def _stores(name: str) -> list[tuple[str, int, dict[str, Any]]]:
    """Each sample's id, epoch and store in a log: read from its bytes where it is an `.eval`
    log (`sample_stores`), else through inspect."""
    stores = sample_stores(storage.read_bytes(name)) if name.endswith(".eval") else None
    if stores is not None:
        return stores
    log = read_eval_log(name)
    return [(str(s.id), s.epoch, dict(s.store)) for s in log.samples or []]


def rescore_kept(folder: str, summary: Summary) -> Summary:
    """The folder's summary rebuilt from its kept episodes with today's scorer; every other
    part of the summary (its model, seed, provenance, agents, problems, a sequential run's
    looks) is the published one's."""
    from harness.stats.aggregate import summarize
    from harness.versions import TASK_VERSION

    kept = read_kept(folder)
    scenarios = {s.id: s for s in load_scenarios()}
    by_variant: dict[str, list[EpisodeScores]] = {}
    for episode in kept.episodes:
        scenario = scenarios.get(episode.scenario)
        if scenario is None:
            raise UsageError(f"{folder}: episode of an unknown scenario {episode.scenario!r}")
        try:
            ledger = Ledger.model_validate_json(episode.ledger_json)
            checks = [CheckResult.model_validate(c) for c in episode.checks]
        except ValueError as error:
            raise UsageError(
                f"{folder}: {episode.variant} {episode.scenario} epoch {episode.epoch}: not a "
                f"ledger ({type(error).__name__})"
            ) from error
        counts = detect(ledger, scenario, checks)
        by_variant.setdefault(episode.variant, []).append(
            EpisodeScores(scenario=episode.scenario, epoch=episode.epoch, values=counts.values)
        )
    agents = {v.variant: v.agent for v in summary.variants}
    results = [
        TaskResult(
            variant=variant,
            model=summary.model,
            epochs=summary.epochs,
            episodes=episodes,
            agent=agents.get(variant),
        )
        for variant, episodes in by_variant.items()
    ]
    again = summarize(
        results,
        seed=summary.seed,
        price=kept.price,
        provenance=summary.provenance.model_copy(update={"task_version": TASK_VERSION}),
        problems=summary.problems,
    )
    return again.model_copy(update={"sequential": summary.sequential})
