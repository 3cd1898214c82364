"""The CI gate another repository adopts (.github/actions/, examples/gate_repo/), run here the
way GitHub runs it (tests/actions.py): the example repository's gate passes its design
unchanged and fails a planted regression that drops todos; the comment poster reads its
artifact as data and refuses one that is not what the gate wrote; no script expands an
expression; each workflow_run workflow names the gate it comments for.

Offline: the install step is not run (this test's venv, which has todo-bench, stands in for
it, and the design is found through `--design` from the repository's folder), nor are the
`uses:` steps (setup-python, the artifact actions); their `with:` paths are checked instead."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from tests.actions import Run, load, run_action, scripts
from tests.helpers import ROOT

ACTIONS = ROOT / ".github" / "actions"
GATE = ACTIONS / "todo-bench-gate" / "action.yml"
COMMENT = ACTIONS / "todo-bench-comment" / "action.yml"
EXAMPLE = ROOT / "examples" / "gate_repo"
REGRESSION = ROOT / "tests" / "fixtures" / "designs" / "keepdone_regressed.py"
MARKER = "<!-- todo-bench-gate -->"
HEAD_SHA = "0123456789abcdef0123456789abcdef01234567"
PULL_REQUEST = {
    "event_name": "pull_request",
    "event": {"pull_request": {"number": 7}},
    "repository": "someone/keepdone-todos",
}
#: every workflow this project ships or shows, with the workflow_run one that comments for it
WORKFLOW_PAIRS = [
    (ROOT / ".github/workflows/benchmark.yml", ROOT / ".github/workflows/benchmark-comment.yml"),
    (
        EXAMPLE / ".github/workflows/todo-bench.yml",
        EXAMPLE / ".github/workflows/todo-bench-comment.yml",
    ),
]


def gate_inputs(workflow: Path) -> dict[str, str]:
    """The `with:` of the step of `workflow` that uses the gate action."""
    steps = [s for job in load(workflow)["jobs"].values() for s in job["steps"]]
    (gate,) = [
        s for s in steps if s.get("uses", "").split("@")[0].endswith("actions/todo-bench-gate")
    ]
    return {k: str(v) for k, v in gate.get("with", {}).items()}


def run_gate(repo: Path, tmp_path: Path, github: dict[str, Any] = PULL_REQUEST) -> Run:
    """The example's gate step, as its workflow calls it, in a copy of the repository."""
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    return run_action(
        GATE,
        gate_inputs(repo / ".github/workflows/todo-bench.yml"),
        cwd=repo,
        github=github,
        temp=temp,
        env={
            "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
            "GITHUB_STEP_SUMMARY": str(tmp_path / "step-summary.md"),
        },
        skip=frozenset({"install"}),
    )


