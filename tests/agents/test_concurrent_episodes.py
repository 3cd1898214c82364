"""Shipping-agent episodes side by side never cross (issue 59): two products' rows in two worker
processes, two episodes at once in each (four CLIs on four blocks of bridge ports). Each
episode's counts equal the simulated agent's own record of its faults, episodes that overlapped
in time held different blocks; Ctrl-C with the four running leaves no process of the run and
no bound bridge port, and the same command then resumes to the uninterrupted run's summary,
byte for byte. Heavy: about 2 minutes."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog, EvalSample, read_eval_log

from harness._inspect_private import bridge_port_key
from harness.agents.binaries import AgentMissing, binary
from harness.agents.bridge_ports import BLOCKS, BRIDGE_PORT, WIDTH, block_ports, lock_path
from harness.ports import holders
from harness.products.catalog import PRODUCTS, RUNNERS
from harness.run import terminate
from tests.helpers import ROOT
from tests.models.sim.test_sim import check_fault_record
from tests.run.test_interrupt import members

ROWS = ["cli/claude-code-todowrite", "cli/codex"]
pytestmark = [pytest.mark.heavy]
for _row in ROWS:
    try:
        binary(PRODUCTS[_row])
    except AgentMissing as missing:
        pytestmark.append(pytest.mark.skip(reason=f"{missing} (CI runs make agents first)"))
        break

ARGS = ["--model", "sim/sloppy", "--variants", ",".join(ROWS)]
ARGS += ["--scenarios", "near_duplicates,main_and_test", "--epochs", "1", "--seed", "0"]
ARGS += ["--workers", "2", "--max-samples", "2", "--display", "none"]


def command(out: Path) -> list[str]:
    return [sys.executable, "-m", "harness.commands", "run", *ARGS, "--out", str(out)]


def run(out: Path) -> None:
    done = subprocess.run(command(out), capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]


def logs(out: Path) -> list[EvalLog]:
    found = [read_eval_log(str(p)) for p in sorted(out.rglob("*.eval"))]
    return [log for log in found if log.status == "success"]


def _block(sample: EvalSample, row: str) -> int:
    """The bridge block the episode's CLI runs were served on (from its last counted port)."""
    agent = RUNNERS[PRODUCTS[row].cli].inspect_agent
    return (int(sample.store[bridge_port_key(agent)]) - BRIDGE_PORT) // WIDTH


def _stat(pid: int) -> list[str] | None:
    """A live process's /proc stat fields after its command (state, ppid, ...); None if gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] == "Z" else fields


def descendants(root: int) -> set[int]:
    """Live processes under `root`."""
    return set(terminate.descendants(root))


def ancestors(pid: int) -> set[int]:
    """`pid` and its parents below init and below this test's own process."""
    found: set[int] = set()
    while pid > 1 and pid != os.getpid() and (fields := _stat(pid)) is not None:
        found.add(pid)
        pid = int(fields[1])
    return found


def held_blocks(pids: set[int]) -> set[int]:
    """The bridge blocks whose lock file a process of `pids` has open."""
    wanted = {str(lock_path(block)): block for block in range(BLOCKS)}
    found = set()
    for pid in pids:
        try:
            names = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for name in names:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{name}")
            except OSError:
                continue
            if target in wanted:
                found.add(wanted[target])
    return found


def serving(blocks: set[int]) -> set[int]:
    """The processes serving the bridge on `blocks`: the model proxies listening there and the
    processes they hang from (inspect's sandbox-tools server, a daemon outside the run's tree)."""
    found: set[int] = set()
    for block in blocks:
        for port in block_ports(block):
            for holder in holders(port) or []:
                found |= ancestors(holder.pid)
    return found


def alive(pids: set[int]) -> set[int]:
    return {pid for pid in pids if _stat(pid) is not None}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("side-by-side") / "run"
    run(out)
    return out


def test_episodes_side_by_side_are_counted_each_from_its_own_record(reference: Path) -> None:
    done = logs(reference)
    assert sorted(str((log.eval.metadata or {})["variant"]) for log in done) == ROWS
    totals, _ = check_fault_record(done, "side by side", unsure_share=0.0)
    assert sum(totals.values()) > 0, "no fault made: the equality would prove nothing"
    episodes = [
        (str((log.eval.metadata or {})["variant"]), sample)
        for log in done
        for sample in log.samples or []
    ]
    assert len(episodes) == 4
    overlapped = 0
    for (row_a, a), (row_b, b) in itertools.combinations(episodes, 2):
        assert a.started_at and a.completed_at and b.started_at and b.completed_at
        if a.started_at < b.completed_at and b.started_at < a.completed_at:
            overlapped += 1
            assert _block(a, row_a) != _block(b, row_b), (a.id, b.id)
    # two at once in each worker, the workers at once: without overlap nothing was shown
    assert overlapped >= 2, f"only {overlapped} pairs of episodes ran at the same time"


@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
def test_ctrl_c_with_four_cli_episodes_leaves_nothing_and_the_run_resumes_exactly(
    reference: Path, tmp_path: Path, how: str
) -> None:
    """Ctrl-C (the run's foreground group) or SIGTERM to the command's process alone, in a
    group another process leads (a CI job's timeout under make)."""
    out = tmp_path / "run"
    holder = None if how == "ctrl-c" else subprocess.Popen(["sleep", "900"], process_group=0)
    process = subprocess.Popen(
        command(out),
        cwd=ROOT,
        process_group=0 if holder is None else holder.pid,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    group = process.pid if holder is None else holder.pid
    ran: set[int] = set()
    blocks: set[int] = set()
    deadline = time.monotonic() + 300
    # four blocks held by the run, each with its CLI's proxy listening: four episodes running
    while process.poll() is None:
        assert time.monotonic() < deadline, f"four episodes never ran at once: {blocks}"
        time.sleep(0.2)
        ran |= descendants(process.pid)
        blocks = held_blocks(ran)
        proxies = serving(blocks)
        ran |= proxies
        if len(blocks) == 4 and all(serving({block}) for block in blocks):
            break
    assert process.poll() is None, "the run ended before its episodes were all running"
    if holder is None:
        os.killpg(process.pid, signal.SIGINT)  # a terminal's Ctrl-C: the run's foreground group
    else:
        process.send_signal(signal.SIGTERM)
    process.wait(timeout=120)
    if holder is not None:
        holder.kill()
        holder.wait()
    # what the run started on its way out (each sandbox's `stop-server`, which takes seconds on
    # a loaded machine) may end just after the run's own process: within 30 s, all of it
    deadline = time.monotonic() + 30
    while (alive(ran) or members(group)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert alive(ran) == set(), f"outlived {how}: {_commands(alive(ran))}"
    assert members(group) == [], f"outlived {how}: {_commands(members(group))}"
    bound = [p for block in blocks for p in block_ports(block) if holders(p) is not None]
    assert bound == [], "the run's bridge ports are still bound"
    run(out)
    assert (out / "summary.json").read_bytes() == (reference / "summary.json").read_bytes()


def _commands(pids: Iterable[int]) -> list[str]:
    """Each process's pid and command line, for a failure's message."""
    found = []
    for pid in sorted(pids):
        try:
            line = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            line = "(gone)"
        found.append(f"{pid}: {line[:200]}")
    return found
