"""Every reach into inspect-ai's and inspect-swe's private modules and internals, in one place
(ground floor: any wing may import it). Checked on the releases in `TESTED`, which
pyproject.toml allows and no newer; when inspect moves one of these, this module is the one to
change (`tests/test_architecture.py` fails if another harness module imports a private inspect
module). Each private name is declared in `REACHES` and imported only when first used
(`reach`): a moved one fails the command that needs it in one line naming the installed and the
tested release, never an import of todo-bench (a run checks its model's first:
`run/preflight.py`). `python -m harness._inspect_private` says which still hold (`make
inspect-newest` runs it against the newest releases the registry serves).

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
  bundled snapshot there (inspect-swe's cache on this host, where one is not there already; it
  is the catalog inspect-swe itself uses when the fetch fails), so a run tries no connection
  but the bridge.
- `seed_sandbox_install` (inspect-swe's `_util.sandbox.SANDBOX_INSTALL_DIR`, checked on
  inspect-swe 0.2.72): inspect-swe runs some CLIs (Gemini CLI) from its own install folder, and
  installs one there from npm unless the folder's binary answers `--version` with the version
  asked for; the episode links the pinned binary of `make agents` there (where in the folder:
  its runner's `install_link`), so a run downloads nothing.
- `bridge_port_key` (the `MODEL_PORT` string in the module of each inspect-swe CLI agent,
  checked on inspect-swe 0.2.72): inspect-swe serves a sample's CLI runs on consecutive local
  ports counted under a key of the sample store, from 3001 for every sample; an episode starts
  that count at its own block of ports (`agents/bridge_ports.py`), so that episodes run side by
  side. The key is read from the agent's module, so a new product's agent needs no line here.
- `store_keys` (`StoreModel`'s naming of its fields in the sample store, not documented):
  the scorer reads an episode's record from the store as it is, without binding the model (a
  pydantic adapter per field per read); the names are taken from what a `StoreModel` writes
  into a scratch store, and a reader falls back to binding the model where they are absent.
- `stop_local_sandbox_now` (`inspect_ai.util._sandbox.local.LocalSandboxEnvironment`, its
  tools folder and `_SANDBOX_TOOLS_DIR_ENV`; `inspect_ai.util._sandbox._cli.SANDBOX_CLI`):
  the local sandbox starts inspect's sandbox-tools server as a daemon (the bridge's model
  proxy and the CLI hang from it) and stops it in its async sample cleanup, which a process cut
  short by Ctrl-C does not reach; a CLI episode's process stops it the same way (the tools'
  `stop-server`), synchronously, as it ends (`harness/cleanup.py`).
- `outside_a_sample` (`inspect_ai.model._model.init_active_model`,
  `inspect_ai.log._transcript.init_transcript`): `todo-bench verify` re-runs a solver on a
  recorded transcript outside any eval (an eval would write logs and build the log's model); the
  loop asks `get_model()` for the active model and records into `transcript()`, and inspect sets
  both only inside its own sample runner.
- `sample_stores` (the `.eval` log's layout, not a documented interface, checked on
  inspect-ai 0.3.285): a finished run keeps each episode's record (three values of its sample's
  store) for `rescore`; reading them through `read_eval_log` validated every event and message
  of every sample, about 9x the CPU of reading the `samples/` members of the log's zip as plain
  JSON (1.7 s of a 10 s `make bench`). Where a log is not such a zip or a member lacks a field,
  it answers None and the caller reads the log through inspect.
- `quiet_bridge_warning` (the logger of `inspect_ai.agent._bridge.sandbox.service`): the bridge
  logs an exception raised in its filter as a warning with a full traceback before it forwards
  the error to the CLI; an episode raises one on purpose to stop the CLI (a user turn, the
  budget), and that is no failure to show a user.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import io
import json
import logging
import os
import re
import subprocess
import zipfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspect_ai.model import ModelCall
from inspect_ai.tool import ToolInfo
from inspect_ai.util import Store, StoreModel

from harness.errors import UsageError

if TYPE_CHECKING:
    from inspect_ai.log._samples import ActiveSample

__all__ = [
    "ActiveSample",
    "REACHES",
    "TESTED",
    "InspectMoved",
    "SharedToolInfo",
    "outside_a_sample",
    "active_samples",
    "alias_registered",
    "bridge_port_key",
    "reach",
    "sample_active",
    "sample_stores",
    "quiet_bridge_warning",
    "stop_local_sandbox_now",
    "tolerate_set_response",
    "without_provider_imports",
]

#: the releases every reach below was checked on (pyproject.toml allows these and no newer:
#: `make inspect-newest` checks the newest the registry serves before a bound is widened)
TESTED = {"inspect-ai": "0.3.285", "inspect-swe": "0.2.72"}


@dataclass(frozen=True)
class Reach:
    """One private name todo-bench imports: its package, module and attribute."""

    package: str
    module: str
    name: str

    @property
    def path(self) -> str:
        return f"{self.module}.{self.name}"


#: every private module todo-bench imports from, each imported only when first used (a run
#: whose reaches moved fails where it needs one, in one line, not at start-up)
REACHES: tuple[Reach, ...] = (
    Reach("inspect-ai", "inspect_ai._util.registry", "_registry"),
    Reach("inspect-ai", "inspect_ai._util.registry", "registry_key"),
    Reach("inspect-ai", "inspect_ai.log._samples", "active_samples"),
    Reach("inspect-ai", "inspect_ai.log._samples", "sample_active"),
    Reach("inspect-ai", "inspect_ai.model._assistant_internal", "_HAS_OPENAI"),
    Reach("inspect-ai", "inspect_ai.log._transcript", "init_transcript"),
    Reach("inspect-ai", "inspect_ai.log._transcript", "Transcript"),
    Reach("inspect-ai", "inspect_ai.log._transcript", "transcript"),
    Reach("inspect-ai", "inspect_ai.model._model", "active_model_context_var"),
    Reach("inspect-swe", "inspect_swe._codex_cli._bundled_catalog", "BUNDLED_CODEX_CATALOG"),
    Reach("inspect-swe", "inspect_swe._codex_cli.agentbinary", "_cached_catalog_path"),
    Reach("inspect-swe", "inspect_swe._util.sandbox", "SANDBOX_INSTALL_DIR"),
    Reach("inspect-ai", "inspect_ai.util._sandbox._cli", "SANDBOX_CLI"),
    Reach("inspect-ai", "inspect_ai.util._sandbox.local", "LocalSandboxEnvironment"),
)


@dataclass(frozen=True)
class PortKey:
    """The sample-store key an inspect-swe CLI agent counts its bridge ports under, a string
    its module's source holds."""

    module: str
    key: str
    package: str = "inspect-swe"

    @property
    def path(self) -> str:
        return f"{self.module} store key {self.key}"