def uploaded(run: Run, repo: Path, name: str) -> list[str]:
    """The files an upload-artifact step of the run would upload, relative to the repo."""
    (step,) = [s for s in run.uses("actions/upload-artifact") if s.with_["name"] == name]
    assert step.outcome == "uses", step.outcome
    found: list[str] = []
    for pattern in step.with_["path"].split():
        for match in map(Path, glob.glob(str(repo / pattern), recursive=True)):
            files = (
                sorted(p for p in match.rglob("*") if p.is_file()) if match.is_dir() else [match]
            )
            found += [str(p.relative_to(repo)) for p in files]
    return sorted(found)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A copy of the example repository: what actions/checkout leaves in the workspace."""
    copy = tmp_path / "repo"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_the_gate_passes_the_design_unchanged(repo: Path, tmp_path: Path) -> None:
    run = run_gate(repo, tmp_path)
    logs = "\n".join(s.log for s in run.steps)
    assert not run.failed, logs
    assert run.step("install").outcome == "uses"  # stood in for by this venv
    assert run.step("compare").outputs == {"exit-code": "0"}, logs
    assert run.step("verdict").outcome == "success"
    out = repo / "todo-bench-gate"
    assert 'failures="0"' in (out / "junit.xml").read_text(encoding="utf-8")
    body = (out / "comment" / "body.md").read_text(encoding="utf-8")
    assert body.startswith(MARKER) and "PASS" in body
    assert (out / "comment" / "pr-number").read_text(encoding="utf-8").strip() == "7"
    assert "PASS" in (tmp_path / "step-summary.md").read_text(encoding="utf-8")
    report = uploaded(run, repo, "todo-bench-report")
    for name in ("leaderboard.md", "leaderboard.html", "summary.json", "compare.md", "junit.xml"):
        assert f"todo-bench-gate/{name}" in report, report
    assert uploaded(run, repo, "todo-bench-comment") == [
        "todo-bench-gate/comment/body.md",
        "todo-bench-gate/comment/pr-number",
    ]


def test_the_gate_fails_a_design_that_drops_todos(repo: Path, tmp_path: Path) -> None:
    # the pull request: the design's module replaced by one that silently drops open items
    shutil.copyfile(REGRESSION, repo / "keepdone_todos" / "__init__.py")
    run = run_gate(repo, tmp_path)
    logs = "\n".join(s.log for s in run.steps)
    assert run.failed
    assert run.step("run").outcome == "success", logs
    assert run.step("compare").outputs == {"exit-code": "1"}, logs
    assert run.step("verdict").outcome == "failure"
    assert "::error title=todo-bench gate::" in run.step("verdict").log
    junit = (repo / "todo-bench-gate" / "junit.xml").read_text(encoding="utf-8")
    assert 'failures="0"' not in junit
    assert 'name="keep-done dropped_todos"><failure' in junit, junit
    body = (repo / "todo-bench-gate" / "comment" / "body.md").read_text(encoding="utf-8")
    assert body.startswith(MARKER) and "FAIL" in body
    assert "changed (exact comparison: any change fails); worse on average" in body
    # the reports are uploaded although the gate failed
    assert "todo-bench-gate/junit.xml" in uploaded(run, repo, "todo-bench-report")


@pytest.mark.heavy  # a third run of the benchmark (~11 s); the two above are the gate's point
def test_a_refused_comparison_fails_and_a_push_gets_no_comment(repo: Path, tmp_path: Path) -> None:
    # the workflow edited to run another suite than the baseline's, pushed to main
    workflow = repo / ".github/workflows/todo-bench.yml"
    text = workflow.read_text(encoding="utf-8").replace("short,user-turn", "excel_export")
    workflow.write_text(text, encoding="utf-8")
    run = run_gate(repo, tmp_path, github={"event_name": "push", "repository": "someone/x"})
    assert run.failed and run.step("compare").outputs == {"exit-code": "2"}
    assert "scenario sets differ" in run.step("compare").log
    assert run.step("verdict").outcome == "failure"
    assert run.step("comment").outcome == "skipped"
    (upload,) = [s for s in run.uses("actions/upload-artifact") if "comment" in s.name]
    assert upload.outcome == "skipped"
    assert not (repo / "todo-bench-gate" / "comment").exists()


def test_a_refused_comparison_is_said_in_the_comment(tmp_path: Path) -> None:
    # the comment step alone, on what a refused compare leaves (no table, one line of error)
    out = tmp_path / "out"
    out.mkdir()
    (out / "compare.md").write_text("", encoding="utf-8")
    (out / "compare.err").write_text("error: not comparable: scenario sets differ\n")
    action = load(GATE)
    (step,) = [s for s in action["runs"]["steps"] if s.get("id") == "comment"]
    script = tmp_path / "comment.sh"
    script.write_text(step["run"], encoding="utf-8")
    env = {**os.environ, "OUT": str(out), "PR_NUMBER": "7"}
    subprocess.run(["bash", "-eo", "pipefail", str(script)], env=env, check=True)
    body = (out / "comment" / "body.md").read_text(encoding="utf-8")
    assert body.startswith(MARKER)
    assert "refused the comparison" in body and "    error: not comparable" in body


@pytest.mark.heavy  # a pip install of todo-bench and the design into a new venv (~15 s)
def test_the_install_step_installs_todo_bench_and_the_design_and_the_gate_runs_on_them(
    repo: Path, tmp_path: Path
) -> None:
    """The whole action, its install step included: todo-bench from the action's own checkout
    (a copy of this one) with its constraints, the design package from the repository. The
    dependencies and the build backend come from this environment (a .pth file; pip sees them
    installed) and pip may use no index: nothing is fetched."""
    skip = {".venv", ".git", "results", "build", ".mypy_cache", ".pytest_cache", ".local-llm"}
    source = tmp_path / "todo-bench"
    shutil.copytree(
        ROOT,
        source,
        ignore=lambda d, names: [
            n
            for n in names
            if (n in skip and Path(d) == ROOT) or n.endswith(".egg-info") or n == "__pycache__"
        ],
    )
    venv = tmp_path / "venv"
    # without its own pip and setuptools: this environment's (setuptools >= 70.1 builds wheels)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = subprocess.run(
        [str(python), "-c", purelib], check=True, capture_output=True, text=True
    ).stdout.strip()
    (Path(site) / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    inputs = gate_inputs(repo / ".github/workflows/todo-bench.yml")
    inputs["design"] = ""  # the installed package registers keep-done: no --design needed
    env = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "PYTHONPATH"}}
    env["PATH"] = f"{venv / 'bin'}:{env.get('PATH', '')}"
    # offline: no index, and the build backend is this environment's setuptools (pip reads
    # PIP_NO_BUILD_ISOLATION=false as --no-build-isolation)
    env.update(PIP_NO_INDEX="1", PIP_NO_BUILD_ISOLATION="false")
    run = run_action(
        source / ".github/actions/todo-bench-gate/action.yml",
        inputs,
        cwd=repo,
        github=PULL_REQUEST,
        temp=temp,
        env=env,
    )
    logs = "\n".join(s.log for s in run.steps)
    assert not run.failed, logs[-5000:]
    assert run.step("install").outcome == "success"
    assert "todo-bench 0.1.0" in run.step("install").log
    where = "import harness, keepdone_todos; print(harness.__file__, keepdone_todos.__file__)"
    found = subprocess.run(
        [str(python), "-c", where], cwd=tmp_path, env=env, capture_output=True, text=True
    ).stdout.split()
    assert found and all(path.startswith(site) for path in found), found
    assert run.step("compare").outputs == {"exit-code": "0"}, logs[-5000:]


# -- the comment poster, with a stand-in for the gh command -------------------------------

FAKE_GH = """#!/bin/bash
# a stand-in for gh: logs each call; answers the head commit and the earlier comment's id
printf '%s\\n' "$*" >> "$GH_LOG"
case "$*" in
  *"/pulls/"*) echo "$FAKE_HEAD" ;;
  "api --paginate "*) if [ -n "$FAKE_EXISTING" ]; then echo "$FAKE_EXISTING"; fi ;;
  "api -X "*)
    for arg in "$@"; do
      case "$arg" in body=@*) cp "${arg#body=@}" "$GH_BODY" ;; esac
    done ;;
