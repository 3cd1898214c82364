"""Command-line errors are one clear line, never a traceback."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from harness.commands import main


def test_scenarios_list_validate_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenarios", "list"]) == 0
    assert "excel_export" in capsys.readouterr().out
    assert main(["scenarios", "validate"]) == 0
    assert main(["scenarios", "schema"]) == 0
    assert '"title": "Scenario"' in capsys.readouterr().out


def test_invalid_scenario_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: bad\ntitle: x\n")
    assert main(["scenarios", "validate", str(bad)]) == 2
    out = capsys.readouterr().out
    assert "bad.yaml: field 'prompt': Field required" in out and "Traceback" not in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "--variants", "L9-magic"], "unknown variant 'L9-magic'"),
        (["run", "--variants", "seed-stack", "--gate"], "+gate (oracle) and +heuristic are two"),
        (["run", "--variants", "cli/codex", "--inject"], "name a shipping agent's hooks in its"),
        (["run", "--scenarios", "nope"], "unknown scenario id or tag: nope"),
        (["run", "--model", "sim/bogus"], "unknown sim profile 'bogus'"),
        (["run", "--model", "sim/sloppy", "-M", "drop"], "-M expects name=value"),
        (["run", "--model", "anthropic/claude-x"], "needs ANTHROPIC_API_KEY"),
        (["run", "--model", "openai-api/local/qwen"], "needs LOCAL_BASE_URL"),
        (["run", "--model", "recover/openai-api/local/qwen"], "needs LOCAL_BASE_URL"),
        (["run", "--model", "recover/qwen"], "named recover/<provider>/<model>"),
        (["leaderboard", "/nonexistent"], "no summary.json found"),
    ],
)
def test_bad_input_is_one_line(
    args: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("LOCAL_BASE_URL", raising=False)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "--out", "{file}"], "a file, not a folder"),
        (["run", "--out", "{file}/sub"], "cannot write there (Not a directory)"),
        (["run", "--out", "/proc/todo-bench"], "cannot write there"),
        (["run", "--epochs", "0"], "--epochs: must be at least 1, got 0"),
        (["run", "--epochs", "three"], "--epochs: not a whole number: 'three'"),
        (["run", "--max-turns", "0"], "--max-turns: must be at least 1"),
        (["run", "--max-samples", "0"], "--max-samples: must be at least 1"),
        (["run", "--workers", "0"], "--workers: must be at least 1"),
        (["run", "--timeout", "0"], "--timeout: must be at least 1"),
        (["run", "--max-retries", "-1"], "--max-retries: must be 0 or more"),
        (["run", "--prices", "{tmp}/missing.yaml"], "not a readable price table"),
        (["run", "--prices", "{file}"], "not a readable price table"),
        (["run", "--display", "fancy"], "invalid choice: 'fancy'"),
        (["report", "{corrupt}"], "not a todo-bench summary"),
        (["report", "{other}"], "summary schema version 99; this todo-bench reads versions 1 to"),
        (["leaderboard", "{corrupt}"], "not a todo-bench summary"),
        (["compare", "{other}", "{corrupt}"], "summary schema version 99"),
        (["compare", "{nan}", "{nan}"], "NaN where a number belongs"),
        (["calibrate", "{file}"], "not a run folder"),
        (["scenarios", "validate", "{tmp}/nothing.yaml"], ""),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
    ],
)
def test_every_bad_argument_or_path_is_one_line_and_exit_2(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a-file").write_text("[not a price table")
    (tmp_path / "corrupt").mkdir()
    (tmp_path / "corrupt" / "summary.json").write_text('{"schema_version": 3')
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "summary.json").write_text('{"schema_version": 99}')
    baseline = json.loads(Path("results/baseline/summary.json").read_text())
    baseline["variants"][0]["metrics"]["task_success"]["mean"] = float("nan")
    (tmp_path / "nan").mkdir()
    (tmp_path / "nan" / "summary.json").write_text(json.dumps(baseline))
    places = {
        "nan": str(tmp_path / "nan"),
        "file": str(tmp_path / "a-file"),
        "tmp": str(tmp_path),
        "corrupt": str(tmp_path / "corrupt"),
        "other": str(tmp_path / "other"),
    }
    argv = [a.format(**places) for a in args]
    if argv[0] == "run":
        argv += ["--scenarios", "main_and_test", "--variants", "L0-rewrite"]
    try:
        code = main(argv)
    except SystemExit as exit:  # argparse's own errors
        code = int(exit.code or 0)
    captured = capsys.readouterr()
    assert code == 2
    err = captured.err if argv[:2] != ["scenarios", "validate"] else captured.out
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


def test_a_design_the_sim_cannot_drive_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["run", "--out", str(tmp_path / "o"), "--display", "none", "--model", "sim/oracle"]
    args += ["--design", "tests.fixtures.designs.opaque:OpaqueStore", "--epochs", "1"]
    args += ["--variants", "opaque-notes", "--scenarios", "excel_export", "--workers", "1"]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert "design opaque-notes: the simulated agent cannot drive its todo tools" in err
    assert "note_add, note_mark" in err and "\n" not in err and "Traceback" not in err
    assert not (tmp_path / "o" / "summary.json").exists()


@pytest.mark.slow
def test_the_sim_provider_refuses_tools_it_cannot_drive_under_inspect_eval(
    tmp_path: Path,
) -> None:
    """Through `inspect eval` (no command-line preflight) the episode errors instead of scoring."""
    from inspect_ai import eval as inspect_eval

    from harness.run.task import build_task
    from harness.todo.registry import load

    load("tests.fixtures.designs.opaque:OpaqueStore")
    (log,) = inspect_eval(
        build_task(variant="opaque-notes", scenarios="excel_export"),
        model="sim/oracle",
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "error" and log.error is not None
    assert "cannot drive these todo tools" in log.error.message


@pytest.mark.parametrize(
    "module", ["harness.commands", "harness.results.summary", "harness.publishing.formats"]
)
def test_reading_results_loads_no_loop_no_inspect_no_statistics(module: str) -> None:
    """The summary schema and its renderers are pure data: `--version`, `leaderboard` and a
    notebook reading a summary start in a fraction of a second (make perf measures it)."""
    import subprocess
    import sys

    heavy = (
        "inspect_ai",
        "harness.episode.loop",
        "harness.scoring.scorer",
        "scipy",
        "statsmodels",
        "matplotlib",
    )
    code = (
        f"import sys, {module}\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules if m.startswith({heavy!r})}}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_a_run_prints_a_board_that_fits_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["run", "--out", str(tmp_path / "o"), "--display", "none", "--epochs", "1"]
    args += ["--variants", "products", "--scenarios", "excel_export", "--workers", "1"]
    assert main(args) == 0
    out = capsys.readouterr().out
    table = [line for line in out.splitlines() if line.startswith("|")]
    assert table and max(len(line) for line in table) <= 120
    assert f"full leaderboard: {tmp_path / 'o' / 'leaderboard.md'}" in out
    full = (tmp_path / "o" / "leaderboard.md").read_text(encoding="utf-8")
    assert "unasked renames" in full and "cap refused" in full  # every column is there


def test_an_interrupted_process_ends_even_if_a_thread_outlives_the_run() -> None:
    """A thread left waiting (as anyio's worker after a second Ctrl-C in the event loop's
    shutdown) would hold the interpreter's exit forever; after an interrupt (exit 130) the
    process ends within EXIT_GRACE seconds. Any other exit waits for its threads as usual."""
    import subprocess
    import sys
    import time

    stuck = "import threading; threading.Thread(target=threading.Event().wait).start()"
    for code, grace in ((130, True), (0, False)):
        script = f"import harness.commands as c; c.main = lambda: {code}; " + (
            f"{stuck}; c.entry()" if grace else "c.entry()"
        )
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-c", script], timeout=60)
        assert done.returncode == code
        if grace:
            assert time.monotonic() - started < 30


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command and sub-command path of a parser (`("scenarios", "check")`, ...)."""
    found = [path]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _commands(sub, (*path, name))
    return found


def test_every_command_s_help_reads_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    """argparse %-formats a help string but not a description: a `%%` written for one shows
    as `%%` in the other (`power`'s description said "95%% interval")."""
    from harness.commands import build_parser

    for path in _commands(build_parser()):
        with pytest.raises(SystemExit):
            main([*path, "--help"])
        out = capsys.readouterr().out
        assert "usage:" in out and "%%" not in out, path
