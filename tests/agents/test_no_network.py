"""A shipping CLI, run with the product's own switches, reaches nothing but the bridge: every
`connect` and `sendto` of the CLI's processes (strace, following forks) is to the bridge's
loopback port. A name lookup, telemetry, an update check or an error report would show as a
connection to a resolver or a remote address.

Heavy (one real CLI episode per product); skips where the CLIs (`make agents`) or strace
(.ci/run installs it) are missing."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from inspect_ai import eval

from harness.agents.install import AGENTS_DIR, AgentMissing, binary, installed_version
from harness.agents.turns import BRIDGE_PORT
from harness.run.task import build_task
from harness.todo.clis import PRODUCTS, CliProduct

#: one row per CLI: the switches that silence a product are the same on all its rows
ONE_PER_CLI = list({p.cli: p for p in reversed(list(PRODUCTS.values())) if not p.hooks}.values())
#: the bridge inspect serves the CLI's model traffic on (inspect-swe's sandbox-local port)
BRIDGE = {(host, BRIDGE_PORT) for host in ("127.0.0.1", "::1", "::ffff:127.0.0.1")}
_ADDRESS = re.compile(
    r"(connect|sendto)\(\d+, .*?sa_family=AF_INET6?, sin6?_port=htons\((\d+)\), "
    r'(?:sin_addr=inet_addr\("([^"]+)"\)|.*?inet_pton\(AF_INET6, "([^"]+)")'
)


def reached(trace: str) -> list[tuple[str, int]]:
    """Every internet address the traced processes connected or sent to, in order."""
    found = []
    for match in _ADDRESS.finditer(trace):
        port, address = int(match.group(2)), match.group(3) or match.group(4)
        found.append((address, port))
    return found


def test_reached_reads_strace_lines() -> None:
    trace = "\n".join(
        [
            '12 connect(5, {sa_family=AF_INET, sin_port=htons(3001), sin_addr=inet_addr("127.0.0.1")}, 16) = 0',  # noqa: E501
            '13 connect(7, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2607:6bc0::10", &sin6_addr), sin6_scope_id=0}, 28) = -1 ENETUNREACH',  # noqa: E501
            '14 sendto(9, "x", 1, 0, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.255.255.53")}, 16) = 1',  # noqa: E501
            '15 connect(4, {sa_family=AF_UNIX, sun_path="/tmp/x.sock"}, 110) = 0',  # noqa: E501
        ]
    )
    assert reached(trace) == [("127.0.0.1", 3001), ("2607:6bc0::10", 443), ("10.255.255.53", 53)]


def _traced_install(product: CliProduct, folder: Path, log: Path) -> None:
    """An install folder whose binary is the real one under strace."""
    real = binary(product)
    manifest = folder / "node_modules" / product.package / "package.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(json.dumps({"version": installed_version(product)}))
    wrapper = folder / product.binary
    wrapper.parent.mkdir(parents=True, exist_ok=True)
    wrapper.write_text(
        "#!/bin/sh\n"
        f'exec strace -f -qq -e trace=connect,sendto,sendmsg -o "{log}.$$" "{real}" "$@"\n'
    )
    wrapper.chmod(0o755)


@pytest.mark.heavy
@pytest.mark.xdist_group("cli-agents")
@pytest.mark.parametrize("product", ONE_PER_CLI, ids=lambda p: p.cli)
def test_a_cli_episode_reaches_nothing_but_the_bridge(
    product: CliProduct, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    try:
        binary(product)
    except AgentMissing as missing:
        pytest.skip(f"{missing} (CI runs make agents first)")
    if shutil.which("strace") is None:
        pytest.skip("strace is not installed (.ci/run installs it from Debian)")
    log = tmp_path / "connect.trace"
    _traced_install(product, tmp_path / "agents", log)
    monkeypatch.setenv(AGENTS_DIR, str(tmp_path / "agents"))
    task = build_task(variant=product.name, scenarios="main_and_test")
    (result,) = eval(task, model="sim/oracle", display="none", log_dir=str(tmp_path / "logs"))
    assert result.status == "success", result.error
    traces = sorted(tmp_path.glob("connect.trace.*"))
    assert traces, "the CLI never ran under strace"
    addresses = [a for t in traces for a in reached(t.read_text(encoding="utf-8"))]
    assert addresses, "no connection to the bridge either: the trace saw nothing"
    assert {a for a in addresses if a not in BRIDGE} == set()