esac
"""


def post_comment(
    tmp_path: Path, pr_number: str, head: str = HEAD_SHA, existing: str = ""
) -> tuple[Run, list[str], Path]:
    """The comment action on an artifact holding `pr_number`; gh's calls and the body sent."""
    temp = tmp_path / "runner-temp"
    artifact = temp / "todo-bench-comment"
    artifact.mkdir(parents=True)
    (artifact / "pr-number").write_text(pr_number, encoding="utf-8")
    (artifact / "body.md").write_text(f"{MARKER}\nFAIL: the table\n", encoding="utf-8")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gh").write_text(FAKE_GH, encoding="utf-8")
    (bin_dir / "gh").chmod(0o755)
    log, body = tmp_path / "gh.log", tmp_path / "sent.md"
    github = {
        "repository": "someone/keepdone-todos",
        "token": "not-a-token",
        "event": {"workflow_run": {"id": 42, "head_sha": HEAD_SHA}},
    }
    run = run_action(
        COMMENT,
        {},
        cwd=tmp_path,
        github=github,
        temp=temp,
        env={
            "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}",
            "GH_LOG": str(log),
            "GH_BODY": str(body),
            "FAKE_HEAD": head,
            "FAKE_EXISTING": existing,
        },
    )
    calls = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return run, calls, body


