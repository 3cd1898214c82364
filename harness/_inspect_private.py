"""Every reach into inspect-ai's private modules and internals, in one place (ground floor: any
wing may import it). Checked on inspect-ai 0.3.285; when inspect moves one of these, this module
is the one to change (`tests/test_architecture.py` fails if another harness module imports a
private inspect module).

- `ActiveSample`, `active_samples`, `sample_active` (`inspect_ai.log._samples`): the simulated
  agent reads which sample it is answering (its id and epoch seed its choices, its scenario is
  in its metadata) and which samples are still running (to forget finished ones); inspect's
  public API gives a model provider no handle on the sample it serves.
- `alias_registered` (`inspect_ai._util.registry`): a log records its scorer by its unqualified
  name, and `inspect score` looks it up by that name alone; installed from a wheel the scorer
  registers under the package's name. inspect offers no public call to add an alias.
- `without_provider_imports` (`inspect_ai.model._assistant_internal`): inspect imports its openai
  and anthropic provider modules at every sample's start to reset their per-sample state; a
  sim-only run skips them through inspect's private flags (if they move, it does nothing).
- `tolerate_set_response` (`ModelCall.set_response`, public class, private behaviour): a reply
  nested deeper than pydantic-core serializes fails the whole model call; the wrapper retries
  with the response made serializable, so the reply reaches the loop and its guard.
- `seed_codex_catalog` (inspect-swe's `_codex_cli.agentbinary`, checked on inspect-swe 0.2.72):
  before each Codex CLI run inspect-swe fetches that release's model catalog from
  raw.githubusercontent.com unless its cache holds one; the episode puts inspect-swe's own
  bundled snapshot there (in the episode's HOME), so a run tries no connection but the bridge.
- `seed_gemini_cli` (inspect-swe's `_util.sandbox.SANDBOX_INSTALL_DIR`, checked on inspect-swe
  0.2.72): inspect-swe runs Gemini CLI from its own install folder, and installs it there
  from npm unless the folder's binary answers `--version` with the version asked for; the
  episode links the pinned binary of `make agents` there, so a run downloads nothing.
- `outside_a_sample` (`inspect_ai.model._model.init_active_model`,
  `inspect_ai.log._transcript.init_transcript`): `todo-bench verify` re-runs a solver on a
  recorded transcript outside any eval (an eval would write logs and build the log's model); the
  loop asks `get_model()` for the active model and records into `transcript()`, and inspect sets
  both only inside its own sample runner.
- `quiet_bridge_warning` (the logger of `inspect_ai.agent._bridge.sandbox.service`): the bridge
  logs an exception raised in its filter as a warning with a full traceback before it forwards
  the error to the CLI; an episode raises one on purpose to stop the CLI (a user turn, the
  budget), and that is no failure to show a user.
"""

from __future__ import annotations

import functools
import json
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from inspect_ai._util.registry import _registry, registry_key
from inspect_ai.log._samples import ActiveSample, active_samples, sample_active
from inspect_ai.model import ModelCall

__all__ = [
    "ActiveSample",
    "outside_a_sample",
    "active_samples",
    "alias_registered",
    "sample_active",
    "quiet_bridge_warning",
    "tolerate_set_response",
    "without_provider_imports",
]


def alias_registered(kind: str, name: str, obj: object) -> None:
    """Make `obj` also resolve by the bare `name` in inspect's registry (kept if one is set)."""
    _registry.setdefault(registry_key(kind, name), obj)  # type: ignore[arg-type]


@contextmanager
def without_provider_imports(skip: bool) -> Iterator[None]:
    """While open, and when `skip`, inspect does not import its openai and anthropic provider
    modules at a sample's start; the flags are restored after."""
    from inspect_ai.model import _assistant_internal as internal

    flags = [f for f in ("_HAS_OPENAI", "_HAS_ANTHROPIC") if hasattr(internal, f)]
    saved = {f: getattr(internal, f) for f in flags}
    if skip:
        for flag in flags:
            setattr(internal, flag, False)
    try:
        yield
    finally:
        for flag, value in saved.items():
            setattr(internal, flag, value)


