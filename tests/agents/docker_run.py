"""A test-only inspect sandbox, `docker-run`: the docker sandbox's compose service
(`harness/agents/sandboxes.py:compose`) run with plain `docker run` / `docker exec`.

inspect's own docker sandbox drives `docker compose` (v2), which this machine kind cannot
install (no compose v2 in Debian 12, no Docker Hub); its Docker engine runs. So the tests run
the same service (image, no network, the host's user, the shared folder at its own path, HOME,
PATH) through this stand-in, and the real CLI, bridge and hooks run in a real container. What
it does not show is compose's own reading of the service, which is inspect's.
"""

from __future__ import annotations

import shlex
from typing import Any, Literal, overload

from inspect_ai.util import (
    ComposeConfig,
    ExecResult,
    SandboxEnvironment,
    SandboxEnvironmentConfigType,
    sandboxenv,
    subprocess,
)
from pydantic import BaseModel


def run_args(config: ComposeConfig) -> list[str]:
    """`docker run` arguments for the config's default service."""
    service = config.services["default"]
    args = ["docker", "run", "-d", "--rm"]
    if service.network_mode:
        args += ["--network", service.network_mode]
    if service.user:
        args += ["--user", service.user]
    if service.init:
        args += ["--init"]
    if service.working_dir:
        args += ["-w", service.working_dir]
    environment = service.environment or {}
    assert isinstance(environment, dict)
    for name, value in environment.items():
        args += ["-e", f"{name}={value}"]
    for volume in service.volumes or []:
        assert isinstance(volume, str)
        args += ["-v", volume]
    command = service.command or []
    assert service.image is not None
    return [*args, service.image, *([command] if isinstance(command, str) else command)]


@sandboxenv(name="docker-run")
class DockerRun(SandboxEnvironment):
    def __init__(self, container: str) -> None:
        super().__init__()
        self.container = container

    @classmethod
    def is_docker_compatible(cls) -> bool:
        return True

    @classmethod
    def config_deserialize(cls, config: dict[str, Any]) -> BaseModel:
        return ComposeConfig.model_validate(config)

    @classmethod
    async def sample_init(
        cls, task_name: str, config: SandboxEnvironmentConfigType | None, metadata: dict[str, str]
    ) -> dict[str, SandboxEnvironment]:
        assert isinstance(config, ComposeConfig), config
        started = await subprocess(run_args(config), timeout=120)
        if not started.success:
            raise RuntimeError(f"docker run failed: {started.stderr}")
        return {"default": cls(started.stdout.strip())}

    @classmethod
    async def sample_cleanup(
        cls,
        task_name: str,
        config: SandboxEnvironmentConfigType | None,
        environments: dict[str, SandboxEnvironment],
        interrupted: bool,
    ) -> None:
        for environment in environments.values():
            if isinstance(environment, DockerRun):
                await subprocess(["docker", "rm", "-f", environment.container], timeout=60)

    async def exec(
        self,
        cmd: list[str],
        input: str | bytes | None = None,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        user: str | None = None,
        timeout: int | None = None,
        timeout_retry: bool = True,
        concurrency: bool = True,
    ) -> ExecResult[str]:
        args = ["docker", "exec", "-i"]
        if cwd:
            args += ["-w", cwd]
        for name, value in (env or {}).items():
            args += ["-e", f"{name}={value}"]
        if user:
            args += ["-u", user]
        return await subprocess([*args, self.container, *cmd], input=input, timeout=timeout)

    async def write_file(self, file: str, contents: str | bytes) -> None:
        data = contents.encode() if isinstance(contents, str) else contents
        quoted = shlex.quote(file)
        script = f'mkdir -p "$(dirname {quoted})" && cat > {quoted}'
        done = await self.exec(["sh", "-c", script], input=data, user="root")
        if not done.success:
            raise PermissionError(done.stderr)

    @overload
    async def read_file(self, file: str, text: Literal[True] = True) -> str: ...

    @overload
    async def read_file(self, file: str, text: Literal[False]) -> bytes: ...

    async def read_file(self, file: str, text: bool = True) -> str | bytes:
        done = await subprocess(
            ["docker", "exec", self.container, "cat", file], text=False, timeout=60
        )
        if not done.success:
            raise FileNotFoundError(file)
        return done.stdout.decode() if text else done.stdout
