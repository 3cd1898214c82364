"""Run variants as inspect eval sets, one log folder per variant, spread over worker processes.

Each variant is its own eval set, so an interrupted run resumes per variant whatever the
number of workers; workers are processes because the agent loop is CPU-bound Python.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import queue as queues
import signal
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import AbstractContextManager, contextmanager
from multiprocessing.queues import Queue
from types import FrameType
from typing import Any

from pydantic import BaseModel

from harness import cleanup, progress, storage
from harness.products.product import SandboxKind
from harness.progress import RunProgress
from harness.run import heap
from harness.run.options import OWN_DISPLAY, PASSED_TO_TASK
from harness.todo.variants import Variant


class WorkerPlan(BaseModel):
    """Everything a worker needs to run its share (picklable, no live objects)."""

    model: str
    model_args: dict[str, Any]
    variants: list[Variant]
    scenarios: str
    scenario_dir: str | None
    epochs: int
    max_turns: int | None = None
    #: the run's logs folder: a local path or an object-store URL (`harness/storage.py`)
    log_root: str
    display: str
    generate: dict[str, Any]
    retry_attempts: int
    max_samples: int | None = None
    designs: list[str] = []  # `module:Class` designs each worker registers
    heuristic_rules: str | None = None  # keyword table of the +heuristic gate
    #: episodes the whole run plans (a CLI row leaves some scenarios out); 0: every cell
    episodes: int = 0
    #: where the CLI rows' CLIs run (`harness/agents/sandboxes.py`); chosen by the run
    cli_sandbox: SandboxKind = "docker"

    @property
    def total(self) -> int:
        """Episodes the progress bar counts to."""
        return self.episodes or len(self.variants) * len(self.scenarios.split(",")) * self.epochs


def log_dir_for(plan: WorkerPlan, variant: Variant) -> str:
    return storage.join(plan.log_root, variant.label)


def run_variant(plan: WorkerPlan, variant: Variant, display: str) -> bool:
    """One variant as an eval set; True if every sample finished."""
    from inspect_ai import eval_set

    from harness.run.task import eval_entry

    task_args = {
        # the object; inspect records it, and an eval set knows it, by its JSON form: the label
        "variant": variant,
        **{name: getattr(plan, name) for name in PASSED_TO_TASK},
        "designs": ",".join(plan.designs) or None,
        # only a CLI row's task takes it: the harness's own rows keep the identity they had
        **({"cli_sandbox": plan.cli_sandbox} if variant.cli else {}),
    }
    # inspect's "none" display still renders its rich task table to a console nobody sees
    # (about 0.6 s of CPU per variant here); its "log" display renders nothing, and with the
    # console quiet its closing line is not printed either
    quiet = display == "none"
    task = eval_entry()(**task_args)
    heap.settle()  # in a worker process, its imports are done here (once per process)
    with _without_provider_state(plan.model), _quiet_console(quiet), _prompt_interrupts():
        success, _ = eval_set(
            [task],
            log_dir=log_dir_for(plan, variant),
            model=plan.model,
            model_args=plan.model_args,
            epochs=plan.epochs,
            max_samples=plan.max_samples,
            retry_attempts=plan.retry_attempts,
            display="log" if quiet else display,  # type: ignore[arg-type]
            log_dir_allow_dirty=True,
            log_realtime=False,
            score_display=False,
            **plan.generate,
        )
    return bool(success)


@contextmanager
def _prompt_interrupts() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt at once during an eval. Under Python's own handler
    asyncio's runner takes SIGINT over and only cancels the eval's main task, which inspect
    let run on (the first Ctrl-C of a one-process run was ignored); a handler of our own keeps
    it out. What a cut-off variant had done is run again on resume; finished variants stay."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, _raise_interrupt)
    try:
        yield
    except KeyboardInterrupt:
        cleanup.settle_now(final=True)  # the wind-down is over: what it started again too
        raise
    finally:
        signal.signal(signal.SIGINT, previous)


#: seconds an interrupted eval gets to wind down before its process is ended; None (the default,
#: and in every process but the command's own): no limit
_wind_down: float | None = None
_ending = threading.Event()


def end_interrupted_evals_after(seconds: float) -> None:
    """For the `todo-bench` process itself (harness/commands `entry`), never a library caller's or a
    test's process: from now on the first Ctrl-C of an eval also ends the process `seconds`
    later (exit 130, the resume line) if the eval's wind-down has not finished by then. Found
    under load: about one Ctrl-C in ten of a one-worker run waited forever in asyncio's
    cancellation of the eval's tasks. The cut is a kill, which a rerun resumes. Armed in any
    process, it also ended pytest workers whose tests raise the interrupt (reverted 712150b)."""
    global _wind_down
    _wind_down = seconds


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    cleanup.settle_now(final=False)  # CLI episodes' servers: a worker ends GRACE s from now
    if _wind_down is not None and not _ending.is_set():
        _ending.set()
        # the coroutines the interrupt leaves unawaited are collected during the wind-down:
        # no news to the user of the command (a test's or a library caller's process still
        # sees them)
        warnings.filterwarnings("ignore", "coroutine .* was never awaited", RuntimeWarning)
        threading.Thread(target=_end_after, args=(_wind_down,), daemon=True).start()
    raise KeyboardInterrupt


def _end_after(seconds: float) -> None:
    time.sleep(seconds)
    print("todo-bench: interrupted; rerun the same command to resume", file=sys.stderr, flush=True)
    cleanup.settle_now(final=True)
    os._exit(130)


@contextmanager
def _quiet_console(quiet: bool) -> Iterator[None]:
    """rich's global console (inspect's) quiet for the duration; the harness's own progress
    display writes to its own console."""
    import rich

    console = rich.get_console()
    saved = console.quiet
    console.quiet = quiet or saved
    try:
        yield
    finally:
        console.quiet = saved


def _without_provider_state(model: str) -> AbstractContextManager[None]:
    """inspect imports its openai and anthropic provider modules at every sample's start when
    those packages are installed, to reset their per-sample state (about 2 s of imports per
    process on this machine, more under load). The simulated agent keeps no such state, so a
    sim-only variant skips them; other models are untouched (harness/_inspect_private.py)."""
    # imported here, not at the top: a worker process imports this module (the pool's
    # initializer lives in it) before `_worker_init` turns the collector off, and inspect's
    # import would then pay full collector passes (tests/run/test_heap.py)
    from harness._inspect_private import without_provider_imports

    return without_provider_imports(model.startswith("sim/"))


def _run_share(plan: WorkerPlan, share: list[Variant], display: str) -> list[bool]:
    return [run_variant(plan, variant, display) for variant in share]


def completed_episodes(plan: WorkerPlan) -> int:
    """Episodes already in finished logs of this run folder (a resumed run starts from them)."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    done = 0
    for variant in plan.variants:
        folder = log_dir_for(plan, variant)
        if storage.exists(folder):
            for info in list_eval_logs(folder, recursive=False):
                header = read_eval_log(info, header_only=True)
                if header.status == "success" and header.results is not None:
                    done += header.results.completed_samples
    return done


