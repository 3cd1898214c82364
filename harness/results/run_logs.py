"""A run's inspect logs read back: each variant's scored episodes (`TaskResult`) from its newest
successful logs, and in plain words why a log failed or cannot be read. `harness.stats.aggregate`
turns the episodes into summary.json's numbers."""

from __future__ import annotations

import io
import re
import sys
import zipfile
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log, read_eval_log_sample_summaries

from harness import storage
from harness.results.summary import AgentRecord, EpisodeScores, TaskResult


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