class InspectMoved(UsageError):
    """A private name todo-bench reaches is gone from the installed inspect-ai or inspect-swe."""


def installed(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def reach(path: str) -> Any:
    """The private `module.name` declared in REACHES, imported now; InspectMoved (one line,
    naming the installed and the tested release) when this release has moved it."""
    found = next((r for r in REACHES if r.path == path), None)
    assert found is not None, f"{path} is not declared in REACHES"
    try:
        return getattr(importlib.import_module(found.module), found.name)
    except (ImportError, AttributeError):
        package = found.package
        raise InspectMoved(
            f"{package} {installed(package)} has no {path}, which todo-bench uses (tested with "
            f"{package} {TESTED[package]}): pip install '{package}=={TESTED[package]}'"
        ) from None


#: how an inspect-swe CLI agent's module names its bridge's port key
_MODEL_PORT = re.compile(r'\bMODEL_PORT\s*=\s*"(\w+)"')


def port_key(agent: str) -> PortKey:
    """Where inspect-swe's `agent` (`inspect_swe.<agent>`) keeps its bridge's port key: the
    module that defines it (by inspect-swe's layout, `inspect_swe._<agent>.<agent>`, where the
    package does not name it)."""
    try:
        module = getattr(importlib.import_module("inspect_swe"), agent).__module__
    except (ImportError, AttributeError):
        module = f"inspect_swe._{agent}.{agent}"
    return PortKey(module, "MODEL_PORT")


@functools.cache
def bridge_port_key(agent: str) -> str:
    """The store key inspect-swe's `agent` counts its bridge ports under; InspectMoved (one
    line) when this release's source of that agent no longer declares one."""
    found = port_key(agent)
    try:
        source = inspect.getsource(importlib.import_module(found.module))
    except (ImportError, OSError, TypeError):
        source = ""
    keys = set(_MODEL_PORT.findall(source))
    if len(keys) != 1:
        package = found.package
        raise InspectMoved(
            f"{package} {installed(package)} no longer declares the sample-store key {agent} "
            f"counts its bridge ports under ({found.module} MODEL_PORT; tested with {package} "
            f"{TESTED[package]}): CLI episodes cannot be given ports of their own; pip install "
            f"'{package}=={TESTED[package]}'"
        )
    return str(keys.pop())


def require(*paths: str) -> None:
    """InspectMoved now (one line) if any of these reaches is gone: a run checks the ones its
    model needs before it starts, rather than failing inside every sample."""
    for path in paths:
        reach(path)


#: the reaches the simulated agent needs in every sample
SIM_REACHES = ("inspect_ai.log._samples.active_samples", "inspect_ai.log._samples.sample_active")


def moved(agents: Iterable[str] = ()) -> list[tuple[Reach | PortKey, str]]:
    """Each reach the installed releases no longer have, with the reason (the bridge port
    keys of inspect-swe's `agents` among them)."""
    gone: list[tuple[Reach | PortKey, str]] = []
    for item in REACHES:
        try:
            reach(item.path)
        except InspectMoved as error:
            gone.append((item, str(error)))
    for agent in agents:
        try:
            bridge_port_key(agent)
        except InspectMoved as error:
            gone.append((port_key(agent), str(error)))
    return gone


@functools.cache
def store_keys(model: type[StoreModel]) -> dict[str, str]:
    """Each field of `model` by the sample-store key a `StoreModel` keeps it under, as one
    built on a scratch store writes them (no instance name)."""
    scratch = Store()
    model(store=scratch)
    fields = set(model.model_fields) - {"store", "instance"}
    found = {key.rsplit(":", 1)[-1]: key for key, _ in scratch.items()}
    return {name: found[name] for name in fields if name in found}


def active_samples() -> list[ActiveSample]:
    """The samples of the running eval that are still running."""
    return list(reach("inspect_ai.log._samples.active_samples")())


def sample_active() -> ActiveSample | None:
    """The sample the current task serves (None outside an eval)."""
    found: ActiveSample | None = reach("inspect_ai.log._samples.sample_active")()
    return found


def alias_registered(kind: str, name: str, obj: object) -> None:
    """Make `obj` also resolve by the bare `name` in inspect's registry (kept if one is set).
    Where this inspect moved its registry, nothing is aliased: the alias only serves `inspect
    score` on a log of a wheel install, and `python -m harness._inspect_private` says it moved."""
    try:
        registry = reach("inspect_ai._util.registry._registry")
        key = reach("inspect_ai._util.registry.registry_key")
    except InspectMoved:
        return
    registry.setdefault(key(kind, name), obj)


class SharedToolInfo(ToolInfo):
    """A tool schema inspect need not copy: inspect deep-copies every schema on every model
    call (twice) so that providers and hooks may change them; for a provider that says it only
    reads them (the simulated agent), that was the largest per-turn cost of a sim run. (If
    inspect stops copying, this changes nothing.)"""

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> SharedToolInfo:
        return self


@contextmanager
def without_provider_imports(skip: bool) -> Iterator[None]:
    """While open, and when `skip`, inspect does not import its openai and anthropic provider
    modules at a sample's start; the flags are restored after."""
    try:  # an optimisation: where inspect moved it, the imports happen as inspect wants
        internal: Any = importlib.import_module("inspect_ai.model._assistant_internal")
    except ImportError:
        internal = None
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
    Transcript = reach("inspect_ai.log._transcript.Transcript")
    init_transcript = reach("inspect_ai.log._transcript.init_transcript")
    transcript = reach("inspect_ai.log._transcript.transcript")
    active_model_context_var = reach("inspect_ai.model._model.active_model_context_var")
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


def seed_codex_catalog(release: str) -> None:
    """Put inspect-swe's bundled Codex model catalog in its cache for `release`, unless a
    catalog is there already (imported here: only a Codex episode needs inspect-swe)."""
    catalog = reach("inspect_swe._codex_cli._bundled_catalog.BUNDLED_CODEX_CATALOG")
    path = reach("inspect_swe._codex_cli.agentbinary._cached_catalog_path")(release)
    if not path.exists():
        path.write_text(json.dumps(catalog), encoding="utf-8")


def seed_sandbox_install(relative: str, binary: Path) -> None:
    """Link a CLI's pinned `binary` at `relative` in inspect-swe's own install folder, where
    inspect-swe looks for an installed CLI before it installs one (imported here: only such a
    product's episode needs inspect-swe). The link is replaced atomically: another episode may
    be reading it."""
    link = Path(reach("inspect_swe._util.sandbox.SANDBOX_INSTALL_DIR")) / relative
    if link.is_symlink() and link.resolve() == binary.resolve():
        return
    link.parent.mkdir(parents=True, exist_ok=True)
    fresh = link.with_name(f".{link.name}-{os.getpid()}")
    fresh.unlink(missing_ok=True)
    fresh.symlink_to(binary.resolve())
    fresh.replace(link)


#: where an `.eval` log keeps its samples, one JSON member each
_SAMPLE_MEMBER = re.compile(r"^samples/[^/]+\.json$")


def sample_stores(data: bytes) -> list[tuple[str, int, dict[str, Any]]] | None:
    """Each sample's id, epoch and store, read from an `.eval` log's bytes as plain JSON
    (without inspect's models); None where the bytes are no such log or a sample member lacks
    one of them (the caller then reads the log through inspect)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            found = []
            for member in archive.namelist():
                if not _SAMPLE_MEMBER.match(member):
                    continue
                sample = json.loads(archive.read(member))
                if not isinstance(sample, dict) or not isinstance(sample.get("store"), dict):
                    return None
                if "id" not in sample or not isinstance(sample.get("epoch"), int):
                    return None
                found.append((str(sample["id"]), sample["epoch"], sample["store"]))
            return found
    except (zipfile.BadZipFile, ValueError, KeyError):
        return None


def stop_local_sandbox_now(box: object, timeout: float, remove: bool) -> None:
    """For a process ending before inspect's sample cleanup: stop the sandbox-tools server of
    the local sandbox `box` as that cleanup does (`stop-server` with the sandbox's tools
    folder); with `remove`, then remove the sandbox's folder. Synchronous; any other sandbox:
    nothing."""
    local = reach("inspect_ai.util._sandbox.local.LocalSandboxEnvironment")
    if not isinstance(box, local):
        return
    tools = Path(box._sandbox_tools_dir)
    try:
        if tools.exists():
            env = {**os.environ, local._SANDBOX_TOOLS_DIR_ENV: str(tools)}
            command = [reach("inspect_ai.util._sandbox._cli.SANDBOX_CLI"), "stop-server"]
            subprocess.run(command, env=env, cwd="/", capture_output=True, timeout=timeout)
    finally:
        if remove:
            box.directory.cleanup()


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


def report(agents: Iterable[str] = ()) -> str:
    """Each reach (the bridge port keys of inspect-swe's `agents` among them), and whether the
    installed inspect-ai and inspect-swe still have it."""
    gone = {item.path: why for item, why in moved(agents)}
    lines = [f"{package} {installed(package)} (tested: {TESTED[package]})" for package in TESTED]
    every: list[Reach | PortKey] = [*REACHES, *map(port_key, agents)]
    lines += [f"  {'gone' if r.path in gone else 'holds'}: {r.path}" for r in every]
    lines.append(f"{len(every) - len(gone)} of {len(every)} reaches hold")
    return "\n".join(lines)


if __name__ == "__main__":
    # `python -m harness._inspect_private [AGENT ...]`: exit 1 when one moved; the agents are
    # inspect-swe's names of the CLIs whose bridge port keys to check (scripts/inspect_newest.py
    # names the products')
    import sys

    print(report(sys.argv[1:]))
    sys.exit(1 if moved(sys.argv[1:]) else 0)
