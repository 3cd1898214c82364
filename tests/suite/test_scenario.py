"""Every shipped scenario validates, its reference solution passes, a wrong one fails."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from harness.suite.scenario import (
    OPT_IN_TAGS,
    ScenarioError,
    json_schema,
    load_file,
    load_scenario,
    load_scenarios,
    select,
)
from harness.suite.scenario_check import Replay, replay, solution
from harness.suite.workspace import Workspace

SCENARIOS = load_scenarios()
IDS = [s.id for s in SCENARIOS]
CATALOGUE_TAGS = {
    "excel",
    "rename",
    "near-duplicate",
    "code",
    "csv",
    "user-turn",
    "long",
    "compaction",
}


def replay_reference(scenario_id: str, wrong: bool = False) -> Replay:
    """Replay the reference; `wrong` leaves out its last workspace-changing step."""
    scenario = next(s for s in SCENARIOS if s.id == scenario_id)
    steps = solution(scenario)
    if wrong:
        last = max(i for i, (_, s) in enumerate(steps) if s.tool not in ("read_file", "list_files"))
        steps = steps[:last] + steps[last + 1 :]
    return replay(scenario, steps)


def test_catalogue_is_complete() -> None:
    assert len(SCENARIOS) >= 10
    assert {t for s in SCENARIOS for t in s.tags} >= CATALOGUE_TAGS
    assert any(s.compaction for s in SCENARIOS)
    assert {t.action for s in SCENARIOS for t in s.user_turns} >= {"add", "cancel", "rename"}


@pytest.mark.parametrize("scenario_id", IDS)
def test_reference_solution_passes_and_ticks_every_subtask(scenario_id: str) -> None:
    result = replay_reference(scenario_id)
    assert (result.failed_calls, result.failed_checks, result.pending) == ([], [], [])


@pytest.mark.parametrize("scenario_id", IDS)
def test_a_deliberately_wrong_solution_fails(scenario_id: str) -> None:
    assert replay_reference(scenario_id, wrong=True).failed_checks


def test_errors_name_the_file_and_the_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "id: bad\ntitle: t\nprompt: p\nsubtasks:\n  - id: s\n    title: x\n"
        "    keywords: [x]\n    done_when: [{tool: teleport}]\n"
        "checks: [{kind: file_exists, path: a}]\n"
        "reference: [{subtask: s, tool: list_files}]\n"
    )
    with pytest.raises(ScenarioError, match=r"bad\.yaml: field .*unknown tool 'teleport'"):
        load_scenario(bad)
    missing = tmp_path / "missing.yaml"
    missing.write_text("id: missing\ntitle: t\n")
    with pytest.raises(ScenarioError, match=r"missing\.yaml: field 'prompt': Field required"):
        load_scenario(missing)
    broken = tmp_path / "broken.yaml"
    broken.write_text("id: [unclosed\n")
    with pytest.raises(ScenarioError, match=r"broken\.yaml: cannot read YAML"):
        load_scenario(broken)
    wrong_check = tmp_path / "wrong_check.yaml"
    wrong_check.write_text(
        Path("scenarios/excel_export.yaml")
        .read_text()
        .replace("id: excel_export", "id: wrong_check")
        .replace("kind: xlsx_rows", "kind: xlsx_rowz")
    )
    with pytest.raises(ScenarioError, match=r"wrong_check\.yaml: field 'checks\.0'"):
        load_scenario(wrong_check)


def test_file_name_must_match_id(tmp_path: Path) -> None:
    other = tmp_path / "other.yaml"
    other.write_text(Path("scenarios/excel_export.yaml").read_text())
    with pytest.raises(ScenarioError, match="must match the file name"):
        load_scenario(other)


def test_a_file_is_parsed_once_per_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import harness.suite.scenario as module

    parses: list[Path] = []
    real = module._parse_yaml

    def counted(path: Path, raw: bytes) -> dict[str, Any]:
        parses.append(path)
        return real(path, raw)

    monkeypatch.setattr(module, "_parse_yaml", counted)
    path = tmp_path / "excel_export.yaml"
    text = Path("scenarios/excel_export.yaml").read_text()
    path.write_text(text)
    first, again = load_file(path), load_file(path)
    assert first == again and len(parses) == 1
    # new content is parsed again even when size and timestamp are unchanged
    stat = path.stat()
    path.write_text(text.replace("Excel", "Exce1", 1))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    changed = load_file(path)
    assert len(parses) == 2 and changed != first
    # a broken file is refused every time, not remembered as fine
    path.write_text("id: [unclosed\n")
    for _ in range(2):
        with pytest.raises(ScenarioError, match="cannot read YAML"):
            load_file(path)
    path.write_text(text)
    assert load_file(path) == first


def test_selection_by_id_and_tag() -> None:
    assert [s.id for s in select(SCENARIOS, "excel_export")] == ["excel_export"]
    assert {s.id for s in select(SCENARIOS, ["excel"])} >= {"excel_export", "sales_summary"}
    with pytest.raises(ScenarioError, match="unknown scenario id or tag: nope"):
        select(SCENARIOS, "nope")


def test_json_schema_is_published() -> None:
    schema = json.loads(json_schema())
    assert schema["title"] == "Scenario"
    assert {"prompt", "subtasks", "checks", "reference"} <= set(schema["required"])


def test_task_can_cap_every_turn_budget() -> None:
    from harness.run.task import build_task

    task = build_task("L0-rewrite", max_turns=3)
    budgets = [s.metadata["scenario"].max_turns for s in task.dataset if s.metadata]
    assert len(budgets) == len(select(SCENARIOS, "all")) and max(budgets) == 3


@pytest.mark.parametrize("scenario_id", IDS)
def test_workspace_holds_exactly_the_declared_files(scenario_id: str) -> None:
    scenario = next(s for s in SCENARIOS if s.id == scenario_id)
    workspace = Workspace.create(scenario)
    try:
        declared = {f.path: f.content for f in scenario.all_files()}
        assert workspace.files() == sorted(declared)
        for path, content in declared.items():
            assert (workspace.root / path).read_text(encoding="utf-8") == content
    finally:
        workspace.cleanup()


def test_generated_inputs_are_written() -> None:
    scenario = next(s for s in SCENARIOS if s.id == "long_list")
    workspace = Workspace.create(scenario)
    try:
        assert workspace.read_file("notes/note_01.txt") == "note 1\n"
        assert len(workspace.files()) == 15
    finally:
        workspace.cleanup()


def test_the_argument_table_matches_the_tools_signatures() -> None:
    import inspect as pyinspect

    from harness.suite.scenario import TOOL_ARGS
    from harness.suite.workspace_tools import SPECS

    assert list(TOOL_ARGS) == [spec.name for spec in SPECS]
    for spec in SPECS:
        params = pyinspect.signature(spec.signature).parameters.values()
        required, optional = TOOL_ARGS[spec.name]
        assert [p.name for p in params if p.default is p.empty] == list(required), spec.name
        assert [p.name for p in params if p.default is not p.empty] == list(optional), spec.name


def test_prompts_must_be_unique(tmp_path: Path) -> None:
    from harness.suite.scenario import load_scenarios

    for name in ("one", "two"):
        (tmp_path / f"{name}.yaml").write_text(
            Path("scenarios/excel_export.yaml")
            .read_text()
            .replace("id: excel_export", f"id: {name}")
        )
    with pytest.raises(ScenarioError, match=r"two\.yaml: field 'prompt': the same prompt"):
        load_scenarios(tmp_path)


def test_the_stress_suite_is_opt_in() -> None:
    default = {s.id for s in select(SCENARIOS, "all")}
    hard = {s.id for s in select(SCENARIOS, "hard")}
    assert hard and not default & hard
    assert {s.id for s in select(SCENARIOS, "all,hard")} == default | hard


def test_a_tag_shared_with_stress_scenarios_picks_from_the_default_suite() -> None:
    long = {s.id for s in select(SCENARIOS, "long")}
    assert "long_list" in long and not any(i.startswith("hard_") for i in long)
    assert "hard_notes_10" in {s.id for s in select(SCENARIOS, "hard_notes_10")}


def test_every_opt_in_suite_stays_out_of_the_default_suite() -> None:
    default = {s.id for s in select(SCENARIOS, "all")}
    for tag in OPT_IN_TAGS:
        suite = {s.id for s in select(SCENARIOS, tag)}
        assert suite and not default & suite, tag
        assert {s.id for s in select(SCENARIOS, f"all,{tag}")} == default | suite
    field = {s.id for s in select(SCENARIOS, "field")}
    assert field == {s.id for s in SCENARIOS if "field" in s.tags}
    assert not field & {s.id for s in select(SCENARIOS, "hard")}
    # a tag the field suite shares with the default suite does not pull it in
    assert not field & {s.id for s in select(SCENARIOS, "long,generated")}
    first = sorted(field)[0]
    assert [s.id for s in select(SCENARIOS, first)] == [first]


def test_the_default_suite_is_the_scenarios_without_an_opt_in_tag() -> None:
    default = [s.id for s in select(SCENARIOS, None)]
    assert default == [s.id for s in SCENARIOS if not set(s.tags) & OPT_IN_TAGS.keys()]
    assert len(default) == 12


def test_a_scenario_in_two_opt_in_suites_comes_with_either_tag() -> None:
    both = SCENARIOS[0].model_copy(update={"tags": ["hard", "field", "long"]})
    plain = SCENARIOS[1]
    assert [s.id for s in select([both, plain], "field")] == [both.id]
    assert [s.id for s in select([both, plain], "hard")] == [both.id]
    assert [s.id for s in select([both, plain], None)] == [plain.id]
    with pytest.raises(ScenarioError, match=r"all tagged 'field' or 'hard'"):
        select([both], "long")


def test_a_selection_of_nothing_is_a_clear_error_not_an_empty_dataset() -> None:
    # a folder holding only stress scenarios: the default suite and their shared tags pick
    # nothing (inspect would only say "the specified dataset is empty"); 'hard' or an id does
    only_hard = [s for s in SCENARIOS if "hard" in s.tags and "long" in s.tags]
    assert only_hard
    for wanted in (None, "all", "long", ","):
        with pytest.raises(ScenarioError, match=r"selects no scenario: .* all tagged 'hard'"):
            select(only_hard, wanted)
    assert select(only_hard, "hard") == only_hard
    assert [s.id for s in select(only_hard, only_hard[0].id)] == [only_hard[0].id]


def test_the_shipped_folder_is_implicit_in_what_a_run_records() -> None:
    from harness.suite.scenario import SCENARIO_DIR, own_folder, scenario_folder

    assert own_folder(None) is None and own_folder(str(SCENARIO_DIR)) is None
    assert own_folder(SCENARIO_DIR) is None
    assert own_folder("/tmp/mine") == "/tmp/mine"
    assert scenario_folder(None) == SCENARIO_DIR and scenario_folder("x").name == "x"
