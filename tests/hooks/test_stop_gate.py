"""The completion gate on Stop: each tracker refuses a claim while items are pending, lets an
admission or a finished plan through, and refuses a bounded number of times in a row."""

from __future__ import annotations

import json

from harness.episode.prompts import GATE_BLOCKED, NO_PLAN_BLOCKED
from tests.helpers import DOCS
from tests.hooks.conftest import Hooks, todos

PLAN = ("Write main.py", "Write test.py")


def _stop(hooks: Hooks, text: str = "All done.", active: bool = False) -> dict[str, object]:
    return hooks.event("Stop", stop_hook_active=active, last_assistant_message=text)


def _write(hooks: Hooks, path: str) -> dict[str, object]:
    file_path = str(hooks.tmp / path)
    (hooks.tmp / path).write_text("x", encoding="utf-8")
    return hooks.event(
        "PostToolUse", tool_name="Write", tool_input={"file_path": file_path, "content": "x"}
    )


def test_the_heuristic_gate_blocks_until_the_plan_is_ticked(hooks: Hooks) -> None:
    fixes = "gate-heuristic"
    assert hooks.run(fixes, _stop(hooks)).answer == {"decision": "block", "reason": NO_PLAN_BLOCKED}
    hooks.run(fixes, hooks.todo_write("PostToolUse", todos(*PLAN)))
    hooks.run(fixes, _write(hooks, "main.py"))
    state = "- [x] Write main.py\n- [ ] Write test.py\n(1/2 done)"
    blocked = hooks.run(fixes, _stop(hooks))
    assert blocked.answer == {"decision": "block", "reason": GATE_BLOCKED.format(state=state)}
    admitted = hooks.run(fixes, _stop(hooks, "I could not write test.py."))
    assert admitted.answer is None
    hooks.run(fixes, _write(hooks, "test.py"))
    assert hooks.run(fixes, _stop(hooks)).answer is None
    assert [r.action for r in hooks.journal()] == ["blocked", "blocked"]


def test_the_heuristic_gate_reads_the_helper_commands_journal(hooks: Hooks) -> None:
    """In a benchmark episode the seed's tools run as `todo-bench-tool` in Bash; the helper's
    journal says which calls they were."""
    helper = hooks.tmp / "helper.jsonl"
    entry = {"tool": "write_file", "args": {"path": "main.py"}, "ok": True, "result": "ok"}
    helper.write_text(json.dumps(entry) + "\n", encoding="utf-8")
    env = {"TODO_BENCH_JOURNAL": str(helper)}
    hooks.run("gate-heuristic", hooks.todo_write("PostToolUse", todos("Write main.py")), **env)
    bash = {"command": 'todo-bench-tool write_file \'{"path": "main.py"}\''}
    hooks.run("gate-heuristic", hooks.event("PostToolUse", tool_name="Bash", tool_input=bash))
    assert hooks.run("gate-heuristic", _stop(hooks), **env).answer is not None  # no journal
    hooks.run(
        "gate-heuristic", hooks.event("PostToolUse", tool_name="Bash", tool_input=bash), **env
    )
    assert hooks.run("gate-heuristic", _stop(hooks), **env).answer is None


def test_refusals_are_bounded_in_a_row_and_a_new_stop_starts_again(hooks: Hooks) -> None:
    env = {"TODO_BENCH_HOOK_MAX_BLOCKS": "2"}
    hooks.run("gate-open", hooks.todo_write("PostToolUse", todos(*PLAN)), **env)
    answers = [
        hooks.run("gate-open", _stop(hooks, active=active), **env).answer
        for active in (False, True, True, False)
    ]
    assert [a is not None for a in answers] == [True, True, False, True]
    actions = [r.action for r in hooks.journal()]
    assert actions == ["blocked", "blocked", "let_through", "blocked"]


def test_the_open_items_gate_passes_a_finished_list(hooks: Hooks) -> None:
    hooks.run("gate-open", hooks.todo_write("PostToolUse", todos(*PLAN, done=PLAN[:1])))
    blocked = hooks.run("gate-open", _stop(hooks))
    state = "[x] #1: Write main.py\n[ ] #2: Write test.py\n(1/2 completed)"
    assert blocked.answer == {"decision": "block", "reason": GATE_BLOCKED.format(state=state)}
    hooks.run("gate-open", hooks.todo_write("PostToolUse", todos(*PLAN, done=PLAN)))
    assert hooks.run("gate-open", _stop(hooks)).answer is None


def test_the_oracle_gate_judges_the_scenarios_subtasks(hooks: Hooks) -> None:
    scenario = hooks.tmp / "docs.json"
    scenario.write_text(DOCS.model_dump_json(), encoding="utf-8")
    env = {"TODO_BENCH_HOOK_SCENARIO": str(scenario)}
    hooks.run("gate-oracle", _write(hooks, "a.md"), **env)
    blocked = hooks.run("gate-oracle", _stop(hooks), **env)
    state = "1/4 done: [x] Write a.md [ ] Write b.md [ ] Write c.md [ ] Write README.md"
    assert blocked.answer == {"decision": "block", "reason": GATE_BLOCKED.format(state=state)}
    for name in ("b.md", "c.md", "README.md"):
        hooks.run("gate-oracle", _write(hooks, name), **env)
    assert hooks.run("gate-oracle", _stop(hooks), **env).answer is None


def test_the_oracle_gate_without_a_scenario_fails_open(hooks: Hooks) -> None:
    reply = hooks.run("gate-oracle", _stop(hooks))
    assert (reply.code, reply.answer) == (1, None)
    assert "TODO_BENCH_HOOK_SCENARIO" in hooks.journal()[0].text