@contextmanager
def outside_a_sample(model: Any) -> Iterator[Any]:
    """While open, `get_model()` is `model` and `transcript()` a fresh one (yielded), as inside
    a sample of an eval; both are restored after."""
    from inspect_ai.log._transcript import Transcript, init_transcript, transcript
    from inspect_ai.model._model import active_model_context_var

    saved_model = active_model_context_var.set(model)
    saved = transcript()
    fresh = Transcript()
    init_transcript(fresh)
    try:
        yield fresh
    finally:
        init_transcript(saved)
        active_model_context_var.reset(saved_model)


def tolerate_set_response(serializable: Callable[[Any], Any]) -> None:
    """Make `ModelCall.set_response` retry with `serializable(response)` when converting the
    response fails with a ValueError (pydantic-core's depth limit), instead of failing the model
    call. A response that converts is recorded as before. Installed once per process."""
    original = ModelCall.set_response
    if getattr(original, "_tolerant", False):
        return

    @functools.wraps(original)
    def set_response(self: ModelCall, response: Any, time: float | None = None) -> None:
        try:
            original(self, response, time)
        except ValueError:  # pydantic-core's depth limit
            original(self, serializable(response), time)

    set_response._tolerant = True  # type: ignore[attr-defined]
    ModelCall.set_response = set_response  # type: ignore[method-assign]


def seed_codex_catalog(version: str) -> None:
    """Put inspect-swe's bundled Codex model catalog in its cache for `version` (where the
    current HOME's cache is), unless a catalog is there already (imported here: only a Codex
    episode needs inspect-swe)."""
    from inspect_swe._codex_cli._bundled_catalog import BUNDLED_CODEX_CATALOG
    from inspect_swe._codex_cli.agentbinary import _cached_catalog_path

    path = _cached_catalog_path(version)
    if not path.exists():
        path.write_text(json.dumps(BUNDLED_CODEX_CATALOG), encoding="utf-8")


def seed_gemini_cli(binary: Path) -> None:
    """Link Gemini CLI's `binary` (its `gemini.js`) where inspect-swe looks for an installed
    Gemini CLI before it installs one (imported here: only a Gemini CLI episode needs
    inspect-swe). The link is replaced atomically: another episode may be reading it."""
    from inspect_swe._util.sandbox import SANDBOX_INSTALL_DIR

    link = Path(SANDBOX_INSTALL_DIR) / "gemini-cli" / "node_modules" / ".bin" / "gemini"
    if link.is_symlink() and link.resolve() == binary.resolve():
        return
    link.parent.mkdir(parents=True, exist_ok=True)
    fresh = link.with_name(f".gemini-{os.getpid()}")
    fresh.unlink(missing_ok=True)
    fresh.symlink_to(binary.resolve())
    fresh.replace(link)


#: the logger of inspect's sandbox agent bridge service (its module's name)
BRIDGE_SERVICE_LOGGER = "inspect_ai.agent._bridge.sandbox.service"


class _Expected(logging.Filter):
    def __init__(self, expected: type[BaseException]) -> None:
        super().__init__()
        self.expected = expected

    def filter(self, record: logging.LogRecord) -> bool:
        raised = record.exc_info[1] if record.exc_info else None
        return not isinstance(raised, self.expected)


def quiet_bridge_warning(expected: type[BaseException]) -> None:
    """Drop the bridge's warning (and traceback) for an `expected` exception raised in its
    filter; any other still shows. Installed once per type."""
    logger = logging.getLogger(BRIDGE_SERVICE_LOGGER)
    if not any(isinstance(f, _Expected) and f.expected is expected for f in logger.filters):
        logger.addFilter(_Expected(expected))
