"""`todo-bench power` on the committed runs, and its refusals: one line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.commands import main
from tests.helpers import ROOT

LATEST = ROOT / "results" / "latest"
FIELD = ROOT / "results" / "field" / "run"


def test_power_on_the_committed_leaderboard(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["power", str(LATEST), "--pairs", "L0-rewrite:L4-inject+gate", "--simulations", "300"]
    assert main([*args, "--format", "json"]) == 0
    rows = {r["metric"]: r for r in json.loads(capsys.readouterr().out)}
    assert set(rows) == {"task_success", "dropped_todos"}
    for metric, row in rows.items():
        assert (row["base"], row["new"]) == ("L0-rewrite", "L4-inject+gate")
        assert row["episodes"] and row["episodes"] == 2 * row["scenarios"] * row["epochs"]
        assert row["tokens"] > 0, metric
    assert rows["task_success"]["method"] == "closed form"
    assert rows["dropped_todos"]["method"] == "simulation"
    assert rows["task_success"]["effect"] > 0 > rows["dropped_todos"]["effect"]
    # the simulated agent has no price: dollars only when the tokens are priced as a model
    assert rows["task_success"]["cost_usd"] is None
    assert main([*args, "--price", "openai/gpt-4o-mini"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if "task_success" in x)
    assert "L0-rewrite -> L4-inject+gate" in line and "closed form" in line
    assert line.split()[-1] != "n/a"


def test_power_on_the_field_run(capsys: pytest.CaptureFixture[str]) -> None:
    pairs = "L0-rewrite:L2-whitelist,L4-inject:L4-inject+gate"
    assert main(["power", str(FIELD), "--pairs", pairs, "--simulations", "300"]) == 0
    out = capsys.readouterr().out
    assert "L0-rewrite -> L2-whitelist" in out and "L4-inject -> L4-inject+gate" in out
    # neither L4 design drops an item in the field run: nothing to plan for, and it says so
    (row,) = [x for x in out.splitlines() if "L4-inject+gate" in x and "dropped_todos" in x]
    assert "not plannable: no observed effect; give --mde" in row


def _bare(tmp_path: Path) -> Path:
    data = json.loads((LATEST / "summary.json").read_text(encoding="utf-8"))
    for variant in data["variants"]:
        variant["per_episode"] = []
    path = tmp_path / "bare.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["power", "/nonexistent"], "no summary.json found"),
        (["power", str(LATEST), "--pairs", "L0-rewrite:L9-magic"], "'L9-magic' is not in"),
        (["power", str(LATEST), "--metrics", "nope"], "'nope' is not a declared"),
        (["power", "{bare}"], "no per-episode values"),
        (["power", str(LATEST), "--mde", "0"], "a minimum effect of 0 cannot be planned"),
        (["power", str(LATEST), "--pairs", "L0-rewrite"], "--pairs expects BASE:NEW"),
        (["power", str(LATEST), "--alpha", "1.5"], "must be between 0 and 1"),
    ],
)
def test_bad_input_is_one_line(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [a.replace("{bare}", str(_bare(tmp_path))) for a in args]
    try:
        code = main(argv)
    except SystemExit as exit:  # argparse's own errors
        code = int(exit.code or 0)
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "", captured
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in captured.err, captured.err
    assert message in lines[0]


@pytest.mark.slow
def test_a_simulated_profile_is_planned_from_a_pilot_run_made_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`todo-bench power sim/PROFILE`: the pilot is run first, as `todo-bench run` would, of the
    variants --pairs names; asked again, the same pilot is read, not run again."""
    monkeypatch.chdir(tmp_path)
    args = ["power", "sim/sloppy", "--pairs", "L0-rewrite:L2-whitelist", "--format", "json"]
    args += ["--scenarios", "rename_chain,user_cancels", "--pilot-epochs", "2"]
    args += ["--simulations", "200"]
    assert main(args) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {(r["base"], r["new"], r["pairs"]) for r in rows} == {("L0-rewrite", "L2-whitelist", 4)}
    (folder,) = (tmp_path / "results" / "runs").iterdir()
    logs = sorted(p.name for p in folder.rglob("*.eval"))
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out) == rows
    assert sorted(p.name for p in folder.rglob("*.eval")) == logs


def test_pilot_options_need_a_profile_and_a_profile_must_exist(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["power", str(FIELD), "--pilot-epochs", "2"]) == 2
    assert "--pilot-epochs: only with a sim/PROFILE pilot" in capsys.readouterr().err
    assert main(["power", "sim/bogus"]) == 2
    assert "unknown sim profile 'bogus'" in capsys.readouterr().err
