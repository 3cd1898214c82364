"""The solver of a `cli/...` variant: one scenario run through a shipping CLI (inspect-swe's
agent, `claude_code()` or `codex_cli()`, its model traffic through inspect's bridge to the eval's
model) in a fresh workspace and a fresh HOME, then scored from the product's own record and the
final workspace.

The CLI runs in the sandbox `harness/agents/sandboxes.py` describes: the host (inspect's
`local` sandbox, its permissions bypassed), for the simulated agent and scripted models, or a
container (inspect's `docker` sandbox) that sees the episode's workspace and HOME at their host
paths, for a real model.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path

from inspect_ai.agent import Agent, as_solver
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser
from inspect_ai.solver import Generate, Solver, TaskState, solver

from harness import cleanup, progress
from harness._inspect_private import seed_sandbox_install
from harness.agents.binaries import binary
from harness.agents.bridge_ports import sample_bridge_ports
from harness.agents.cli_episode import (
    AFTER_COMPACTION,
    CliEpisode,
    CompactNow,
    RecordMismatch,
    UserSpeaks,
)
from harness.agents.evidence import CliEvidence, workspace_evidence
from harness.agents.hooked import (
    HookJournal,
    disagreements,
    hook_records,
    hooked_path,
    injections,
    install_hooks,
    overridden,
)
from harness.agents.sandboxes import CliSandbox
from harness.agents.toolcmd import JOURNAL
from harness.agents.watchdog import Watchdog
from harness.episode.record import EpisodeRecord, scenario_of
from harness.products.catalog import OWN_FOLDERS, RUNNERS
from harness.products.product import CliProduct, SandboxKind
from harness.suite.checks import run_checks
from harness.suite.cli_tools import workspace_note
from harness.suite.workspace import Workspace

#: files a CLI leaves in its working directory for itself: not the task's work
OWN_FILES = OWN_FOLDERS


@solver
def cli_agent(product: CliProduct, kind: SandboxKind = "local") -> Solver:
    """Run one scenario through `product` in a `kind` sandbox (`harness/agents/sandboxes.py`);
    the episode record goes to the sample store."""
    where = CliSandbox(kind)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        scenario = scenario_of(state)
        workspace = Workspace.create(scenario, under=where.scratch())
        home = Path(tempfile.mkdtemp(prefix="todo-bench-home-", dir=where.scratch()))
        journal = home / "todo-bench-journal.jsonl"
        episode = CliEpisode(product, scenario, workspace, journal)
        path = hooked_path(product, home, where.search_path(product))
        hooks = install_hooks(product, scenario, workspace.root, home, where.tools_bin())
        watchdog = Watchdog(product.cli)
        env = {**product.env, **hooks, "HOME": str(home), JOURNAL: str(journal), "PATH": path}
        runner, root = RUNNERS[product.cli], str(workspace.root)
        common = {
            "version": "sandbox",
            "model_config": product.model_config_id,
            "cwd": root,
            "env": env,
            "filter": watchdog.wrap(episode.filter),
            "system_prompt": workspace_note(root),
        }
        agent = runner.agent(product, common, home)
        ended: str | None = None
        try:
            # each user turn may resume the session once more, each compaction twice (the
            # command, then the task goes on): inspect-swe serves each run on one more port,
            # counted from the episode's own block on the host (a container has its own ports)
            runs = 1 + len(scenario.user_turns) + 2 * len(scenario.compactions)
            local = where.kind == "local"
            owed = cleanup.owed(where.cut_short(home, workspace.root))
            async with sample_bridge_ports(runner.inspect_agent, runs) if local else _no_block():
                with owed, where.episode_env({**env, "XDG_CACHE_HOME": str(home / ".cache")}):
                    if runner.install_link is not None:
                        seed_sandbox_install(runner.install_link, binary(product))
                    runner.prepare(product, home)
                    await where.prepare(home)
                    state = await _converse(agent, episode, watchdog, state, generate)
        except Exception:  # the watchdog stopped the CLI at its budget, or it failed
            if not episode.spent:  # set where BudgetSpent is raised, whatever reaches here
                raise  # a crash or a hang: the episode's error, naming its cause
            ended = "budget"
        finally:
            try:
                episode.settle(state.messages)
                calls = runner.record(home)
                ledger, problems = await episode.build(calls, ended)
                if product.compact_command is not None:
                    problems += _compactions_disagree(runner.compactions(home), episode)
                journaled = hook_records(home)
                ledger.events.extend(injections(journaled, episode.turn_times))
                problems += disagreements(journaled, ledger, episode.last_request)
                kept = state.store_as(HookJournal)
                kept.records = [r.model_dump() for r in journaled]
                kept.overridden = overridden(journaled, ledger, episode.last_request)
                record = state.store_as(EpisodeRecord)
                record.ledger_json = ledger.model_dump_json()
                record.checks = [c.model_dump() for c in run_checks(workspace, scenario)]
                record.final_files = [f for f in workspace.files() if not f.startswith(OWN_FILES)]
                evidence = state.store_as(CliEvidence)
                evidence.calls = [c.model_dump() for c in calls]
                evidence.digests, evidence.files = workspace_evidence(
                    workspace.root, record.final_files
                )
                record.task_state = episode.tracker.snapshot()
                progress.episode_done()
            finally:
                workspace.cleanup()
                shutil.rmtree(home, ignore_errors=True)
        if problems:
            raise RecordMismatch("; ".join(problems))
        return state

    return solve


def _compactions_disagree(recorded: int, episode: CliEpisode) -> list[str]:
    """The product's record of its compactions against the compaction requests the episode saw
    (those it asked for and those the product made on its own)."""
    seen = episode.compactions_done()
    if recorded == seen:
        return []
    return [f"the product's record holds {recorded} compactions, the episode saw {seen}"]


async def _converse(
    agent: Agent, episode: CliEpisode, watchdog: Watchdog, state: TaskState, generate: Generate
) -> TaskState:
    """The CLI's runs in one session: the first; one more for each time the scripted user
    interrupts it to speak (the interrupted run returns nothing of its own: a placeholder
    answer stands for it, so inspect-swe resumes the session with the user's words as the next
    prompt); two for each compaction (the product's compaction command, then the task goes on);
    and one for each follow-up the user sends when it yields."""
    own = {m.id for m in state.messages if isinstance(m, ChatMessageSystem)}
    run = as_solver(agent)
    while True:
        try:
            state = await watchdog.run(partial(run, state, generate))
        except UserSpeaks as speaks:
            _speak(state, own, ChatMessageAssistant(content="(interrupted by the user)"))
            _speak(state, own, ChatMessageUser(content=speaks.message))
            continue
        except CompactNow:
            _speak(state, own, ChatMessageAssistant(content="(interrupted to compact)"))
            _speak(state, own, ChatMessageUser(content=str(episode.product.compact_command)))
            episode.start_compaction()
            state = await watchdog.run(partial(run, state, generate))
            episode.end_compaction()
            _speak(state, own, ChatMessageUser(content=AFTER_COMPACTION))
            continue
        message = episode.follow_up()
        if message is None:
            return state
        _speak(state, own, ChatMessageUser(content=message))


def _speak(state: TaskState, own: set[str | None], message: ChatMessage) -> None:
    """Add `message` for the next run. The state the bridge hands back holds the CLI's own
    system prompt, and inspect-swe's OpenCode agent sends every system message of the state in
    front of the next prompt: only the episode's own (`own`) are kept, so the CLI gets the
    user's words as a user of the product types them."""
    state.messages = [
        m for m in state.messages if not isinstance(m, ChatMessageSystem) or m.id in own
    ] + [message]


@contextlib.asynccontextmanager
async def _no_block() -> AsyncIterator[None]:
    yield None
