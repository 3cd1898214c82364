"""Who holds a port: the process by pid and command, read from /proc, and how to end that one
process; never a `pkill -f` that would end other people's runs on a shared machine."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from harness.agents.bridge_ports import BridgePortTaken, check_port_free
from harness.ports import Holder, holders, who_holds

HOLD = (
    "import socket, sys, time; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); "
    "print(s.getsockname()[1], flush=True); time.sleep(60)"
)


@pytest.fixture
def held() -> Iterator[tuple[int, subprocess.Popen[str]]]:
    process = subprocess.Popen([sys.executable, "-c", HOLD], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    port = int(process.stdout.readline())
    try:
        yield port, process
    finally:
        process.kill()
        process.wait()


def test_the_process_holding_a_port_is_named_by_pid_and_command(
    held: tuple[int, subprocess.Popen[str]],
) -> None:
    port, process = held
    (holder,) = holders(port) or []
    assert holder == Holder(process.pid, f"{sys.executable} -c {HOLD}")
    clause = who_holds(port)
    assert f"pid {process.pid} ({sys.executable} -c import socket" in clause
    assert f"`kill {process.pid}`" in clause and "pkill" not in clause


def test_the_bridge_port_refusal_names_the_holder_not_pkill(
    held: tuple[int, subprocess.Popen[str]],
) -> None:
    port, process = held
    with pytest.raises(BridgePortTaken) as refused:
        check_port_free(port)
    # 691d616 suggested `pkill -f 'inspect-sandbox-tools model_proxy'`
    assert f"pid {process.pid}" in str(refused.value) and "pkill" not in str(refused.value)


def test_a_free_port_has_no_holder() -> None:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    assert holders(port) is None
    check_port_free(port)


def test_a_port_this_process_holds_is_named_too() -> None:
    # reading a process's own fds lists the listing's fd, closed before it is read: 1 fd gone
    # must not hide the others
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    try:
        (found,) = holders(holder.getsockname()[1]) or []
        assert found.pid == os.getpid()
    finally:
        holder.close()
