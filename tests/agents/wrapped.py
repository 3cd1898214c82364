"""Install folders whose CLI binary is a wrapper, for the agents' tests: a stand-in script that
crashes or hangs (test_cli_failures.py), or the real binary under strace, which checks that an
episode reaches nothing but the bridge (the heavy oracle episodes of test_real_cli.py and
test_real_rewrites.py)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog

from harness._inspect_private import bridge_port_key
from harness.agents.binaries import AGENTS_DIR, agents_dir, binary, installed_version
from harness.agents.bridge_ports import BRIDGE_PORT, WIDTH
from harness.products.catalog import PRODUCTS, RUNNERS
from harness.products.product import CliProduct

#: one row per CLI: the switches that silence a product are the same on all its rows
ONE_PER_CLI = list({p.cli: p for p in reversed(list(PRODUCTS.values())) if not p.hooks}.values())
LOOPBACK = ("127.0.0.1", "::1", "::ffff:127.0.0.1")
_ADDRESS = re.compile(
    r"(connect|sendto)\(\d+, .*?sa_family=AF_INET6?, sin6?_port=htons\((\d+)\), "
    r'(?:sin_addr=inet_addr\("([^"]+)"\)|.*?inet_pton\(AF_INET6, "([^"]+)")'
)


def wrapper_install(
    product: CliProduct, folder: Path, script: str, version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Point the episode's CLI install (`AGENTS_DIR`) at `folder`, whose binary of `product` is
    the shell `script`, in an install that reports `version`."""
    manifest = folder / "node_modules" / product.package / "package.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(json.dumps({"version": version}))
    wrapper = folder / product.binary
    wrapper.parent.mkdir(parents=True, exist_ok=True)
    if wrapper.suffix == ".js":
        # a node script (Gemini CLI's `gemini.js`): inspect-swe runs it by node too (`node
        # gemini.js --version`), so the wrapper is one that runs the shell script
        wrapper.write_text(
            "#!/usr/bin/env node\n"
            'const { spawnSync } = require("node:child_process");\n'
            f"const ran = spawnSync('/bin/sh', ['-c', {json.dumps(script)}, 'sh', "
            "...process.argv.slice(2)], { stdio: 'inherit' });\n"
            "process.exit(ran.status ?? 1);\n"
        )
    else:
        wrapper.write_text("#!/bin/sh\n" + script)
    wrapper.chmod(0o755)
    brought = agents_dir() / "tools"  # what `make agents` brought beside the CLIs (rg, node)
    if brought.is_dir() and not (folder / "tools").exists():
        (folder / "tools").symlink_to(brought.resolve())
    monkeypatch.setenv(AGENTS_DIR, str(folder))


def reached(trace: str) -> list[tuple[str, int]]:
    """Every internet address the traced processes connected or sent to, in order."""
    found = []
    for match in _ADDRESS.finditer(trace):
        port, address = int(match.group(2)), match.group(3) or match.group(4)
        found.append((address, port))
    return found


class NetworkTrace:
    """The real binary of `product` run under `strace -f` (the CLI and every child it starts;
    a resumed session's second process too) for the episodes that follow; where strace is
    missing, the binary runs as it is and `check` skips the test, saying so."""

    def __init__(self, product: CliProduct, folder: Path, monkeypatch: pytest.MonkeyPatch):
        self.product = product
        self.log = folder / "connect.trace"
        self.available = shutil.which("strace") is not None
        if self.available:
            # seccomp-bpf stops the CLI only at the traced calls, not at every system call
            wrapper_install(
                product,
                folder / "agents",
                f"exec strace -f --seccomp-bpf -qq -e trace=connect,sendto,sendmsg "
                f'-o "{self.log}.$$" "{binary(product)}" "$@"\n',
                installed_version(product) or product.version,
                monkeypatch,
            )

    def check(self, *logs: EvalLog) -> None:
        """Every connect and sendto of the traced episodes (those of `logs`) was to the bridge:
        a loopback port of one of the CLI's runs, from the start of the episode's own block of
        ports to the last port inspect-swe counted in its sample store."""
        if not self.available:
            pytest.skip(
                "strace is not installed (.ci/run installs it from Debian): the episode passed, "
                f"its no-network half through {self.product.cli} was not checked"
            )
        traces = sorted(self.log.parent.glob(self.log.name + ".*"))
        assert traces, "the CLI never ran under strace"
        addresses = [a for t in traces for a in reached(t.read_text(encoding="utf-8"))]
        assert addresses, "no connection to the bridge either: the trace saw nothing"
        key = bridge_port_key(RUNNERS[self.product.cli].inspect_agent)
        lasts = [int(s.store[key]) for log in logs for s in log.samples or []]
        assert lasts, "no episode of the logs counted a bridge port"
        ports = {p for last in lasts for p in range(_block_start(last), last + 1)}
        bridge = {(host, port) for host in LOOPBACK for port in ports}
        elsewhere = sorted({a for a in addresses if a not in bridge})
        assert elsewhere == [], f"reached beside the bridge: {elsewhere}"


def _block_start(port: int) -> int:
    """The first port of the block `port` is in (an episode's first run is served there)."""
    return BRIDGE_PORT + (port - BRIDGE_PORT) // WIDTH * WIDTH
