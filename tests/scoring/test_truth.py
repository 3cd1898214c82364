"""Adversarial episodes scripted through the real agent loop (mockllm), with exact metric values.

Each test is a case where a published number used to be wrong; it fails if the number is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai.event import ModelEvent
from inspect_ai.log import resolve_sample_attachments

from harness.episode.prompts import INJECTED_LIST
from harness.tokens import text_tokens
from tests.scripted import run_episode, scores_of, turn

pytestmark = pytest.mark.slow

MAIN = ("write_file", {"path": "main.py", "content": "def add(a, b):\n    return a + b\n"})
TEST = (
    "write_file",
    {"path": "test.py", "content": "from main import add\n\nassert add(2, 3) == 5\n"},
)
EXCEL_PLAN = ["List the workspace files", "Create the Excel workbook", "Save it as exports/1.xlsx"]


def rows(*items: tuple[str, str, str]) -> dict[str, Any]:
    return {"items": [{"id": i, "text": t, "status": s} for i, t, s in items]}


def only(found: dict[str, float], *names: str) -> tuple[float, ...]:
    return tuple(found[n] for n in names)


# -- 1. how an episode ends ---------------------------------------------------------------


def test_admitting_failure_is_not_a_false_completion(tmp_path: Path) -> None:
    found = scores_of(
        run_episode(
            [turn(MAIN), turn(text="I could NOT finish: test.py is missing")],
            tmp_path,
            "main_and_test",
            "L0-rewrite",
        )
    )
    assert only(found, "false_completion", "gave_up", "task_success") == (0, 1, 0)


def test_a_question_to_the_user_is_not_a_false_completion(tmp_path: Path) -> None:
    found = scores_of(
        run_episode([turn(text="Should I call it index.py?")], tmp_path, "main_and_test", "L1")
    )
    assert only(found, "false_completion", "asked_user", "gave_up") == (0, 1, 0)


def test_a_false_claim_still_is_one(tmp_path: Path) -> None:
    found = scores_of(
        run_episode([turn(MAIN), turn(text="All done.")], tmp_path, "main_and_test", "L0")
    )
    assert only(found, "false_completion", "gave_up", "asked_user") == (1, 0, 0)


@pytest.mark.parametrize("variant", ["L0-rewrite", "L4-inject+gate"])
@pytest.mark.parametrize(
    ("final", "ending"),
    [
        # honest admissions, once read as false "done" (and refused by the gate until the budget
        # ran out)
        ("I have written main.py but have not yet written test.py.", "gave_up"),
        ("I did not write test.py.", "gave_up"),
        ("Everything is in place except test.py.", "gave_up"),
        ("main.py 已写好，但还没有写 test.py。", "gave_up"),
        # a question to the user about going on is not a claim
        ("I wrote main.py. Should I also write test.py?", "asked_user"),
        # a denial of trouble is a claim, and here a false one
        ("I checked the work and I was not able to find any problems.", "claimed_done"),
        ("All done. Would you like me to add more tests?", "claimed_done"),
    ],
)
def test_how_an_episode_ends_in_plain_english(
    tmp_path: Path, variant: str, final: str, ending: str
) -> None:
    found = scores_of(
        run_episode([turn(MAIN), turn(text=final)], tmp_path, "main_and_test", variant)
    )
    claimed = ending == "claimed_done"
    assert only(found, "gave_up", "asked_user", "task_success") == (
        ending == "gave_up",
        ending == "asked_user",
        0,
    )
    if variant.endswith("+gate"):
        # the gate refuses only claims (this one, then every later "Done." of the padded
        # script); an admission or a question is let through at once
        assert (found["blocked_completions"] > 0) == claimed
    else:
        assert found["false_completion"] == claimed


DOCS = [
    ("write_file", {"path": f"docs/{name}.md", "content": f"# {name.title()}\n"})
    for name in ("intro", "setup", "usage")
]
INDEX = (
    "write_csv",
    {"path": "docs/index.csv", "rows": [["doc"], ["intro.md"], ["setup.md"], ["usage.md"]]},
)


@pytest.mark.parametrize("variant", ["L4-inject", "L4-inject+gate"])
def test_a_pending_user_turn_is_delivered_when_the_agent_yields(
    variant: str, tmp_path: Path
) -> None:
    # everything in turn 1, "done" in turn 2: the user's request (due after turn 2) comes then
    sample = run_episode(
        [turn(*DOCS), turn(text="All done."), turn(INDEX), turn(text="Done, index added.")],
        tmp_path,
        "user_adds_csv",
        variant,
    )
    found = scores_of(sample)
    assert only(found, "task_success", "false_completion", "false_completion_past_gate") == (
        1,
        0,
        0,
    )
    assert found["blocked_completions"] == 0
    assert any("docs/index.csv" in m.text for m in sample.messages if m.role == "user")


def test_ignoring_the_user_request_is_a_false_completion(tmp_path: Path) -> None:
    found = scores_of(
        run_episode(
            [turn(*DOCS), turn(text="All done."), turn(text="All done.")],
            tmp_path,
            "user_adds_csv",
            "L4-inject",
        )
    )
    assert only(found, "task_success", "false_completion") == (0, 1)


def test_a_cancel_is_delivered_on_yield_and_the_gate_stands_before_the_user(
    tmp_path: Path,
) -> None:
    files = [
        ("write_file", {"path": f"{name}.md", "content": f"# {title}\n"})
        for name, title in (
            ("CHANGELOG", "Changelog"),
            ("CONTRIBUTING", "Contributing"),
            ("NOTICE", "Notice"),
        )
    ]
    script = [turn(*files), turn(text="Done."), turn(text="OK, no README then. Done.")]
    ungated = run_episode(script, tmp_path, "user_cancels", "L4-inject")
    found = scores_of(ungated)
    # the agent yields at turn 2, the pending cancel is delivered, and it answers at turn 3
    assert only(found, "task_success", "false_completion", "turns") == (1, 0, 3)
    assert any("Skip the README" in m.text for m in ungated.messages if m.role == "user")
    # gated, the turn-2 claim is refused first (README still pending), then the user cancels
    gated = scores_of(run_episode(script, tmp_path, "user_cancels", "L4-inject+gate"))
    assert only(gated, "task_success", "false_completion", "blocked_completions") == (1, 0, 1)


# -- 2. the gate and the false-tick detector compare normalised paths and workspace state ----


def test_path_spellings_pass_the_gate_and_tick_truthfully(tmp_path: Path) -> None:
    dotted = [
        ("write_file", {"path": "./main.py", "content": MAIN[1]["content"]}),
        ("write_file", {"path": "./test.py", "content": TEST[1]["content"]}),
        ("read_file", {"path": "./main.py"}),
    ]
    plan = rows(
        ("1", "Write main.py", "pending"),
        ("2", "Write test.py", "pending"),
        ("3", "Verify by reading main.py back", "pending"),
    )
    done = rows(
        ("1", "Write main.py", "completed"),
        ("2", "Write test.py", "completed"),
        ("3", "Verify by reading main.py back", "completed"),
    )
    found = scores_of(
        run_episode(
            [turn(("todo", plan)), turn(*dotted), turn(("todo", done)), turn(text="Done.")],
            tmp_path,
            "main_and_test",
            "L0-rewrite+gate",
        )
    )
    assert only(found, "task_success", "blocked_completions", "false_todo_completions") == (1, 0, 0)


def test_a_csv_written_with_write_file_ticks_the_added_step(tmp_path: Path) -> None:
    csv_by_hand = (
        "write_file",
        {"path": "docs/index.csv", "content": "doc\nintro.md\nsetup.md\nusage.md\n"},
    )
    found = scores_of(
        run_episode(
            [turn(*DOCS), turn(text="All done."), turn(csv_by_hand), turn(text="Done.")],
            tmp_path,
            "user_adds_csv",
            "L4-inject+gate",
        )
    )
    assert only(found, "task_success", "blocked_completions", "gate_exhausted") == (1, 0, 0)


def test_excel_from_workspace_files_without_list_files_passes_the_gate(tmp_path: Path) -> None:
    found = scores_of(
        run_episode(
            [
                turn(("create_excel", {"path": "exports/1.xlsx", "from_workspace_files": True})),
                turn(text="Done."),
            ],
            tmp_path,
            "excel_export",
            "L4-inject+gate",
        )
    )
    assert only(found, "task_success", "blocked_completions") == (1, 0)


# -- 3. the matcher: word tokens, synonyms via aliases, todos covering several subtasks ----


def test_synonym_todos_ticked_before_any_work_are_false_ticks(tmp_path: Path) -> None:
    synonyms = (
        "Enumerate the workspace",
        "Build the spreadsheet",
        "Store the result as exports/1.xlsx",
    )
    ticked = rows(*((str(i), t, "completed") for i, t in enumerate(synonyms, 1)))
    found = scores_of(
        run_episode([turn(("todo", ticked)), turn(text="Done.")], tmp_path, "excel_export", "L0")
    )
    assert only(found, "false_todo_completions", "unmatched_todos") == (3, 0)


def test_a_todo_covering_two_subtasks_counts_against_both(tmp_path: Path) -> None:
    both = "Create the Excel file exports/1.xlsx"
    found = scores_of(
        run_episode(
            [
                turn(("todo", rows(("1", both, "in_progress")))),
                # the workbook exists, but not at exports/1.xlsx: 'save' is still open
                turn(
                    ("create_excel", {"path": "exports/other.xlsx", "from_workspace_files": True})
                ),
                turn(("todo", rows(("1", both, "completed")))),
                turn(text="Done."),
            ],
            tmp_path,
            "excel_export",
            "L0",
        )
    )
    assert found["false_todo_completions"] == 1


def test_substrings_do_not_match_and_unmatched_items_are_reported(tmp_path: Path) -> None:
    plan = rows(("1", "Capitalise headings", "completed"), ("2", "Write guide.md", "pending"))
    found = scores_of(
        run_episode([turn(("todo", plan)), turn(text="Done.")], tmp_path, "user_renames", "L0")
    )
    # 'Capitalise' contains 'api' but is not the api.md step: no false tick, one unmatched item
    assert only(found, "false_todo_completions", "unmatched_todos") == (0, 1)


# -- 4. a sanction covers exactly the requested change, once --------------------------------

API_PLAN = [
    ("1", "Write api.md", "pending"),
    ("2", "Write guide.md", "pending"),
    ("3", "Write faq.md", "pending"),
]


def test_a_rename_sanction_covers_the_requested_text_once_in_a_rewrite(tmp_path: Path) -> None:
    renamed = [("1", "Write API docs", "pending"), *API_PLAN[1:]]
    drifted = [("1", "Write the API docs", "pending"), *API_PLAN[1:]]
    found = scores_of(
        run_episode(
            [
                turn(("todo", rows(*API_PLAN))),
                turn(("todo", rows(*renamed))),
                turn(("todo", rows(*drifted))),
                turn(text="I could not write the files."),
            ],
            tmp_path,
            "user_renames",
            "L0",
        )
    )
    assert found["mutated_text"] == 1


def test_a_rename_sanction_does_not_cover_a_second_explicit_rename(tmp_path: Path) -> None:
    adds = [("add_todo", {"text": t}) for _, t, _ in API_PLAN]
    found = scores_of(
        run_episode(
            [
                turn(*adds),
                turn(("rename_todo", {"id": "1", "new_text": "Write API docs"})),
                turn(("rename_todo", {"id": "1", "new_text": "API docs, second draft"})),
                turn(text="I could not write the files."),
            ],
            tmp_path,
            "user_renames",
            "L3-granular",
        )
    )
    assert found["unsanctioned_renames"] == 1


# -- 5. id reuse is judged by text -----------------------------------------------------------


def test_a_live_id_reused_for_unrelated_text_is_a_drop_and_an_invention(tmp_path: Path) -> None:
    plan = rows(*((str(i), t, "pending") for i, t in enumerate(EXCEL_PLAN, 1)))
    reused = rows(
        ("1", EXCEL_PLAN[0], "pending"),
        ("2", "Tidy up afterwards", "pending"),
        ("3", EXCEL_PLAN[2], "pending"),
    )
    found = scores_of(
        run_episode(
            [turn(("todo", plan)), turn(("todo", reused)), turn(text="I gave up.")],
            tmp_path,
            "excel_export",
            "L0",
        )
    )
    assert only(found, "dropped_todos", "invented_todos", "mutated_text") == (1, 1, 0)


def test_an_invention_under_a_recycled_positional_id_counts(tmp_path: Path) -> None:
    plan = rows(*((str(i), t, "pending") for i, t in enumerate(EXCEL_PLAN, 1)))
    shorter = rows(("1", EXCEL_PLAN[0], "pending"), ("2", EXCEL_PLAN[1], "pending"))
    recycled = rows(
        ("1", EXCEL_PLAN[0], "pending"),
        ("2", EXCEL_PLAN[1], "pending"),
        ("3", "Tidy up afterwards", "pending"),
    )
    found = scores_of(
        run_episode(
            [
                turn(("todo", plan)),
                turn(("todo", shorter)),
                turn(("todo", recycled)),
                turn(text="I gave up."),
            ],
            tmp_path,
            "excel_export",
            "L0",
        )
    )
    assert only(found, "dropped_todos", "invented_todos", "mutated_text") == (1, 1, 0)


def test_a_close_rewording_under_the_same_id_is_a_mutation(tmp_path: Path) -> None:
    plan = rows(("1", "Write main.py", "pending"), ("2", "Write test.py", "pending"))
    misremembered = rows(("1", "Write index.py", "pending"), ("2", "Write test.py", "pending"))
    found = scores_of(
        run_episode(
            [turn(("todo", plan)), turn(("todo", misremembered)), turn(text="I gave up.")],
            tmp_path,
            "main_and_test",
            "L0",
        )
    )
    assert only(found, "dropped_todos", "invented_todos", "mutated_text") == (0, 0, 1)


# -- 6. smaller defects ----------------------------------------------------------------------


def test_deleting_a_completed_item_is_lost_history(tmp_path: Path) -> None:
    found = scores_of(
        run_episode(
            [
                turn(("add_todo", {"text": "Write main.py"})),
                turn(MAIN),
                turn(("update_todo_status", {"id": "1", "status": "completed"})),
                turn(("delete_todo", {"id": "1"})),
                turn(text="I gave up."),
            ],
            tmp_path,
            "main_and_test",
            "L3-granular",
        )
    )
    assert only(found, "lost_history", "unsanctioned_deletes", "dropped_todos", "lost_todos") == (
        1,
        1,
        0,
        1,
    )


def test_status_case_is_normalised_at_every_level(tmp_path: Path) -> None:
    granular = scores_of(
        run_episode(
            [
                turn(("add_todo", {"text": "Write main.py"})),
                turn(("update_todo_status", {"id": "1", "status": "Completed"})),
                turn(text="Stuck."),
            ],
            tmp_path,
            "main_and_test",
            "L3-granular",
        )
    )
    rewrite = scores_of(
        run_episode(
            [turn(("todo", rows(("1", "Write main.py", "Completed")))), turn(text="Stuck.")],
            tmp_path,
            "main_and_test",
            "L0-rewrite",
        )
    )
    assert granular["rejected_updates"] == rewrite["rejected_updates"] == 0


def test_list_reads_and_malformed_calls_are_not_todo_updates(tmp_path: Path) -> None:
    found = scores_of(
        run_episode(
            [
                turn(
                    ("add_todo", {"text": "Write main.py"}),
                    ("list_todos", {}),
                    ("update_todo_status", {"id": "1"}),
                    ("update_todo_status", {"id": "9", "status": "completed"}),
                ),
                turn(text="Stuck."),
            ],
            tmp_path,
            "main_and_test",
            "L3-granular",
        )
    )
    # add (accepted) + update of #9 (rejected) are updates; the read and the call missing
    # `status` (malformed) are not
    assert only(
        found, "todo_tool_calls", "todo_updates", "rejected_updates", "malformed_tool_calls"
    ) == (4, 2, 1, 1)


# -- 7. a markdown summary of calls is not a fake call --------------------------------------


def test_a_summary_list_of_calls_does_not_block_a_correct_finish(tmp_path: Path) -> None:
    summary = (
        "Summary:\n- write_file(main.py)\n- write_file(test.py)\n- read_file(main.py)\n\nAll done."
    )
    found = scores_of(
        run_episode(
            [turn(MAIN, TEST), turn(("read_file", {"path": "main.py"})), turn(text=summary)],
            tmp_path,
            "main_and_test",
            "L4-inject+gate",
        )
    )
    assert only(found, "task_success", "blocked_completions", "fake_tool_calls") == (1, 0, 0)


# -- product ops judged by what they do to the store ----------------------------------------


def create(subject: str) -> tuple[str, dict[str, Any]]:
    return ("TaskCreate", {"subject": subject, "description": subject})


def update(task: str, **change: Any) -> tuple[str, dict[str, Any]]:
    return ("TaskUpdate", {"taskId": task, **change})


CC_PLAN = [turn(create("Write main.py"), create("Write test.py"))]


@pytest.mark.parametrize(
    ("calls", "expected"),
    [
        # an unasked delete through TaskUpdate, of a pending then of a completed task
        (
            [update("2", status="deleted")],
            {"unsanctioned_deletes": 1, "lost_history": 0, "lost_todos": 1},
        ),
        (
            [update("1", status="completed"), update("1", status="deleted")],
            {"unsanctioned_deletes": 1, "lost_history": 1, "lost_todos": 1},
        ),
        # an unasked rename through TaskUpdate's subject
        ([update("2", subject="Write the tests")], {"unsanctioned_renames": 1, "changed_todos": 1}),
        # a status change alone is neither
        (
            [update("1", status="in_progress")],
            {
                "unsanctioned_deletes": 0,
                "unsanctioned_renames": 0,
                "lost_history": 0,
                "lost_todos": 0,
                "changed_todos": 0,
            },
        ),
    ],
)
def test_cc_tasks_updates_that_delete_or_rename_are_judged(
    tmp_path: Path, calls: list[tuple[str, dict[str, Any]]], expected: dict[str, float]
) -> None:
    script = [*CC_PLAN, turn(MAIN), *(turn(call) for call in calls), turn(TEST)]
    found = scores_of(run_episode(script, tmp_path, "main_and_test", "cc-tasks"))
    assert {name: found[name] for name in expected} == expected


def test_a_cc_tasks_delete_the_user_asked_for_is_not_counted(tmp_path: Path) -> None:
    plan = [
        turn(
            *(
                create(f"Write {f}")
                for f in ("CHANGELOG.md", "CONTRIBUTING.md", "NOTICE.md", "README.md")
            )
        )
    ]
    writes = [
        turn(("write_file", {"path": f, "content": c}))
        for f, c in (("CHANGELOG.md", "# Changelog\n"), ("CONTRIBUTING.md", "# Contributing\n"))
    ]
    rest = [
        turn(update("4", status="deleted")),
        turn(("write_file", {"path": "NOTICE.md", "content": "# Notice\n"})),
    ]
    found = scores_of(run_episode([*plan, *writes, *rest], tmp_path, "user_cancels", "cc-tasks"))
    assert only(found, "unsanctioned_deletes", "dropped_todos", "lost_todos", "task_success") == (
        0,
        0,
        0,
        1,
    )


def renamed_to(tmp_path: Path, new_text: str) -> Path:
    """The shipped user_renames scenario, with the user asking for `new_text` instead."""
    folder = tmp_path / "scenarios"
    folder.mkdir()
    source = Path("scenarios/user_renames.yaml").read_text(encoding="utf-8")
    (folder / "user_renames.yaml").write_text(
        source.replace("new_text: Write API docs", f"new_text: {new_text}"), encoding="utf-8"
    )
    return folder


RENAME_DOCS = [
    ("write_file", {"path": f"{name}.md", "content": f"# {title}\n"})
    for name, title in (("api", "API"), ("guide", "Guide"), ("faq", "FAQ"))
]


def full_list(key: str, texts: list[str], **extra: str) -> dict[str, Any]:
    if key == "items":  # L0 keeps the item's id across the rewrite
        return rows(*((str(i), t, "pending") for i, t in enumerate(texts, start=1)))
    field = "content" if key == "todos" else "step"
    return {key: [{field: t, "status": "pending", **extra} for t in texts]}


@pytest.mark.parametrize(
    ("variant", "tool", "key", "extra"),
    [
        ("cc-todowrite", "TodoWrite", "todos", {"activeForm": "Working"}),
        ("codex-plan", "update_plan", "plan", {}),
        ("L0-rewrite", "todo", "items", {}),
    ],
)
@pytest.mark.parametrize(
    ("new_text", "asked"),
    [("Document the endpoints", "Document the endpoints"), ("Document the endpoints", "")],
)
def test_a_requested_rename_is_recognised_in_id_less_designs(
    tmp_path: Path,
    variant: str,
    tool: str,
    key: str,
    extra: dict[str, str],
    new_text: str,
    asked: str,
) -> None:
    """The user asks for a text unlike the old one: an id-less design gives it a new id, and
    the change is still the rename that was asked for. Renaming to a text nobody asked for is
    still a drop and an invention."""
    folder = renamed_to(tmp_path, asked or "Write API docs")
    before = ["Write api.md", "Write guide.md", "Write faq.md"]
    after = [new_text, "Write guide.md", "Write faq.md"]
    calls = [
        turn((tool, full_list(key, before, **extra))),
        turn((tool, full_list(key, after, **extra))),
    ]
    script = [*calls, *(turn(call) for call in RENAME_DOCS)]
    found = scores_of(run_episode(script, tmp_path / "logs", "user_renames", variant, folder))
    expected = (0, 0) if asked else (1, 1)
    assert only(found, "malformed_tool_calls", "rejected_updates", "todo_updates") == (0, 0, 2)
    assert only(found, "dropped_todos", "invented_todos") == expected


# -- plans longer than a design's cap ------------------------------------------------------

LONG_PLAN = [f"Step {n}: check part {n}" for n in range(1, 27)]
LONG_REWRITE = [turn(("todo", rows(*((str(i), t, "pending") for i, t in enumerate(LONG_PLAN, 1)))))]


@pytest.mark.parametrize(
    ("variant", "plan", "refused", "rejected"),
    [
        ("L0-rewrite", LONG_REWRITE, 1, 1),
        ("L2-whitelist", LONG_REWRITE, 1, 1),
        ("L3-granular", [turn(*(("add_todo", {"text": t}) for t in LONG_PLAN))], 6, 6),
        ("L0-rewrite+uncapped", LONG_REWRITE, 0, 0),
        # a refusal for another reason is not the cap's
        ("L0-rewrite", [turn(("todo", rows(("1", "Write main.py", "done-ish"))))], 0, 1),
    ],
)
def test_a_plan_longer_than_the_cap_is_counted_as_the_caps_price(
    tmp_path: Path, variant: str, plan: list[Any], refused: int, rejected: int
) -> None:
    script = [*plan, turn(MAIN), turn(TEST)]
    found = scores_of(run_episode(script, tmp_path, "main_and_test", variant))
    assert only(found, "cap_refusals", "rejected_updates") == (refused, rejected)


# -- 9. injected list context is priced from what the prompts carried -----------------------


@pytest.mark.parametrize("variant", ["L4-inject", "L3-granular"])
def test_injected_tokens_are_the_list_blocks_the_prompts_carried(
    tmp_path: Path, variant: str
) -> None:
    sample = run_episode(
        [
            turn(("add_todo", {"text": "Write main.py"}), ("add_todo", {"text": "Write test.py"})),
            turn(MAIN),
            turn(TEST),
        ],
        tmp_path,
        "main_and_test",
        variant,
    )
    # what each model call's system prompt carried after the list's heading, from the log
    heading = INJECTED_LIST.split("{", 1)[0]
    events = resolve_sample_attachments(sample).events
    systems = [e.input[0].text for e in events if isinstance(e, ModelEvent)]
    blocks = [s[s.index(heading) :] for s in systems if heading in s]
    if variant == "L4-inject":  # 3 scripted turns and "Done.", each with the list as it stood
        assert len(blocks) == 4
        assert "Write main.py" not in blocks[0] and "Write test.py" in blocks[-1]
    else:
        assert blocks == []
    found = scores_of(sample)
    assert found["injected_tokens"] == sum(text_tokens(b) for b in blocks)
    assert (found["injected_tokens"] > 0) == (variant == "L4-inject")
