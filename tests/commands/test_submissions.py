"""`todo-bench submit` and `verify`: a good submission verifies, and each tampering is caught by
its own check in one line (every check has a case where it fires and, in the good submission,
one where it does not)."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai.event import ModelEvent, ToolEvent
from inspect_ai.log import EvalLog, EvalSample, read_eval_log, write_eval_log
from inspect_ai.model import ChatMessageTool

from harness.commands import main
from harness.publishing.submission import Manifest, log_files, sha256
from harness.results.summary import RunRecord
from harness.run.folder import summary_of_logs
from tests.helpers import ROOT


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny real run with its logs and run.json (seconds: 2 variants x 2 scenarios x 1)."""
    out = tmp_path_factory.mktemp("run") / "run"
    command = [sys.executable, "-m", "harness.commands", "run", "--model", "sim/sloppy"]
    command += ["--scenarios", "excel_export,main_and_test", "--epochs", "1"]
    command += ["--variants", "L0,L3", "--out", str(out), "--display", "none"]
    subprocess.run(command, check=True, capture_output=True, cwd=ROOT, timeout=300)
    return out


@pytest.fixture
def submission(run: Path, tmp_path: Path) -> Path:
    out = tmp_path / "sub"
    args = ["submit", str(run), "--out", str(out), "--include-logs", "--who", "tester"]
    assert main([*args, "--when", "2026-12-04T06:00:00Z"]) == 0
    return out


def verify(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code = main(["verify", str(path)])
    lines = capsys.readouterr().out.splitlines()
    assert all(line.startswith(f"{path}: ") for line in lines) and "Traceback" not in str(lines)
    return code, [line.removeprefix(f"{path}: ") for line in lines]


def fired(lines: list[str]) -> set[str]:
    return {line.split(":")[0] for line in lines}


def redigest(folder: Path) -> None:
    """Make the manifest list the files as they now are (a careful forger's step)."""
    data = json.loads((folder / "submission.json").read_text())
    data["files"] = {name: sha256(folder / name) for name in data["files"]}
    data["logs"] = [log.model_dump() for log in log_files(folder / "logs")]
    (folder / "submission.json").write_text(json.dumps(data))


def edit(path: Path, change: Callable[[dict[str, object]], None]) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))


