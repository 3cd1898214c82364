"""`todo-bench audit` against hand-annotated sessions in every supported format."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.audit import render, run_audit
from harness.audit.model import CATEGORIES, SessionAudit
from harness.commands import main

FIXTURES = Path("tests/fixtures/sessions")
ANNOTATIONS: dict[str, dict[str, Any]] = yaml.safe_load(
    (FIXTURES / "annotations.yaml").read_text(encoding="utf-8")
)
FLAGS = ("sanctioned", "reset", "after_compaction", "no_op")


def audited() -> dict[str, SessionAudit]:
    report = run_audit(sorted(FIXTURES.glob("*.json*")))
    return {Path(s.path).name: s for s in report.sessions}


def agreement() -> dict[str, tuple[int, int]]:
    """Per category and flag: (transitions where the audit agrees, transitions annotated)."""
    found = audited()
    score = {name: [0, 0] for name in (*CATEGORIES, *FLAGS)}
    for name, expected in ANNOTATIONS.items():
        if expected.get("error"):
            continue
        for want, got in zip(expected["transitions"], found[name].transitions, strict=True):
            counts = {c: 0 for c in CATEGORIES}
            for change in got.changes:
                counts[change.category] += 1
            for category in CATEGORIES:
                score[category][0] += counts[category] == want.get(category, 0)
                score[category][1] += 1
            for flag in FLAGS:
                score[flag][0] += getattr(got, flag) == want.get(flag, False)
                score[flag][1] += 1
    return {k: (v[0], v[1]) for k, v in score.items()}


def test_every_format_is_detected_and_unreadable_files_say_why() -> None:
    found = audited()
    assert {s.format for s in found.values() if not s.error} == {"claude-code", "codex", "opencode"}
    assert found["not_a_session.jsonl"].error
    for name, expected in ANNOTATIONS.items():
        if not expected.get("error"):
            assert found[name].todo_calls == expected["todo_calls"], name
            assert len(found[name].transitions) == len(expected["transitions"]), name


def test_audit_agrees_with_every_annotation() -> None:
    scores = agreement()
    # README "Auditing real session logs" states these: 23 transitions, full agreement
    assert all(right == total == 23 for right, total in scores.values()), scores


def test_sanctioned_changes_are_counted_apart() -> None:
    session = audited()["claude_todowrite.jsonl"]
    counts = session.counts
    assert (counts["added_sanctioned"], counts["added_unsanctioned"], counts["added_total"]) == (
        3,
        0,
        3,
    )
    assert (counts["dropped_unsanctioned"], counts["dropped_sanctioned"]) == (1, 1)
    assert counts["dropped_total"] == 2 and "dropped" not in counts


def test_cli_table_json_and_a_bad_file_in_the_batch(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(FIXTURES)]) == 0
    captured = capsys.readouterr()
    assert "| total" in captured.out and "not_a_session.jsonl" in captured.err
    assert main(["audit", str(FIXTURES / "codex_rollout.jsonl"), "--format", "json"]) == 0
    assert '"format": "codex"' in capsys.readouterr().out
    assert main(["audit", str(FIXTURES / "not_a_session.jsonl")]) == 1


def test_a_long_session_is_streamed(tmp_path: Path) -> None:
    # 20,000 TodoWrite calls: read line by line, one transition each
    source = (FIXTURES / "claude_todowrite.jsonl").read_text(encoding="utf-8").splitlines()
    call = next(line for line in source if '"TodoWrite"' in line)
    big = tmp_path / "long.jsonl"
    big.write_text("\n".join([call] * 20_000) + "\n", encoding="utf-8")
    audit = run_audit([big])
    (session,) = audit.sessions
    assert (session.todo_calls, session.no_ops) == (20_000, 19_999)
    assert "long.jsonl" in render(audit)


@pytest.mark.slow
def test_the_harness_own_logs_are_audited_by_the_same_rules(tmp_path: Path) -> None:
    from tests.scripted import run_episode, turn

    plan = [("1", "List the workspace files"), ("2", "Create the Excel workbook"), ("3", "Save it")]
    rows = [{"id": i, "text": t, "status": "pending"} for i, t in plan]
    run_episode(
        [turn(("todo", {"items": rows})), turn(("todo", {"items": rows[:2]})), turn(text="Stuck.")],
        tmp_path,
        "excel_export",
        "L0-rewrite",
    )
    (log,) = tmp_path.glob("*.eval")
    (session,) = run_audit([log]).sessions
    assert session.format == "inspect"
    assert (session.todo_calls, session.counts["dropped_unsanctioned"]) == (2, 1)


def test_list_fault_rates_fitted_from_an_audit() -> None:
    from harness.audit import run_audit
    from harness.audit.calibrate import calibrate_from_audit
    from harness.models.sim.profiles import load_profile

    report = run_audit(sorted(Path("tests/fixtures/sessions").glob("*.json*")))
    profile, counts = calibrate_from_audit(report)
    # the annotated corpus is small: rewording rests on enough items to fit, drops (28 items)
    # and a compaction's 9 items do not (the prior stays, clipped into the data's interval),
    # and no label tells a junk invention from an extension
    assert (counts["mutate_events"], counts["mutate_opportunities"], counts["mutate_fitted"]) == (
        1,
        37,
        1,
    )
    assert (counts["drop_events"], counts["drop_opportunities"], counts["drop_fitted"]) == (
        3,
        28,
        0,
    )
    assert (counts["forget_events"], counts["forget_opportunities"], counts["forget_fitted"]) == (
        2,
        9,
        0,
    )
    assert profile.mutate == round(1 / 37, 4)
    sloppy = load_profile("sloppy")
    assert profile.invent == sloppy.invent and profile.premature_done == sloppy.premature_done


def test_a_plan_made_one_add_at_a_time_is_one_plan_in_the_harness_logs(tmp_path: Path) -> None:
    from tests.scripted import run_episode, turn

    adds = [("add_todo", {"text": t}) for t in ("List the files", "Create the workbook", "Save it")]
    run_episode(
        [
            turn(adds[0]),
            turn(*adds[1:]),
            turn(("update_todo_status", {"id": "1", "status": "in_progress"})),
        ],
        tmp_path,
        "excel_export",
        "L3-granular",
    )
    (log,) = tmp_path.glob("*.eval")
    (session,) = run_audit([log]).sessions
    # the run's scorer says invented 0: the audit must not call the plan unsanctioned additions
    assert (session.todo_calls, len(session.transitions)) == (4, 1)
    assert session.counts["added_unsanctioned"] == 0


def test_the_audit_against_a_user_s_hand_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`audit --labels`: per category, the audit's count, the labels', and what both agree on;
    a label whose transition the audit lacks is named; a bad labels file is one line."""
    labels = tmp_path / "labels.yaml"
    labels.write_text(
        yaml.safe_dump(
            [
                # call 5 drops one item and rewords one: the labeller saw the rewording only
                {"session": "claude_todowrite", "call": 5, "reworded": [1, 0]},
                # call 8: a drop and two additions the user asked for, and no completed removal
                {"session": "claude_todowrite", "call": 8, "dropped": [0, 1], "added": [0, 2]},
                {"session": "claude_todowrite", "call": 99},
            ]
        ),
        encoding="utf-8",
    )
    session = str(FIXTURES / "claude_todowrite.jsonl")
    assert main(["audit", session, "--labels", str(labels)]) == 0
    out, err = capsys.readouterr()
    rows = {tuple(c.strip() for c in line.strip("|").split("|")[:7]) for line in out.splitlines()}
    assert ("dropped", "total", "2", "1", "1", "0.50", "1.00") in rows
    assert ("reworded", "total", "1", "1", "1", "1.00", "1.00") in rows
    assert ("completed_removed", "total", "2", "0", "0", "0.00", "-") in rows
    assert ("added", "unasked", "0", "0", "0", "-", "-") in rows
    assert "label claude_todowrite:99: the audit has no such transition" in err
    labels.write_text("{not: [a list", encoding="utf-8")
    assert main(["audit", session, "--labels", str(labels)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(labels) in err
