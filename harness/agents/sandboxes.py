"""Where a CLI row's CLI runs, and what it finds there.

- `local`: inspect's local sandbox, that is this host, with the CLI's permissions bypassed:
  for the simulated agent and scripted models, or a real model when asked by name
  (`--local-sandbox`, with a warning). The CLIs come from `make agents` (`.agents/`).
- `docker`: inspect's docker sandbox, one container per episode from the image
  `make agents-image` builds (scripts/agents/Dockerfile: the pinned CLIs, node and rg, and this
  todo-bench for its hook and helper commands); the default for any other model. The container
  has no network (the CLI reaches the model through inspect's bridge, which reaches the
  container through the sandbox itself) and runs as the host's user. It sees one host folder,
  `share_dir()`, at the same path: each episode makes its workspace and its HOME there, so the
  product's record, the journals and the final workspace are read on the host exactly as with
  the local sandbox. The container's own HOME is made a link to the episode's HOME before the
  CLI starts (`CliSandbox.prepare`), because inspect-swe writes the CLI's settings there.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.util import (
    ComposeConfig,
    ComposeService,
    ExecResult,
    SandboxEnvironmentSpec,
    sandbox,
)

from harness._inspect_private import stop_local_sandbox_now
from harness.agents.binaries import binary, tool
from harness.cleanup import SETTLE_WITHIN
from harness.errors import UsageError
from harness.products.product import CliProduct, SandboxKind
from harness.results.provenance import code_hash, project_version

#: the image `make agents-image` builds for this todo-bench version, labelled with the code it
#: was built from (`code_hash`): the hook and helper commands in it must be this run's
IMAGE = f"todo-bench-agents:{project_version()}"
CODE_LABEL = "todo-bench.code"
#: where the image keeps the CLIs (`make agents`' folder layout) and links to their binaries
IMAGE_AGENTS = "/opt/agents"
IMAGE_AGENTS_BIN = f"{IMAGE_AGENTS}/bin"
#: this todo-bench's commands in the image (`todo-bench-hook`, `todo-bench-tool`)
IMAGE_TOOLS_BIN = "/opt/todo-bench/bin"
IMAGE_PATH = f"{IMAGE_AGENTS_BIN}:{IMAGE_TOOLS_BIN}:/usr/local/bin:/usr/bin:/bin"
#: the container's HOME: a link to the episode's HOME, made before the CLI starts
CONTAINER_HOME = "/home/agent"
#: the environment variable naming the host folder the containers share (default below)
SHARE = "TODO_BENCH_SHARE"


def share_dir() -> Path:
    """`TODO_BENCH_SHARE`, else `~/.cache/todo-bench/cli-share`: one fixed folder, so a run's
    sandbox configuration is the same every time it is resumed."""
    named = os.environ.get(SHARE)
    folder = Path(named) if named else Path.home() / ".cache" / "todo-bench" / "cli-share"
    return folder.resolve()


def compose(share: Path) -> ComposeConfig:
    """The docker sandbox of one episode: the image, no network, the host's user, `share` at
    its own path."""
    service = ComposeService.model_validate(
        {
            "image": IMAGE,
            "x-local": True,  # built here by `make agents-image`, never pulled
            "x-default": True,
            "command": ["tail", "-f", "/dev/null"],
            "init": True,
            "network_mode": "none",
            "user": f"{os.getuid()}:{os.getgid()}",
            "working_dir": str(share),
            "environment": {"HOME": CONTAINER_HOME, "PATH": IMAGE_PATH},
            "volumes": [f"{share}:{share}"],
        }
    )
    return ComposeConfig(services={"default": service})


def spec(kind: SandboxKind) -> SandboxEnvironmentSpec:
    """inspect's sandbox for a CLI row."""
    if kind == "local":
        return SandboxEnvironmentSpec("local")
    share = share_dir()
    share.mkdir(parents=True, exist_ok=True)
    return SandboxEnvironmentSpec("docker", compose(share))


