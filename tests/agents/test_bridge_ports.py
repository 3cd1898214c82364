"""Each CLI episode gets its own block of bridge ports: blocks another episode holds (in this
process or another) and blocks whose ports another program holds are passed over; an episode
of more runs than a block takes consecutive blocks; a block is free again when its episode
ends. Each test moves the blocks to ports of its own, clear of the heavy tests' real episodes."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator

import anyio
import pytest

from harness.agents import bridge_ports
from harness.agents.bridge_ports import BridgePortTaken, block_ports, bridge_block, lock_path


@pytest.fixture(autouse=True)
def own_ports(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Blocks of 4 ports from a free stretch of high ports (a port a test binds is checked
    free first, so a busy machine gives another stretch)."""
    for base in range(47001, 60000, 400):
        if all(bridge_ports.port_free(p) for p in range(base, base + 40)):
            monkeypatch.setattr(bridge_ports, "BRIDGE_PORT", base)
            monkeypatch.setattr(bridge_ports, "WIDTH", 4)
            monkeypatch.setattr(bridge_ports, "BLOCKS", 8)
            yield
            return
    pytest.skip("no 40 free ports from 47001: this machine is too busy for the test")


def _listen(port: int) -> socket.socket:
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.bind(("127.0.0.1", port))
    holder.listen()
    return holder


def test_episodes_at_once_get_blocks_of_their_own_and_a_block_is_free_after_its_episode() -> None:
    async def main() -> tuple[list[range], range]:
        seen: list[range] = []
        async with bridge_block(1) as first, bridge_block(2) as second:
            seen += [first, second]
        async with bridge_block(1) as again:
            return seen, again

    (first, second), again = anyio.run(main)
    assert first == block_ports(0) and second == block_ports(1)
    assert again == block_ports(0)


def test_a_block_another_process_holds_is_passed_over() -> None:
    hold = (
        "import sys; from filelock import FileLock; lock = FileLock(sys.argv[1]); "
        "lock.acquire(); print('held', flush=True); sys.stdin.read()"
    )
    other = subprocess.Popen(
        [sys.executable, "-c", hold, str(lock_path(0))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert other.stdout is not None and other.stdout.readline() == "held\n"

    async def main() -> range:
        async with bridge_block(1) as ports:
            return ports

    try:
        assert anyio.run(main) == block_ports(1)
    finally:
        other.kill()
        other.wait()
    assert anyio.run(main) == block_ports(0)  # the kernel released the dead process's lock


def test_a_block_whose_port_another_program_holds_is_passed_over() -> None:
    holder = _listen(block_ports(0).start + 1)  # the episode's second run would be served there

    async def main(runs: int) -> range:
        async with bridge_block(runs) as ports:
            return ports

    try:
        assert anyio.run(main, 2) == block_ports(1)
        assert anyio.run(main, 1) == block_ports(0)  # a one-run episode never binds it
    finally:
        holder.close()


def test_when_every_free_block_has_a_port_held_the_holder_is_named() -> None:
    holders = [_listen(block_ports(b).start) for b in range(bridge_ports.BLOCKS)]

    async def main() -> None:
        async with bridge_block(1):
            pass

    try:
        with pytest.raises(BridgePortTaken) as refused:
            anyio.run(main)
    finally:
        for holder in holders:
            holder.close()
    message = str(refused.value)
    assert f"127.0.0.1:{block_ports(0).start}" in message and "pkill" not in message


def test_an_episode_of_more_runs_than_a_block_takes_consecutive_blocks() -> None:
    async def main() -> tuple[range, range]:
        async with bridge_block(1) as one, bridge_block(6) as two:
            return one, two

    one, two = anyio.run(main)
    assert one == block_ports(0) and two == block_ports(1, 2) and len(two) == 8


def test_an_episode_waits_while_every_block_is_in_use_and_goes_on_when_one_is_free() -> None:
    order: list[str] = []

    async def holder(index: int, ready: anyio.Event, release: anyio.Event) -> None:
        async with bridge_block(1):
            if index == bridge_ports.BLOCKS - 1:
                ready.set()
            await release.wait()
            order.append(f"released {index}")

    async def main() -> range:
        ready, release = anyio.Event(), anyio.Event()
        async with anyio.create_task_group() as group:
            for index in range(bridge_ports.BLOCKS):
                group.start_soon(holder, index, ready, release)
                await anyio.sleep(0)
            await ready.wait()
            waited: list[range] = []

            async def waiter() -> None:
                async with bridge_block(1) as ports:
                    order.append("waiter in")
                    waited.append(ports)

            group.start_soon(waiter)
            await anyio.sleep(2 * bridge_ports.POLL)
            assert order == []  # every block is in use: the waiter waits
            release.set()
        return waited[0]

    ports = anyio.run(main)
    assert order.index("waiter in") > 0 and ports.start >= block_ports(0).start
