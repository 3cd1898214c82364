"""The deployable stack of the second seed: the keyword rules (both languages, each where it
must fire and where it must not), the gate that uses them without the scenario, CompletionLoop
and LoopController with their bounds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from inspect_ai import eval
from inspect_ai.model import ChatMessage, get_model
from inspect_ai.tool import ToolInfo

from harness.episode.gate.heuristic import HeuristicTracker, load_table, named_files
from harness.episode.policies import MAX_EXTENSIONS, MAX_NUDGES, MIN_EXTENSION
from harness.episode.record import EpisodeRecord
from harness.run.task import build_task
from tests.scripted import run_episode, scores_of, turn, turns_so_far

# (plan item, tool, args, ticks?)
RULES: list[tuple[str, str, dict[str, Any], bool]] = [
    # list / 目录 / 列出 -> list_files
    ("List the workspace files", "list_files", {}, True),
    ("列出目录中的文件", "list_files", {}, True),
    ("List the workspace files", "read_file", {"path": "a.txt"}, False),
    # Excel / xlsx / 导出 -> create_excel or write_csv
    ("Export the data to Excel", "create_excel", {"path": "out.xlsx", "rows": [["a"]]}, True),
    ("导出数据", "write_csv", {"path": "out.csv", "rows": [["a"]]}, True),
    ("Export the data to Excel", "write_file", {"path": "out.xlsx", "content": "x"}, False),
    # "named 1.xlsx" -> the output path is that file
    ("Save the workbook as 1.xlsx", "create_excel", {"path": "exports/1.xlsx", "rows": []}, True),
    ("Save the workbook as 1.xlsx", "create_excel", {"path": "11.xlsx", "rows": []}, False),
    ("保存为 report.xlsx", "create_excel", {"path": "report.xlsx", "rows": []}, True),
    ("保存为 report.xlsx", "create_excel", {"path": "other.xlsx", "rows": []}, False),
    # 每个文件 / 逐个读取 -> create_excel(from_workspace_files=true) covers it
    (
        "Read each file into the sheet",
        "create_excel",
        {"path": "a.xlsx", "from_workspace_files": True},
        True,
    ),  # noqa: E501
    ("逐个读取每个文件", "create_excel", {"path": "a.xlsx", "from_workspace_files": True}, True),
    ("逐个读取每个文件", "create_excel", {"path": "a.xlsx", "rows": [["x"]]}, False),
    # 验证 / 确认 -> read_file / list_files / run_script
    ("Verify main.py by reading it back", "read_file", {"path": "main.py"}, True),
    ("验证输出", "list_files", {}, True),
    ("确认结果", "read_file", {"path": "x.txt"}, True),
    ("Verify main.py by reading it back", "write_file", {"path": "main.py", "content": ""}, False),
    ("Verify main.py by reading it back", "read_file", {"path": "test.py"}, False),
    # no rule fits: the tracker would rather block than guess
    (
        "Uppercase note_01.txt into out/",
        "write_file",
        {"path": "out/note_01.txt", "content": "X"},
        False,
    ),  # noqa: E501
]


@pytest.mark.parametrize(("text", "tool", "args", "ticks"), RULES)
def test_each_rule_of_the_seed_table(
    text: str, tool: str, args: dict[str, Any], ticks: bool
) -> None:
    tracker = HeuristicTracker([text])
    assert bool(tracker.observe(tool, args, ok=True)) is ticks
    assert (not tracker.pending) is ticks


def test_a_failed_call_never_ticks() -> None:
    tracker = HeuristicTracker(["List the workspace files"])
    assert tracker.observe("list_files", {}, ok=False) == []
    assert len(tracker.pending) == 1


def test_the_table_is_data_and_names_files_in_either_language() -> None:
    names = {rule.name for rule in load_table().rules}
    assert {"list", "excel", "each_file", "verify"} <= names
    assert named_files("把结果保存为 exports/1.xlsx 然后确认") == ["exports/1.xlsx"]
    assert named_files("Rename a.txt to b.txt.") == ["a.txt", "b.txt"]


def _plan_then_claim(input: list[ChatMessage], tools: list[ToolInfo]) -> Any:
    """Plans in its own words, does one step, claims done; repeats the claim when refused."""
    step = turns_so_far(input)
    if step == 0:  # the first list is the plan: both items in one turn
        return turn(
            ("add_todo", {"text": "Write main.py with add"}),
            ("add_todo", {"text": "Verify main.py by reading it back"}),
        )
    if step == 1:
        return turn(
            ("write_file", {"path": "main.py", "content": "def add(a, b):\n    return a + b\n"})
        )  # noqa: E501
    return turn(text="All done.")


@pytest.mark.slow
def test_the_heuristic_gate_never_reads_the_scenarios_subtasks(tmp_path: Path) -> None:
    source = yaml.safe_load(Path("scenarios/main_and_test.yaml").read_text("utf-8"))
    altered = dict(source)
    # other titles, keywords and aliases: only the oracle (scoring) may look at these
    altered["subtasks"] = [
        {**s, "title": f"Step {i}", "keywords": [f"zz{i}"], "aliases": []}
        for i, s in enumerate(source["subtasks"])
    ]
    results = []
    for name, data in (("shipped", source), ("altered", altered)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "main_and_test.yaml").write_text(yaml.safe_dump(data), "utf-8")
        (log,) = eval(
            build_task("L4-inject+heuristic", scenario_dir=str(folder), max_turns=8),
            model=get_model(
                "mockllm/model", custom_outputs=lambda i, t, *_: _plan_then_claim(i, t)
            ),
            display="none",
            log_dir=str(tmp_path / f"logs-{name}"),
        )
        assert log.samples
        ledger = log.samples[0].store_as(EpisodeRecord).ledger_data()
        results.append(
            [
                (e["kind"], e.get("items"), e.get("blocked"), e.get("reason"))
                for e in ledger["events"]
                if e["kind"] in ("plan", "plan_tick") or (e["kind"] == "claim")
            ]
        )
    assert results[0] == results[1]
    # the write ticked its plan item; the unverified item blocked every claim
    assert ("plan_tick", ["Write main.py with add"], None, None) in results[0]
    assert any(kind == "claim" and blocked for kind, _, blocked, _ in results[0])


@pytest.mark.slow
def test_completion_loop_refuses_an_idle_end_at_most_max_nudges_times(tmp_path: Path) -> None:
    idle = run_episode(
        [turn(text="Done.")], tmp_path / "a", "main_and_test", "L4-inject+completion-loop"
    )
    assert scores_of(idle)["completion_loop_nudges"] == MAX_NUDGES
    working = run_episode(
        [turn(("list_files", {})), turn(text="Done.")],
        tmp_path / "b",
        "main_and_test",
        "L4-inject+completion-loop",
    )
    assert scores_of(working)["completion_loop_nudges"] == 0
    plain = run_episode([turn(text="Done.")], tmp_path / "c", "main_and_test", "L4-inject")
    assert scores_of(plain)["completion_loop_nudges"] == 0


def _keeps_working(input: list[ChatMessage], tools: list[ToolInfo]) -> Any:
    """Plans 60 one-file items and writes one per turn: progress on every turn."""
    step = turns_so_far(input)
    if step == 0:
        return turn(*[("add_todo", {"text": f"Write f{i}.txt"}) for i in range(60)])
    return turn(("write_file", {"path": f"f{step}.txt", "content": "x"}))


def _stalls(input: list[ChatMessage], tools: list[ToolInfo]) -> Any:
    step = turns_so_far(input)
    if step == 0:
        return turn(("add_todo", {"text": "Write f1.txt"}))
    return turn(("list_files", {}))


@pytest.mark.slow
@pytest.mark.parametrize(("agent", "extended"), [(_keeps_working, True), (_stalls, False)])
def test_loop_controller_extends_only_while_progressing_and_boundedly(
    agent: Any, extended: bool, tmp_path: Path
) -> None:
    variant = "L4-inject+heuristic+loop-controller+uncapped"
    sample = run_episode(agent, tmp_path, "main_and_test", variant)
    ledger = sample.store_as(EpisodeRecord).ledger_data()
    extensions = [e for e in ledger["events"] if e["kind"] == "extension"]
    budget = 20  # main_and_test's max_turns
    step = max(MIN_EXTENSION, budget // 4)
    if extended:
        assert len(extensions) == MAX_EXTENSIONS
        assert [e["budget"] for e in extensions] == [budget + step * k for k in (1, 2, 3)]
        assert ledger["turns"] == budget + MAX_EXTENSIONS * step
    else:
        assert extensions == [] and ledger["turns"] == budget


def test_another_keyword_table_is_data(tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text(
        "rules:\n  - {name: upper, keywords: [uppercase], tools: [write_file]}\n", "utf-8"
    )
    tracker = HeuristicTracker(["Uppercase note_01.txt into out/"], load_table(rules))
    assert tracker.observe("write_file", {"path": "out/note_01.txt", "content": "X"}, ok=True)


@pytest.mark.parametrize(
    ("text", "message"),
    [("rules: [{name: x}]\n", "field 'rules.0.keywords'"), ("rules: [\n", "not YAML")],
)
def test_a_broken_keyword_table_is_one_line(
    text: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from harness.commands import main

    rules = tmp_path / "rules.yaml"
    rules.write_text(text, "utf-8")
    args = ["run", "--variants", "L4-inject+heuristic", "--heuristic-rules", str(rules)]
    assert main([*args, "--out", str(tmp_path / "out")]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert message in line and str(rules) in line
