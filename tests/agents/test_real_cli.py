"""The real Claude Code binary (`make agents`) run as a variant, offline: its todo calls come
from its own session record, the work from the workspace, and every count is exact.

Heavy (about 20 s an episode): the simulated agent solves a scenario whose user speaks mid-task
through both Claude Code rows, OpenCode's and Gemini CLI's, and its faults on another equal the
counts;
scripted episodes drop an item, reword a task, tick one early and claim "done" falsely; the
product compacts a scenario through its own `/compact`."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, resolve_sample_attachments

from harness.agents.binaries import AgentMissing, binary
from harness.agents.hooked import HookJournal
from harness.episode.prompts import INJECTED_LIST
from harness.episode.record import EpisodeRecord
from harness.products.catalog import PRODUCTS
from harness.run.task import build_task
from harness.tokens import text_tokens
from tests.agents import cli_script
from tests.agents.wrapped import NetworkTrace
from tests.models.sim.test_sim import check_fault_record

pytestmark = [pytest.mark.heavy]

try:
    binary(PRODUCTS["cli/claude-code-todowrite"])
except AgentMissing as missing:
    pytestmark.append(pytest.mark.skip(reason=f"{missing} (CI runs make agents first)"))


def _run(variant: str, scenarios: str, model: str, logs: Path) -> EvalLog:
    task = build_task(variant=variant, scenarios=scenarios, cli_sandbox="local")
    log = eval(task, model=model, display="none", log_dir=str(logs), max_samples=1)[0]
    assert log.status == "success", log.error
    return log


def _scores(log: EvalLog) -> list[dict[str, Any]]:
    assert log.samples
    return [dict(s.scores["todo_scorer"].value) for s in log.samples]  # type: ignore[index,arg-type]


def user_turns(log: EvalLog) -> list[list[tuple[str, int]]]:
    """Each episode's delivered user turns, (action, turn), from its ledger."""
    assert log.samples
    return [
        [
            (event["action"], event["turn"])
            for event in json.loads(s.store[f"{EpisodeRecord.__name__}:ledger_json"])["events"]
            if event["kind"] == "user"
        ]
        for s in log.samples
    ]