def run(plan: WorkerPlan, workers: int, display: RunProgress) -> bool:
    """Run every variant of the plan. With our own display every worker feeds one overall bar;
    with one of inspect's displays the first worker shows it and the others are quiet."""
    workers = max(1, min(workers, len(plan.variants)))
    own = plan.display == OWN_DISPLAY
    first = "none" if own else plan.display
    if workers == 1:
        progress.attach(display.advance)
        try:
            return all(_run_share(plan, plan.variants, first))
        finally:
            progress.attach(None)
    shares = [plan.variants[i::workers] for i in range(workers)]
    context = multiprocessing.get_context("spawn")
    ticks: Queue[int] = context.Queue()
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_worker_init,
        initargs=(ticks, os.getpid()),
    )
    futures = [
        pool.submit(_run_share, plan, share, first if i == 0 else "none")
        for i, share in enumerate(shares)
    ]
    try:
        pending = set(futures)
        while pending:
            _, pending = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
            _drain(ticks, display)
        _drain(ticks, display)
        pool.shutdown(wait=True)
        return all(all(f.result()) for f in futures)
    except KeyboardInterrupt:
        _interrupt(pool, futures)
        raise
    finally:
        # never `shutdown(wait=True)` after an interrupt: the pool's manager thread can wait
        # on workers that will not answer, and the run hung at 0% CPU (two Ctrl-C)
        pool.shutdown(wait=False, cancel_futures=True)


#: seconds the workers get after a Ctrl-C to close their logs (a resumed run reuses the
#: episodes a closed log holds; a killed worker's unfinished variant is simply run again)
GRACE = 3.0


def _interrupt(pool: ProcessPoolExecutor, futures: list[Future[list[bool]]]) -> None:
    """Stop every worker within GRACE seconds of a Ctrl-C, at once on a second one."""
    # the pool keeps no public list, and none at all once it has shut down (a worker's own
    # KeyboardInterrupt, with the driver's SIGINT ignored, reaches the driver that way)
    processes = list((getattr(pool, "_processes", None) or {}).values())
    try:
        wait(futures, timeout=GRACE)
    except KeyboardInterrupt:
        pass  # the second Ctrl-C: no more waiting
    finally:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a third one cannot cut this
        try:
            for process in processes:
                if process.is_alive():
                    process.kill()
            for process in processes:
                process.join(timeout=1)
        finally:
            signal.signal(signal.SIGINT, previous)


def _worker_init(ticks: Queue[int], parent: int) -> None:
    gc.disable()  # a worker's imports come next; `run_variant` settles the collector
    # an idle worker ignores Ctrl-C (the driver ends the workers), so the pool's queue prints
    # no traceback; during an eval `_prompt_interrupts` stops it at once
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    progress.attach_queue(ticks)
    threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()


def _exit_with(parent: int) -> None:
    """A worker whose parent died (even by SIGKILL, which runs no cleanup) ends itself rather
    than run on as an orphan holding memory; the rerun resumes from the logs."""
    while os.getppid() == parent:
        time.sleep(0.5)
    cleanup.settle_now(final=True)
    os._exit(1)


def _drain(ticks: Queue[int], display: RunProgress) -> None:
    while True:
        try:
            display.advance(ticks.get_nowait())
        except queues.Empty:
            return