def test_the_comment_is_posted_on_the_gated_pull_request(tmp_path: Path) -> None:
    run, calls, body = post_comment(tmp_path, "7\n")
    assert not run.failed, run.step("post").log
    (download,) = run.uses("actions/download-artifact")
    assert download.with_["run-id"] == "42" and download.with_["name"] == "todo-bench-comment"
    assert calls[0] == "api repos/someone/keepdone-todos/pulls/7 --jq .head.sha"
    assert calls[-1].startswith("api -X POST repos/someone/keepdone-todos/issues/7/comments")
    sent = body.read_text(encoding="utf-8")
    assert sent.startswith(MARKER) and sent.count(MARKER) == 1 and "FAIL: the table" in sent


def test_an_earlier_comment_is_updated_not_repeated(tmp_path: Path) -> None:
    run, calls, _ = post_comment(tmp_path, "7", existing="991")
    assert not run.failed, run.step("post").log
    assert calls[-1].startswith("api -X PATCH repos/someone/keepdone-todos/issues/comments/991")
    assert not any("POST" in call for call in calls)


@pytest.mark.parametrize("pr_number", ["7; touch pwned", "$(touch pwned)", "", "-1"])
def test_a_pr_number_that_is_not_one_is_refused(tmp_path: Path, pr_number: str) -> None:
    run, calls, _ = post_comment(tmp_path, pr_number)
    assert run.failed and calls == []
    assert "not a number" in run.step("post").log
    assert not (tmp_path / "pwned").exists()


def test_a_pull_request_whose_head_moved_gets_no_comment(tmp_path: Path) -> None:
    # a newer commit's gate comments instead; the outdated verdict is not posted
    run, calls, _ = post_comment(tmp_path, "8", head="f" * 40)
    assert not run.failed and "not commenting" in run.step("post").log
    assert len(calls) == 1 and not any("-X" in call for call in calls)


# -- what every workflow and action must keep ---------------------------------------------

SHIPPED = [GATE, COMMENT, *(p for pair in WORKFLOW_PAIRS for p in pair)]


def expanded_in_scripts(path: Path) -> list[str]:
    """The scripts of `path` that expand an expression (`${{ }}`) inside the shell text: an
    input or a PR's title spliced into a script is code injection; they go through env:."""
    return [script for script in scripts(load(path)) if "${{" in script]


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_script_expands_an_expression(path: Path) -> None:
    assert expanded_in_scripts(path) == []


def test_an_expression_in_a_script_is_caught(tmp_path: Path) -> None:
    workflow = tmp_path / "w.yml"
    workflow.write_text(
        "on: push\njobs:\n  j:\n    steps:\n"
        "      - run: echo ${{ github.event.head_commit.message }}\n",
        encoding="utf-8",
    )
    assert len(expanded_in_scripts(workflow)) == 1


@pytest.mark.parametrize(
    ("gate", "commenter"), WORKFLOW_PAIRS, ids=lambda p: str(p.relative_to(ROOT))
)
def test_the_comment_workflow_follows_its_gate_and_runs_no_pr_code(
    gate: Path, commenter: Path
) -> None:
    gate_flow, comment_flow = load(gate), load(commenter)
    assert "pull_request" in gate_flow["on"] and "pull_request_target" not in gate_flow["on"]
    assert "write" not in str(gate_flow.get("permissions", {}))
    trigger = comment_flow["on"]["workflow_run"]
    assert trigger["workflows"] == [gate_flow["name"]] and trigger["types"] == ["completed"]
    for job in comment_flow["jobs"].values():
        assert job["if"] == "github.event.workflow_run.event == 'pull_request'"
        for step in job["steps"]:
            # a checkout here may only be of this repository's default branch, never the PR's
            assert "ref" not in step.get("with", {}) and "repository" not in step.get("with", {})
        uses = [s["uses"].split("@")[0] for s in job["steps"] if "uses" in s]
        assert any(u.endswith("actions/todo-bench-comment") for u in uses), uses
