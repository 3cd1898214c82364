"""Where a CLI row's CLI runs (harness/agents/sandboxes.py): the docker sandbox's service is one
inspect's compose reader takes, with no network, the host's user and the shared folder at its
own path; an episode there makes its workspace and HOME in that folder and gives the CLI the
image's commands. The episode in a real container: tests/agents/test_docker_sandbox.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from inspect_ai.util import ComposeConfig, parse_compose_yaml

from harness.agents.sandboxes import (
    CONTAINER_HOME,
    IMAGE,
    IMAGE_PATH,
    IMAGE_TOOLS_BIN,
    SHARE,
    CliSandbox,
    compose,
    spec,
)
from harness.products.catalog import PRODUCTS
from harness.run.task import build_task


def test_the_docker_service_has_no_network_the_host_s_user_and_the_share_at_its_own_path(
    tmp_path: Path,
) -> None:
    config = compose(tmp_path)
    written = tmp_path / "compose.yaml"  # as inspect writes a ComposeConfig for compose
    dumped = config.model_dump(mode="json", by_alias=True, exclude_none=True)
    written.write_text(yaml.safe_dump(dumped), encoding="utf-8")
    service = parse_compose_yaml(str(written)).services["default"]
    assert service.image == IMAGE and service.network_mode == "none"
    assert service.user == f"{os.getuid()}:{os.getgid()}"
    assert service.volumes == [f"{tmp_path}:{tmp_path}"]
    assert service.environment == {"HOME": CONTAINER_HOME, "PATH": IMAGE_PATH}
    assert dumped["services"]["default"]["x-local"] is True  # built here, never pulled


def test_a_cli_row_s_task_takes_the_sandbox_the_run_chose(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SHARE, str(tmp_path / "share"))
    docker = build_task("cli/claude-code-todowrite", scenarios="main_and_test")
    assert docker.sandbox is not None and docker.sandbox.type == "docker"
    assert isinstance(docker.sandbox.config, ComposeConfig)
    assert (tmp_path / "share").is_dir()  # mounted from the host: it must exist first
    local = build_task("cli/claude-code-todowrite", scenarios="main_and_test", cli_sandbox="local")
    assert local.sandbox is not None and local.sandbox.type == "local"
    assert build_task("L0-rewrite", scenarios="main_and_test").sandbox is None


def test_an_episode_in_docker_works_in_the_share_with_the_image_s_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SHARE, str(tmp_path))
    product = PRODUCTS["cli/claude-code-todowrite"]
    docker, local = CliSandbox("docker"), CliSandbox("local")
    assert docker.scratch() == tmp_path and local.scratch() is None
    assert docker.search_path(product) == IMAGE_PATH
    assert docker.tools_bin() == Path(IMAGE_TOOLS_BIN)
    assert spec("local").type == "local" and spec("docker").type == "docker"
