"""verify on a shipping CLI's row (heavy: one real Claude Code episode driven by the simulated
agent): an honest submission verifies and says what was re-derived and what was trusted; each
edit a careful cheater makes (then rescoring and redigesting) fails in one line naming the
episode and the part."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai.log import EvalSample, read_eval_log, write_eval_log

from harness.agents.binaries import AgentMissing, binary
from harness.agents.evidence import digest
from harness.commands import main
from harness.products.catalog import PRODUCTS
from harness.run.rederive_cli import REDERIVED, TRUSTED
from tests.commands.test_submissions import fired, redigest, rescored, verify
from tests.helpers import ROOT

ROW = "cli/claude-code-todowrite"
pytestmark = [pytest.mark.heavy]

try:
    binary(PRODUCTS[ROW])
except AgentMissing as missing:
    pytestmark.append(pytest.mark.skip(reason=f"{missing} (CI runs make agents first)"))


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One episode of excel_export (its output is an .xlsx: bytes, not text, kept)."""
    out = tmp_path_factory.mktemp("clirun") / "run"
    command = [sys.executable, "-m", "harness.commands", "run", "--model", "sim/sloppy"]
    command += ["--variants", ROW, "--scenarios", "excel_export", "--epochs", "1"]
    command += ["--out", str(out), "--display", "none"]
    subprocess.run(command, check=True, capture_output=True, cwd=ROOT, timeout=600)
    return out


@pytest.fixture
def submission(run: Path, tmp_path: Path) -> Path:
    out = tmp_path / "sub"
    args = ["submit", str(run), "--out", str(out), "--include-logs", "--who", "tester"]
    assert main([*args, "--when", "2026-12-05T06:00:00Z"]) == 0
    return out


def edit(folder: Path, change: Callable[[EvalSample], None]) -> None:
    (path,) = (folder / "logs").rglob("*.eval")
    log = read_eval_log(str(path))
    assert log.samples
    change(log.samples[0])
    write_eval_log(log, str(path))


def test_an_honest_cli_row_verifies_saying_what_was_re_derived_and_what_trusted(
    submission: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines = verify(submission, capsys)
    assert code == 0, lines
    (line,) = lines
    assert f"{ROW} ({REDERIVED})" in line and f"not checked: {ROW}: {TRUSTED}" in line


def _ledger(sample: EvalSample) -> dict[str, object]:
    data: dict[str, object] = json.loads(sample.store["EpisodeRecord:ledger_json"])
    return data


def _reworded_list(sample: EvalSample) -> None:
    """The list after the first TodoWrite, one item reworded in the ledger."""
    ledger = _ledger(sample)
    events = ledger["events"]
    assert isinstance(events, list)
    first = next(e for e in events if e["kind"] == "todo")
    first["after"][0]["text"] += " (edited)"
    sample.store["EpisodeRecord:ledger_json"] = json.dumps(ledger)


def _other_call(sample: EvalSample) -> None:
    """The product's record of the first TodoWrite given other arguments."""
    calls = sample.store["CliEvidence:calls"]
    first = next(c for c in calls if c["tool"] == "TodoWrite")
    first["args"]["todos"] = first["args"]["todos"][1:]


def _flipped_check(sample: EvalSample) -> None:
    checks = sample.store["EpisodeRecord:checks"]
    checks[0]["passed"] = not checks[0]["passed"]


def _forged_file(sample: EvalSample) -> None:
    """The workbook replaced, its digest made to agree: the checks run on it disagree."""
    forged = b"not a workbook"
    sample.store["CliEvidence:files"]["exports/1.xlsx"] = base64.b64encode(forged).decode()
    sample.store["CliEvidence:digests"]["exports/1.xlsx"] = digest(forged)


def _file_not_its_digest(sample: EvalSample) -> None:
    sample.store["CliEvidence:files"]["README.md"] = base64.b64encode(b"other").decode()


def _file_outside(sample: EvalSample) -> None:
    name = "../../outside.txt"
    sample.store["CliEvidence:files"][name] = base64.b64encode(b"x").decode()
    sample.store["CliEvidence:digests"][name] = digest(b"x")
    sample.store["EpisodeRecord:final_files"].append(name)


def _no_evidence(sample: EvalSample) -> None:
    for key in [k for k in sample.store if k.startswith("CliEvidence:")]:
        del sample.store[key]


@pytest.mark.parametrize(
    ("tamper", "rescore", "says"),
    [
        (_reworded_list, True, "todo: call "),
        (_other_call, False, "the record holds other arguments"),
        (_flipped_check, True, "checks: checks[0].passed"),
        (_forged_file, False, "checks: checks[0]"),
        (_file_not_its_digest, False, "workspace: README.md is not the file its digest names"),
        (_file_outside, False, "workspace: '../../outside.txt' is not a file of the workspace"),
        (_no_evidence, False, "the log keeps no product record of the calls"),
    ],
    ids=lambda value: getattr(value, "__name__", str(value)),
)
def test_each_edit_of_a_cli_episode_fails_re_derivation_in_one_line(
    submission: Path,
    capsys: pytest.CaptureFixture[str],
    tamper: Callable[[EvalSample], None],
    rescore: bool,
    says: str,
) -> None:
    edit(submission, tamper)
    if rescore:
        rescored(submission)
    redigest(submission)
    code, lines = verify(submission, capsys)
    assert code == 2 and fired(lines) == {"rederive"}, lines
    assert any(says in line and "excel_export epoch 1" in line for line in lines), lines