@pytest.mark.parametrize(
    ("variant", "scenario", "said"),
    [
        ("cli/claude-code-todowrite", "user_cancels", ("cancel", 2)),
        # the Tasks row's sloppy episode only: its oracle with a user turn was run by hand
        # (docs/agents.md); the same product's channel is the TodoWrite row's test (CI time)
        ("cli/claude-code-tasks", None, None),
        ("cli/opencode", "user_cancels", ("cancel", 2)),
        ("cli/gemini-cli", "user_cancels", ("cancel", 2)),
    ],
)
def test_the_oracle_solves_and_the_sloppy_agent_s_faults_are_counted_through_the_cli(
    variant: str,
    scenario: str | None,
    said: tuple[str, int] | None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """sim/oracle solves a scenario whose user speaks mid-task through the product with no
    fault (the user interrupts the CLI after turn 2 and the session is resumed with the
    message); on near_duplicates (6 turns; long_list takes 16), sim/sloppy's own record of the
    faults it made equals what the detectors count from the product's record, episode by
    episode. Both under strace: the product reached nothing but the bridge (test_no_network.py).
    """
    try:
        binary(PRODUCTS[variant])
    except AgentMissing as missing:
        pytest.skip(f"{missing} (CI runs make agents first)")
    network = NetworkTrace(PRODUCTS[variant], tmp_path, monkeypatch)
    logs = []
    if scenario is not None:
        oracle = _run(variant, scenario, "sim/oracle", tmp_path / "oracle")
        logs.append(oracle)
        assert user_turns(oracle) == [[said]]
        (score,) = _scores(oracle)
        assert score["task_success"] == 1.0
        for fault in (
            "dropped_todos",
            "mutated_text",
            "false_todo_completions",
            "false_completion",
        ):
            assert score[fault] == 0.0, fault
    sloppy = _run(variant, "near_duplicates", "sim/sloppy", tmp_path / "sloppy")
    totals, _ = check_fault_record([sloppy], variant, unsure_share=0.0)
    assert sum(totals.values()) > 0, "no fault made: the equality would prove nothing"
    network.check(*logs, sloppy)


@pytest.mark.parametrize("variant", ["cli/claude-code-todowrite+gate", "cli/opencode+gate"])
def test_a_stop_hook_s_refusal_sends_the_agent_back_to_work_through_the_product(
    variant: str, tmp_path: Path
) -> None:
    """`+gate` on long_list, where sim/sloppy claims done with work left: Claude Code shows the
    Stop hook's refusal in its own wrapping (`Stop hook blocking error from command: ...`),
    OpenCode's plugin sends it as a user message; the simulated agent reads it (sim v4), does
    the work it lists, and the task is done with no claim held to the budget (before sim v4: 42
    refusals, `gate_exhausted`). In OpenCode every text before a call (the bridge's `(no
    content)`, ended before the calls that follow it) is judged first and its refusal taken
    back; without that, 20 refusals stood and the episode's record check failed."""
    log = _run(variant, "long_list", "sim/sloppy", tmp_path)
    (score,) = _scores(log)
    assert score["blocked_completions"] >= 1
    assert score["task_success"] == 1.0 and score["false_completion"] == 0.0
    assert score["gate_exhausted"] == 0.0 and score["budget_exhausted"] == 0.0
    if variant.startswith("cli/opencode"):
        assert log.samples
        journal = log.samples[0].store[f"{HookJournal.__name__}:records"]
        assert sum(r["action"] == "withdrawn" for r in journal) >= 10


@pytest.mark.parametrize(
    "variant",
    [
        "cli/claude-code-todowrite+whitelist",
        "cli/codex+whitelist",
        "cli/opencode+whitelist",
        "cli/gemini-cli+whitelist",
    ],
)
def test_the_whitelist_hook_refuses_exactly_the_sloppy_agent_s_drops_and_rewordings(
    variant: str, tmp_path: Path
) -> None:
    """`+whitelist` (the seed's L2 with L1) as each product's hook (OpenCode's: its plugin),
    driven by sim/sloppy on near_duplicates: a todo-list write is denied exactly when the
    simulated agent's own record says it dropped or reworded an item in it; what got through
    equals the record (none of those), and the board's refusals are the hooks' denials (by call
    id; by count where the product's hooks get none: Gemini CLI's)."""
    log = _run(variant, "near_duplicates", "sim/sloppy", tmp_path)
    check_fault_record([log], variant, unsure_share=0.0)
    assert log.samples
    sample = log.samples[0]
    faulty = {
        fault["call_id"]
        for event in sample.events
        if isinstance(event, ModelEvent)
        for fault in (event.output.message.metadata or {}).get("sim_faults", [])
        if fault["metric"] in ("dropped_todos", "mutated_text")
    }
    ledger = json.loads(sample.store[f"{EpisodeRecord.__name__}:ledger_json"])
    updates = [e for e in ledger["events"] if e["kind"] == "todo" and e["op"] != "read"]
    denied = {e["call_id"] for e in updates if not e["accepted"]}
    assert faulty, "no drop or rewording made: the equality would prove nothing"
    if variant.startswith("cli/gemini-cli"):
        # Gemini CLI hands a hook's denial to the model as `{"error": ...}` data in the call's
        # response, which the bridge passes on as a plain result: sim/sloppy takes its dropping
        # write as made and resends that list; each resend is denied with the same reason
        # (docs/hooks.md). Every fault is denied, and nothing else but such a resend.
        assert faulty <= denied
        reasons = {e["call_id"]: e.get("error") for e in updates}
        assert {reasons[c] for c in denied - faulty} <= {reasons[c] for c in faulty}
    else:
        assert denied == faulty
    journal = sample.store[f"{HookJournal.__name__}:records"]
    by_hooks = [r["tool_use_id"] for r in journal if r["action"] == "denied"]
    if variant.startswith("cli/gemini-cli"):  # its hooks get no call id (docs/hooks.md)
        assert len(by_hooks) == len(denied)
    else:
        assert set(by_hooks) == denied
    (score,) = _scores(log)
    assert score["rejected_updates"] == len(denied)
    assert score["dropped_todos"] == score["mutated_text"] == 0.0


@pytest.mark.parametrize(
    ("variant", "dropped"),
    [("cli/claude-code-todowrite", True), ("cli/claude-code-tasks", False)],
)
def test_claude_code_compacts_at_the_scenario_s_turn_and_what_the_agent_forgot_is_counted(
    variant: str, dropped: bool, tmp_path: Path
) -> None:
    """`compaction` (12 files, compacted after turn 4) through Claude Code's own `/compact`,
    driven by sim/sloppy (forget 0.35): the product compacted once, at turn 4 (its record says
    so, or the episode fails); what the simulated agent forgot went out of the full-list
    product's list as dropped items, exactly as its own record says, and nothing went out of
    the id-based Task list (the vendor's L3), where the forgotten items stay in the product's
    record."""
    log = _run(variant, "compaction", "sim/sloppy", tmp_path)
    totals, _ = check_fault_record([log], variant, unsure_share=0.0)
    assert log.samples
    ledger = json.loads(log.samples[0].store[f"{EpisodeRecord.__name__}:ledger_json"])
    compactions = [e for e in ledger["events"] if e["kind"] == "compaction"]
    assert [e["turn"] for e in compactions] == [4] and compactions[0]["dropped_messages"] > 4
    (score,) = _scores(log)
    assert (score["dropped_todos"] > 0) is dropped
    assert totals["dropped_todos"] == score["dropped_todos"]


MAIN = "def add(a, b):\n    return a + b\n"
TEST = "from main import add\n\nassert add(2, 3) == 5\n"


def _todos(*rows: tuple[str, str]) -> dict[str, Any]:
    return {"todos": [{"content": t, "status": s, "activeForm": t} for t, s in rows]}


def test_a_dropped_item_and_a_false_done_are_counted_from_claude_code_s_record(
    tmp_path: Path,
) -> None:
    cli_script.play(
        [
            lambda root: [
                (
                    "TodoWrite",
                    _todos(
                        ("Write main.py", "in_progress"),
                        ("Write test.py", "pending"),
                        ("Verify by reading main.py", "pending"),
                    ),
                )
            ],  # fmt: skip
            lambda root: [
                (
                    "Write",
                    {
                        "file_path": f"{root}/main.py",
                        "content": "def add(a, b):\n    return a + b\n",
                    },
                )
            ],  # fmt: skip
            # test.py is dropped from the list, and never written
            lambda root: [
                (
                    "TodoWrite",
                    _todos(
                        ("Write main.py", "completed"), ("Verify by reading main.py", "pending")
                    ),
                )
            ],  # fmt: skip
            None,  # "All tasks are complete." while test.py is missing
        ]
    )
    (score,) = _scores(_run("cli/claude-code-todowrite", "main_and_test", "cliscript/x", tmp_path))
    assert score["dropped_todos"] == 1.0
    assert score["false_completion"] == 1.0
    assert score["task_success"] == 0.0
    assert score["false_todo_completions"] == 0.0  # main.py was written before it was ticked


def test_a_reworded_task_and_an_early_tick_are_counted_from_claude_code_s_record(
    tmp_path: Path,
) -> None:
    cli_script.play(
        [
            lambda root: [
                ("TaskCreate", {"subject": "Write main.py", "description": "main"}),
                ("TaskCreate", {"subject": "Write test.py", "description": "test"}),
            ],  # fmt: skip
            # ticked before any file is written, and the second task reworded unasked
            lambda root: [
                ("TaskUpdate", {"taskId": "1", "status": "completed"}),
                ("TaskUpdate", {"taskId": "2", "subject": "Write some tests"}),
            ],  # fmt: skip
            lambda root: [
                (
                    "Write",
                    {
                        "file_path": f"{root}/main.py",
                        "content": "def add(a, b):\n    return a + b\n",
                    },
                )
            ],  # fmt: skip
            None,
        ]
    )
    (score,) = _scores(_run("cli/claude-code-tasks", "main_and_test", "cliscript/x", tmp_path))
    assert score["false_todo_completions"] == 1.0
    assert score["unsanctioned_renames"] == 1.0
    assert score["todo_updates"] == 4.0 and score["rejected_updates"] == 0.0
    assert score["dropped_todos"] == 0.0
    assert score["false_completion"] == 1.0


def test_the_hook_row_counts_a_denied_rewrite_and_a_blocked_stop_from_the_products_record(
    tmp_path: Path,
) -> None:
    """`+whitelist+inject+gate` installs the seed's L2, L4 and the oracle gate as Claude Code's
    own hooks: the rewrite that drops test.py is denied (the list keeps it), the early "done" is
    blocked, the agent finishes, and the board counts exactly one of each, and prices every
    list the inject hook added."""
    cli_script.play(
        [
            lambda root: [
                (
                    "TodoWrite",
                    _todos(
                        ("Write main.py", "in_progress"),
                        ("Write test.py", "pending"),
                        ("Verify by reading main.py", "pending"),
                    ),
                )
            ],  # fmt: skip
            lambda root: [("Write", {"file_path": f"{root}/main.py", "content": MAIN})],
            lambda root: [
                (
                    "TodoWrite",
                    _todos(
                        ("Write main.py", "completed"), ("Verify by reading main.py", "pending")
                    ),
                )
            ],  # fmt: skip
            None,  # "All tasks are complete." with test.py unwritten: the Stop hook blocks
            lambda root: [
                ("Write", {"file_path": f"{root}/test.py", "content": TEST}),
                ("Read", {"file_path": f"{root}/main.py"}),
            ],
            lambda root: [
                (
                    "TodoWrite",
                    _todos(
                        ("Write main.py", "completed"),
                        ("Write test.py", "completed"),
                        ("Verify by reading main.py", "completed"),
                    ),
                )
            ],  # fmt: skip
            None,
        ]
    )
    log = _run(
        "cli/claude-code-todowrite+whitelist+inject+gate", "main_and_test", "cliscript/x", tmp_path
    )
    (score,) = _scores(log)
    assert score["rejected_updates"] == 1.0
    assert score["dropped_todos"] == 0.0  # the denied rewrite changed nothing
    assert score["blocked_completions"] == 1.0
    assert score["false_completion"] == 0.0 and score["gate_exhausted"] == 0.0
    assert score["task_success"] == 1.0
    assert log.samples is not None
    journal = log.samples[0].store["HookJournal:records"]
    assert [(r["event"], r["action"]) for r in journal if r["action"] != "injected"] == [
        ("PreToolUse", "denied"),
        ("Stop", "blocked"),
    ]
    # the list came back after each successful tool call once there was one: priced once each
    injected = [r["text"] for r in journal if r["action"] == "injected"]
    assert len(injected) >= 5 and all("Write test.py" in text for text in injected)
    assert score["injected_tokens"] == sum(text_tokens(text) for text in injected)


@pytest.mark.parametrize(
    "variant", ["cli/codex+inject", "cli/opencode+inject", "cli/gemini-cli+inject"]
)
def test_a_product_s_injection_reaches_the_agent_and_is_priced_once_each(
    variant: str, tmp_path: Path
) -> None:
    """The L4 fix through Codex CLI's hooks (the list as a developer message after each
    successful call, a system message to the model), OpenCode's plugin (appended to the call's
    output) and Gemini CLI's hooks (appended to the call's output in `<hook_context>`, its `<`
    and `>` escaped): every list the hook gave reaches sim/sloppy's next request, where it reads
    it as the loop's L4 (tests/models/sim/test_hook_messages.py), and is priced once, as the
    hook gave it."""
    log = _run(variant, "main_and_test", "sim/sloppy", tmp_path)
    assert log.samples is not None
    journal = log.samples[0].store["HookJournal:records"]
    injected = [r["text"] for r in journal if r["action"] == "injected"]
    header = INJECTED_LIST.split("\n", 1)[0]
    assert len(injected) >= 3 and all(text.startswith(header) for text in injected)
    (score,) = _scores(log)
    assert score["injected_tokens"] == sum(text_tokens(text) for text in injected)
    sample = resolve_sample_attachments(log.samples[0])
    shown = [
        message.text
        for event in sample.events
        if isinstance(event, ModelEvent)
        for message in event.input
    ]
    if variant.startswith("cli/gemini-cli"):  # escaped, in the response the bridge shows as JSON
        injected = [json.dumps(t.replace("<", "&lt;").replace(">", "&gt;"))[1:-1] for t in injected]
    assert all(any(text in seen for seen in shown) for text in injected)


def test_a_spent_turn_budget_stops_the_cli_at_once(tmp_path: Path) -> None:
    """At the scenario's budget the episode stops the CLI itself (answering it with an error
    had Claude Code retry with back-off for minutes, then exit 1: an episode error)."""
    write: list[cli_script.Turn] = [
        lambda root: [("Write", {"file_path": f"{root}/main.py", "content": MAIN})]
    ]
    cli_script.play(write * 6)
    started = time.monotonic()
    log = eval(build_task(variant="cli/claude-code-todowrite", scenarios="main_and_test",
                          max_turns=3, cli_sandbox="local"), model="cliscript/x", display="none",
               log_dir=str(tmp_path))[0]  # fmt: skip
    assert log.status == "success", log.error
    (score,) = _scores(log)
    assert score["budget_exhausted"] == 1.0 and score["turns"] == 3.0
    assert time.monotonic() - started < 90