def test_a_good_submission_verifies_with_every_check_and_one_ok_line(
    submission: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines = verify(submission, capsys)
    assert code == 0 and len(lines) == 1
    assert lines[0].startswith(
        "OK (schema, digests, versions, scenario hash, every log bound to the run, every episode "
        "of L0-rewrite, L3-granular re-derived from its transcript, the summary from the logs' "
        "scores)"
    )
    manifest = Manifest.model_validate_json((submission / "submission.json").read_text())
    assert manifest.who == "tester" and manifest.episodes == 4 and manifest.versions.task_version
    assert manifest.logs_included and any(log.path.endswith(".eval") for log in manifest.logs)


@pytest.mark.parametrize("suffix", [".zip", ".tar.gz"])
def test_an_archive_verifies_like_its_folder(
    run: Path, tmp_path: Path, suffix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / f"sub{suffix}"
    assert main(["submit", str(run), "--out", str(out), "--include-logs", "--who", "x"]) == 0
    capsys.readouterr()
    code, lines = verify(out, capsys)
    assert code == 0 and lines[0].startswith("OK (")


def test_published_results_without_logs_verify_and_say_what_was_not_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "latest"
    assert main(["submit", str(ROOT / "results/latest"), "--out", str(out), "--who", "x"]) == 0
    capsys.readouterr()
    code, lines = verify(out, capsys)
    assert code == 0 and len(lines) == 1
    assert "not checked: no run.json" in lines[0]
    assert "logs not included (none listed): the numbers were not recomputed" in lines[0]


def _edited_number(folder: Path) -> None:
    def change(data: dict[str, object]) -> None:
        variants = data["variants"]
        assert isinstance(variants, list)
        variants[0]["metrics"]["task_success"]["mean"] += 0.25

    edit(folder / "summary.json", change)


def _swapped_log(folder: Path) -> None:
    first, second = sorted((folder / "logs").rglob("*.eval"))
    shutil.copyfile(second, first)


def _wrong_digest(folder: Path) -> None:
    def change(data: dict[str, object]) -> None:
        logs = data["logs"]
        assert isinstance(logs, list)
        logs[0]["sha256"] = "0" * 64

    edit(folder / "submission.json", change)


def _version(field: str, value: int) -> Callable[[Path], None]:
    def tamper(folder: Path) -> None:
        def summary(data: dict[str, object]) -> None:
            data["provenance"][field] = value  # type: ignore[index]

        def manifest(data: dict[str, object]) -> None:
            data["versions"][field] = value  # type: ignore[index]

        edit(folder / "summary.json", summary)
        edit(folder / "submission.json", manifest)

    return tamper


def _bad_schema(folder: Path) -> None:
    edit(folder / "submission.json", lambda data: data.update(episodes="many"))


def _other_scenarios(folder: Path) -> None:
    edit(folder / "summary.json", lambda data: data["provenance"].update(scenario_hash="0" * 16))  # type: ignore[attr-defined]
    edit(folder / "submission.json", lambda data: data["versions"].update(scenario_hash="0" * 16))  # type: ignore[attr-defined]


def _other_model(folder: Path) -> None:
    edit(folder / "submission.json", lambda data: data.update(model="anthropic/claude-x"))


def _file_outside(folder: Path) -> None:
    edit(folder / "submission.json", lambda data: data["files"].update({"../x": "0" * 64}))  # type: ignore[attr-defined]


def _log_outside(folder: Path) -> None:
    edit(folder / "submission.json", lambda data: data["logs"][0].update(path="../../x"))  # type: ignore[index]


def _unlisted_record(folder: Path) -> None:
    edit(folder / "submission.json", lambda data: data["files"].pop("run.json"))  # type: ignore[attr-defined]


def _naive_when(folder: Path) -> None:
    edit(folder / "submission.json", lambda data: data.update(when="2026-12-04T06:00:00"))


def _missing_log(folder: Path) -> None:
    sorted((folder / "logs").rglob("*.eval"))[0].unlink()


@pytest.mark.parametrize(
    ("tamper", "redigested", "check", "says"),
    [
        (_edited_number, False, "digest", "summary.json is not the file the manifest lists"),
        (_edited_number, True, "rescore", "task_success.mean"),
        (_swapped_log, False, "digest", "is not the file the manifest lists"),
        (_swapped_log, True, "binding", "is not a task of the eval set beside it"),
        (_wrong_digest, False, "digest", "logs/L0-rewrite/"),
        (_version("task_version", 99), True, "version", "task version 99 is an unknown task"),
        (_version("task_version", 3), True, "version", "task version 3 is an older task"),
        (_version("sim_version", 7), True, "version", "sim version 7 is not this todo-bench's"),
        (_bad_schema, False, "schema", "submission.json does not follow its schema (field"),
        (_file_outside, False, "schema", "Input should be 'summary.json' or 'run.json'"),
        (_log_outside, False, "schema", "field 'logs.0.path'"),
        (_naive_when, False, "schema", "field 'when': Input should have timezone info"),
        (_unlisted_record, False, "digest", "the manifest lists no sha256 for run.json"),
        (_other_scenarios, True, "scenarios", "hash 0000000000000000 is not"),
        (_other_model, False, "manifest", "model anthropic/claude-x is not the summary's"),
        (_missing_log, False, "logs", ".eval is missing"),
    ],
    ids=lambda value: getattr(value, "__name__", str(value)),
)
def test_each_tampering_is_caught_by_its_own_check_in_one_line(
    submission: Path,
    capsys: pytest.CaptureFixture[str],
    tamper: Callable[[Path], None],
    redigested: bool,
    check: str,
    says: str,
) -> None:
    tamper(submission)
    if redigested:
        redigest(submission)
    code, lines = verify(submission, capsys)
    assert code == 2
    assert fired(lines) == {check}, lines
    assert any(says in line for line in lines), lines


def test_an_unreadable_submission_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "x.zip").write_bytes(b"not a zip")
    assert main(["verify", str(tmp_path / "x.zip")]) == 2
    assert main(["verify", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "not a readable archive" in err[0] and "not a submission" in err[1]


def test_submit_reads_a_local_run_folder_with_a_summary_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["submit", "s3://bucket/run", "--who", "x"]) == 2
    (tmp_path / "summary.json").write_text('{"model": 3}')
    assert main(["submit", str(tmp_path), "--out", str(tmp_path / "sub"), "--who", "x"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "submit reads a local run folder" in err[0]
    assert "not a todo-bench summary of schema version 3 (field 'model'" in err[1]


def test_submit_never_writes_over_a_submission(
    submission: Path, run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["submit", str(run), "--out", str(submission), "--who", "x"]) == 2
    assert "already exists" in capsys.readouterr().err


def test_the_committed_manifest_schema_is_current() -> None:
    """Regenerate with: python -c "from harness.publishing.submission import json_schema;
    print(json_schema(), end='')" > results/submission.schema.json"""
    from harness.publishing.submission import json_schema

    assert (ROOT / "results/submission.schema.json").read_text(encoding="utf-8") == json_schema()


def edit_sample(folder: Path, change: Callable[[EvalSample], None], variant: str = "L0") -> None:
    """Change the first sample of a variant's log in place (inspect writes it back)."""
    (path,) = (folder / "logs").glob(f"{variant}*/*.eval")
    log = read_eval_log(str(path))
    assert log.samples
    change(log.samples[0])
    write_eval_log(log, str(path))


def edit_header(folder: Path, change: Callable[[EvalLog], None], variant: str = "L0") -> None:
    """Change a variant's log header in place, its samples kept."""
    (path,) = (folder / "logs").glob(f"{variant}*/*.eval")
    log = read_eval_log(str(path))
    change(log)
    write_eval_log(log, str(path))


def rescored(folder: Path) -> None:
    """What `todo-bench rescore` makes of the logs as they now are: their scores and the
    summary (a cheater's step after editing a record)."""
    from harness.run.folder import RunFolder

    summary, _ = RunFolder(str(folder)).rescore()
    (folder / "summary.json").write_text(summary.model_dump_json(indent=2) + "\n")


def _flipped_check(sample: EvalSample) -> None:
    checks = sample.store["EpisodeRecord:checks"]
    checks[0]["passed"] = not checks[0]["passed"]


def _edited_ledger(sample: EvalSample) -> None:
    ledger = json.loads(sample.store["EpisodeRecord:ledger_json"])
    ledger["end_reason"] = "gave_up" if ledger["end_reason"] != "gave_up" else "claimed_done"
    sample.store["EpisodeRecord:ledger_json"] = json.dumps(ledger)


def _edited_score(sample: EvalSample) -> None:
    assert sample.scores is not None
    value = sample.scores["todo_scorer"].value
    assert isinstance(value, dict)
    value["dropped_todos"] = float(value["dropped_todos"]) + 1


def _edited_tool_result(sample: EvalSample) -> None:
    event = next(e for e in sample.events if isinstance(e, ToolEvent) and e.function != "todo")
    event.result = "nothing here"
    for message in sample.messages:
        if isinstance(message, ChatMessageTool) and message.tool_call_id == event.id:
            message.content = "nothing here"


def _cut_transcript(sample: EvalSample) -> None:
    last = [e for e in sample.events if isinstance(e, ModelEvent)][-1]
    sample.events.remove(last)


def _empty_reply(sample: EvalSample) -> None:
    [e for e in sample.events if isinstance(e, ModelEvent)][1].output.choices = []


@pytest.mark.parametrize(
    ("tamper", "rescore", "says"),
    [
        (_cut_transcript, False, "transcript: it ends after"),
        (_empty_reply, False, "replay: the episode fails on its transcript"),
        (_flipped_check, True, "record: checks[0].passed"),
        (_edited_ledger, True, "record: ledger_json.end_reason"),
        (_edited_score, False, "score: score.value.dropped_todos"),
        (_edited_tool_result, False, "tools: the result of call"),
    ],
    ids=lambda value: getattr(value, "__name__", str(value)),
)
def test_an_episode_that_is_not_its_transcript_fails_re_derivation(
    submission: Path,
    capsys: pytest.CaptureFixture[str],
    tamper: Callable[[EvalSample], None],
    rescore: bool,
    says: str,
) -> None:
    """Each edit is what a careful cheater does: the record, then the scores and the summary
    made to agree with it (`rescore`), then the digests; the transcript still says otherwise."""
    edit_sample(submission, tamper)
    if rescore:
        rescored(submission)
    redigest(submission)
    code, lines = verify(submission, capsys)
    assert code == 2 and fired(lines) == {"rederive"}, lines
    assert any(says in line and "L0-rewrite/" in line for line in lines), lines


def _seed_one(log: EvalLog) -> None:
    """The header of the same episodes from another run: seed 1, another eval set."""
    log.eval.model_args = {**log.eval.model_args, "seed": 1}
    log.eval.eval_set_id, log.eval.run_id, log.eval.eval_id = "other-set", "other-run", "other"


def test_a_log_of_another_run_with_equal_numbers_fails_binding(
    submission: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit_header(submission, _seed_one)
    redigest(submission)
    code, lines = verify(submission, capsys)
    assert code == 2 and fired(lines) == {"binding"}, lines
    assert any("its seed is 1, run.json and the manifest say 0" in line for line in lines)
    assert any("its eval set other-set is not" in line for line in lines)
    assert any("different model arguments" in line for line in lines)


REAL = "anthropic/claude-sonnet-4-5"
#: arguments no provider must ever receive: verify reads them as data
HOSTILE = {"seed": 0, "base_url": "http://127.0.0.1:9", "api_key": "x", "__class__": "os.system"}


def _real_model(folder: Path) -> None:
    """The submission as a hosted model's run would be: its model and arguments in every log,
    run.json and the summary made from those logs."""
    for path in (folder / "logs").rglob("*.eval"):
        log = read_eval_log(str(path))
        log.eval.model, log.eval.model_args = REAL, HOSTILE
        write_eval_log(log, str(path))
    edit(folder / "run.json", lambda data: data.update(model=REAL))
    record = RunRecord.model_validate_json((folder / "run.json").read_text())
    summary = summary_of_logs(str(folder / "logs"), record, str(folder))
    (folder / "summary.json").write_text(summary.model_dump_json(indent=2) + "\n")
    edit(folder / "submission.json", lambda data: data.update(model=REAL))
    redigest(folder)


def test_a_real_model_submission_verifies_with_no_key_and_no_network(
    submission: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)

    def refuse(*_: object) -> None:
        raise AssertionError("verify opened a connection")

    _real_model(submission)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    code, lines = verify(submission, capsys)
    assert code == 0 and lines[0].startswith("OK ("), lines


def test_a_renamed_model_with_hostile_arguments_fails_binding_in_one_line(
    submission: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def rename(log: EvalLog) -> None:
        log.eval.model, log.eval.model_args = REAL, HOSTILE

    edit_header(submission, rename)
    redigest(submission)
    code, lines = verify(submission, capsys)
    assert code == 2 and fired(lines) == {"binding"}, lines
    assert any(f"its model is '{REAL}'" in line for line in lines)


def test_a_row_that_cannot_be_replayed_has_its_stored_records_scored_again(run: Path) -> None:
    """What a shipping CLI's row gets (its records trusted): an honest log agrees, an edited
    score does not."""
    from harness.run.rederive import rescore_stored

    (path,) = (run / "logs").glob("L0*/*.eval")
    log = read_eval_log(str(path))
    assert rescore_stored(log, "L0") == []
    assert log.samples
    _edited_score(log.samples[0])
    (line,) = rescore_stored(log, "L0")
    assert line.startswith("rederive: L0 ") and "score.value.dropped_todos" in line


def test_a_log_swapped_in_from_a_seed_one_run_fails_binding(
    run: Path, submission: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's case as it happened: the same variant's log from a `--seed 1` run, under
    the seed-0 log's name, its digest updated; the episodes in it are honest, so only the
    binding of its header to the run can catch it."""
    other = tmp_path / "seed1"
    command = [sys.executable, "-m", "harness.commands", "run", "--model", "sim/sloppy"]
    command += ["--seed", "1"]
    command += ["--scenarios", "excel_export,main_and_test", "--epochs", "1"]
    command += ["--variants", "L0", "--out", str(other), "--display", "none"]
    subprocess.run(command, check=True, capture_output=True, cwd=ROOT, timeout=300)
    (theirs,) = (other / "logs").glob("L0*/*.eval")
    (ours,) = (submission / "logs").glob("L0*/*.eval")
    shutil.copyfile(theirs, ours)
    redigest(submission)
    code, lines = verify(submission, capsys)
    assert code == 2 and fired(lines) == {"binding"}, lines
    assert any("its seed is 1, run.json and the manifest say 0" in line for line in lines)


def test_a_run_whose_variants_were_named_out_of_board_order_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """run.json keeps the variants as the command named them, the manifest as the board orders
    them: the same set binds."""
    out = tmp_path / "run"
    command = ["run", "--model", "sim/sloppy", "--scenarios", "excel_export", "--epochs", "1"]
    assert main([*command, "--variants", "L3,L0", "--out", str(out), "--display", "none"]) == 0
    sub = tmp_path / "sub"
    args = ["submit", str(out), "--out", str(sub), "--include-logs", "--who", "tester"]
    assert main([*args, "--when", "2026-12-05T06:00:00Z"]) == 0
    capsys.readouterr()
    code, lines = verify(sub, capsys)
    assert code == 0, lines
