"""The runner's start-up savings: a sim-only variant skips inspect's per-sample provider state
(and with it the openai / anthropic imports); any other model keeps it; the flags come back. A
run's imports are frozen out of the garbage collector's view and its episodes run with the
collector on."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import pytest
from inspect_ai.model import _assistant_internal as internal

from harness.run.executors import workers_for
from harness.run.runner import _without_provider_state
from harness.todo.variants import Variant


def test_only_a_sim_model_skips_the_provider_state() -> None:
    before = (internal._HAS_OPENAI, internal._HAS_ANTHROPIC)
    assert before == (True, True)  # both SDKs are installed (dev extras)
    with _without_provider_state("sim/sloppy"):
        assert (internal._HAS_OPENAI, internal._HAS_ANTHROPIC) == (False, False)
    assert before == (internal._HAS_OPENAI, internal._HAS_ANTHROPIC)
    with _without_provider_state("openai-api/local/qwen"):
        assert before == (internal._HAS_OPENAI, internal._HAS_ANTHROPIC)


@pytest.mark.slow
def test_a_sim_run_imports_no_provider_sdk_and_settles_the_collector(tmp_path: object) -> None:
    code = (
        "import gc, sys; from harness.commands import main; "
        "young = gc.get_stats()[0]['collections']; "
        f"code = main(['run', '--model', 'sim/oracle', '--variants', 'L0-rewrite', '--scenarios', "
        f"'excel_export', '--epochs', '1', '--out', r'{tmp_path}', '--display', 'none', "
        "'--workers', '1']); "
        "print(sorted(m for m in ('openai', 'anthropic') if m in sys.modules)); "
        "print(code, gc.isenabled(), gc.get_freeze_count(), "
        "gc.get_stats()[0]['collections'] - young)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    *_, sdks, collector = result.stdout.strip().splitlines()
    assert sdks == "[]"
    code, enabled, frozen, young_passes = collector.split()
    assert (code, enabled) == ("0", "True")
    assert int(frozen) > 100_000  # inspect, scipy, statsmodels... are out of the collector's view
    # the collector was off while importing, on for the episode: it made young passes
    assert int(young_passes) > 10


def test_an_interrupt_that_arrives_after_the_pool_shut_down_ends_quietly() -> None:
    """A worker's own KeyboardInterrupt (a SIGINT the workers got and the driver ignored, as a
    background job's does) surfaces in the driver after the pool has shut down: the workers
    are gone, and the interrupt goes on to the one-line message, not an AttributeError."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from harness.run.runner import _interrupt

    pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    future = pool.submit(list, [True])
    assert future.result() == [True]
    pool.shutdown(wait=True)
    _interrupt(pool, [future])


def test_the_statistics_are_imported_after_the_episodes_not_before(tmp_path: object) -> None:
    """scipy, statsmodels and pandas (about 0.7 s of CPU) are the summary's, not an episode's:
    the first episode starts without them, and the summary has them."""
    code = (
        "import sys; import harness.run.benchmark as b; from harness.commands import main; "
        "real = b.executor_for; seen = []\n"
        "def spy(plan, say):\n"
        "    executor = real(plan, say); run = executor.run\n"
        "    def first(*args):\n"
        "        seen.append(sorted(m for m in ('scipy', 'statsmodels', 'pandas') "
        "if m in sys.modules))\n"
        "        return run(*args)\n"
        "    executor.run = first; return executor\n"
        "b.executor_for = spy\n"
        f"code = main(['run', '--model', 'sim/oracle', '--variants', 'L0-rewrite', '--scenarios', "
        f"'excel_export', '--epochs', '1', '--out', r'{tmp_path}', '--display', 'none', "
        "'--workers', '1'])\n"
        "print(code, seen, 'scipy' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "0 [[]] True"


@pytest.mark.parametrize(
    ("model", "asked", "left", "expected"),
    [
        ("sim/sloppy", None, 72, 1),  # a second process's start would cost more than it saves
        ("mockllm/model", None, 99, 1),
        ("sim/sloppy", None, 216, 2),  # make bench: large enough to pay for it
        ("openai/gpt-x", None, 4, 2),  # a provider's latency: two variants at once
        ("sim/sloppy", 2, 4, 2),  # asked for by name: as asked
        ("sim/sloppy", 1, 500, 1),
        ("sim/sloppy+cli", None, 4, 2),  # a shipping CLI's episode is not quick
    ],
)
def test_a_quick_model_s_small_run_uses_one_process_unless_asked(
    monkeypatch: pytest.MonkeyPatch, model: str, asked: int | None, left: int, expected: int
) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 8)
    model, _, cli = model.partition("+")
    variants = [Variant.parse("L0-rewrite"), Variant.parse("cli/codex" if cli else "L2-whitelist")]
    plan = SimpleNamespace(model=model, variants=variants)
    assert workers_for(plan, asked, left) == expected  # type: ignore[arg-type]