@dataclass(frozen=True)
class CliSandbox:
    """What an episode in one kind of sandbox needs to know."""

    kind: SandboxKind

    def scratch(self) -> Path | None:
        """Where the episode makes its workspace and HOME (None: the host's temporary folder)."""
        if self.kind != "docker":
            return None
        share = share_dir()
        share.mkdir(parents=True, exist_ok=True)
        return share

    def search_path(self, product: CliProduct) -> str:
        """The PATH the CLI runs with."""
        return IMAGE_PATH if self.kind == "docker" else host_search_path(product)

    def tools_bin(self) -> Path:
        """Where this todo-bench's commands are, as the CLI sees them."""
        return Path(IMAGE_TOOLS_BIN) if self.kind == "docker" else Path(sys.executable).parent

    @contextlib.contextmanager
    def episode_env(self, env: dict[str, str]) -> Iterator[None]:
        """Local: while open, every command this sample's sandbox runs (inspect-swe's own,
        finding the CLI on PATH, reading `$HOME`, writing the CLI's settings there; the bridge's
        proxy; the CLI) runs with `env` under the command's own (`PATH` in front of this
        process's). The local sandbox otherwise runs them with this process's environment,
        which every episode of the process shares. A container has its own."""
        if self.kind != "local":
            yield
            return
        box = sandbox()
        plain = box.exec
        base = {**env, "PATH": env["PATH"] + os.pathsep + os.environ.get("PATH", "")}

        async def exec(
            cmd: list[str],
            input: str | bytes | None = None,
            cwd: str | None = None,
            env: dict[str, str] | None = None,
            **rest: Any,
        ) -> ExecResult[str]:
            return await plain(cmd, input, cwd, {**base, **(env or {})}, **rest)

        box.exec = exec  # type: ignore[method-assign,assignment]  # this sample's instance only
        try:
            yield
        finally:
            if box.__dict__.get("exec") is exec:  # not if the process is ending (`cut_short`)
                del box.exec  # the class's again

    def cut_short(self, *folders: Path) -> Callable[[bool], None]:
        """What this sample's episode leaves behind if its process ends before the episode's
        own cleanup and inspect's (`harness/cleanup.py`): local, the sandbox's sandbox-tools
        server (a daemon, outside this process's tree, from which the bridge's proxy and the CLI
        hang); when `final`, also the sandbox's folder and `folders`. A container is inspect's
        to remove."""
        box = sandbox() if self.kind == "local" else None

        async def ending(cmd: list[str], *args: Any, **kwargs: Any) -> ExecResult[str]:
            return ExecResult(False, 130, "", "not run: the process is ending (interrupted)")

        def settle(final: bool) -> None:
            try:
                if box is not None:
                    # nothing more runs in the sandbox: a command of the wind-down would start
                    # its sandbox-tools server again, after this stop
                    box.exec = ending  # type: ignore[method-assign]
                    stop_local_sandbox_now(box, SETTLE_WITHIN, remove=final)
            finally:
                for folder in folders if final else ():
                    shutil.rmtree(folder, ignore_errors=True)

        return settle

    async def prepare(self, home: Path) -> None:
        """Docker: the container's HOME becomes a link to the episode's, and the host's user
        gets a name in it (a CLI asking the system who it is must not fail)."""
        if self.kind != "docker":
            return
        script = (
            f'ln -sfn "$1" {CONTAINER_HOME} && (getent passwd "$2" >/dev/null || '
            f'echo "agent:x:$2:$3::{CONTAINER_HOME}:/bin/sh" >> /etc/passwd)'
        )
        ids = [str(os.getuid()), str(os.getgid())]
        done = await sandbox().exec(["/bin/sh", "-c", script, "sh", str(home), *ids], user="root")
        if not done.success:
            raise RuntimeError(f"the docker sandbox could not be prepared: {done.stderr.strip()}")


def host_search_path(product: CliProduct) -> str:
    """The CLI's binary first, then this environment's commands (`todo-bench-tool`), then the
    commands the CLI needs beside it (`binary` checked they are there)."""
    folders = [str(binary(product).parent), str(Path(sys.executable).parent)]
    folders += [str(Path(found).parent) for c in product.requires if (found := tool(c))]
    return os.pathsep.join(dict.fromkeys([*folders, "/usr/bin", "/bin"]))


def check_docker(model: str) -> None:
    """The docker sandbox can start here: docker with compose v2, and the image built; else a
    one-line UsageError saying what to do (`model` is the run's, which todo-bench does not know
    to be scripted)."""
    if shutil.which("docker") is None:
        raise UsageError(
            f"the CLI rows run in the docker sandbox for {model} (a model todo-bench does not "
            "know to be scripted, as sim/ and mockllm/ are), and docker is not on PATH: install "
            "Docker (with compose v2); if it is a scripted model of your own, pass "
            "--local-sandbox to run them on this host (unsafe for a real model)"
        )
    if _output(["docker", "compose", "version"]) is None:
        raise UsageError(
            "the docker sandbox needs docker compose v2 (`docker compose version` failed): "
            "install the compose plugin"
        )
    label = f'{{{{index .Config.Labels "{CODE_LABEL}"}}}}'
    built = _output(["docker", "image", "inspect", "--format", label, IMAGE])
    if built is None:
        raise UsageError(
            f"the docker sandbox's image {IMAGE} is not built: run `make agents-image` in a "
            "checkout of this version (docs/agents.md)"
        )
    if built != code_hash():
        raise UsageError(
            f"the docker sandbox's image {IMAGE} was built from other todo-bench code (code "
            f"{built or 'unknown'}, this is {code_hash()}): its hooks would not be this "
            "run's; run `make agents-image` again"
        )


def _output(command: list[str]) -> str | None:
    """The command's output, stripped, or None if it failed."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None
