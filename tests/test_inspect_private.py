"""inspect's private reaches (harness/_inspect_private.py): each holds on the tested releases,
each is imported only when used, a moved one is one line naming the installed and the tested
release (for a run, before anything is written), and the bounds in pyproject.toml and the pins
in constraints.txt are the releases the reaches were checked on."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness import _inspect_private as private
from harness.commands import main
from harness.products.catalog import RUNNERS
from tests.helpers import ROOT

#: inspect-swe's agents the products run
AGENTS = sorted({runner.inspect_agent for runner in RUNNERS.values()})
GONE = private.Reach("inspect-ai", "inspect_ai.log._no_such_module", "active_samples")


def test_every_reach_holds_on_the_installed_releases_which_are_the_tested_ones() -> None:
    assert {p: private.installed(p) for p in private.TESTED} == private.TESTED
    assert private.moved(AGENTS) == []
    count = len(private.REACHES) + len(AGENTS)
    assert private.report(AGENTS).splitlines()[-1] == f"{count} of {count} reaches hold"


def test_a_moved_reach_is_one_line_naming_both_releases(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(private, "REACHES", (*private.REACHES, GONE))
    with pytest.raises(private.InspectMoved) as raised:
        private.reach(GONE.path)
    said = str(raised.value)
    assert "\n" not in said
    assert said == (
        f"inspect-ai {private.TESTED['inspect-ai']} has no {GONE.path}, which todo-bench uses "
        f"(tested with inspect-ai {private.TESTED['inspect-ai']}): pip install "
        f"'inspect-ai=={private.TESTED['inspect-ai']}'"
    )
    assert [item for item, _ in private.moved()] == [GONE]
    assert f"  gone: {GONE.path}" in private.report().splitlines()


def test_a_run_whose_model_needs_a_moved_reach_stops_before_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    moved = tuple(
        GONE if r.path == "inspect_ai.log._samples.active_samples" else r for r in private.REACHES
    )
    monkeypatch.setattr(private, "REACHES", moved)
    monkeypatch.setattr(private, "SIM_REACHES", (GONE.path,))
    out = tmp_path / "run"
    argv = ["run", "--model", "sim/sloppy", "--variants", "L0-rewrite", "--scenarios"]
    assert (
        main([*argv, "excel_export", "--epochs", "1", "--display", "none", "--out", str(out)]) == 2
    )
    err = capsys.readouterr().err
    assert "Traceback" not in err and f"has no {GONE.path}" in err.strip().splitlines()[-1]
    assert not out.exists()


def test_a_moved_registry_leaves_the_scorer_unaliased_and_the_import_working(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The alias only serves `inspect score` on a wheel's log: its reach gone, nothing fails."""

    def moved(path: str) -> object:
        raise private.InspectMoved(f"no {path}")

    monkeypatch.setattr(private, "reach", moved)
    private.alias_registered("scorer", "no_such_scorer_alias", object())  # no raise


def test_no_private_module_is_imported_at_the_top_of_the_module() -> None:
    tree = ast.parse((ROOT / "harness" / "_inspect_private.py").read_text(encoding="utf-8"))
    top = [n for n in tree.body if isinstance(n, ast.ImportFrom | ast.Import)]
    names = [n.module or "" for n in top if isinstance(n, ast.ImportFrom)]
    names += [a.name for n in top if isinstance(n, ast.Import) for a in n.names]
    assert not [n for n in names if n.startswith("inspect") and "._" in n], names
    # and importing it (as every run does) loads no inspect-swe module at all
    loaded = subprocess.run(
        [sys.executable, "-c",
         "import sys, harness._inspect_private; print(sorted(m for m in sys.modules "
         "if m.startswith('inspect_swe') or m.startswith('inspect_ai.log._samples')))"],
        capture_output=True, text=True, check=True, cwd=ROOT,
    ).stdout.strip()  # fmt: skip
    assert "inspect_swe" not in loaded, loaded


def test_pyproject_and_constraints_allow_exactly_the_tested_releases() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    pins = (ROOT / "constraints.txt").read_text(encoding="utf-8")
    for package, release in private.TESTED.items():
        assert f'"{package}>={release},<={release}"' in pyproject, package
        assert re.search(rf"^{package.replace('-', '_')}=={re.escape(release)}$", pins, re.M)


def test_each_products_bridge_port_key_is_read_from_inspect_swes_own_module() -> None:
    """No table of keys: each is the `MODEL_PORT` its agent's module declares."""
    assert {agent: private.bridge_port_key(agent) for agent in AGENTS} == {
        "claude_code": "claude_code_model_port",
        "codex_cli": "codex_cli_model_port",
        "gemini_cli": "gemini_cli_model_port",
        "opencode": "opencode_model_port",
    }


def test_a_bridge_port_key_gone_from_inspect_swe_is_one_line_and_listed_as_moved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the agent's module as a release that no longer declares MODEL_PORT would have it
    elsewhere = private.PortKey("inspect_swe._util.sandbox", "MODEL_PORT")
    monkeypatch.setattr(private, "port_key", lambda agent: elsewhere)
    private.bridge_port_key.cache_clear()
    try:
        with pytest.raises(private.InspectMoved) as raised:
            private.bridge_port_key("claude_code")
        assert "\n" not in str(raised.value) and "claude_code" in str(raised.value)
        assert [item for item, _ in private.moved(["claude_code"])] == [elsewhere]
        assert (
            "  gone: inspect_swe._util.sandbox store key MODEL_PORT"
            in private.report(["claude_code"]).splitlines()
        )
    finally:
        private.bridge_port_key.cache_clear()


def test_an_agent_inspect_swe_does_not_have_is_one_line() -> None:
    private.bridge_port_key.cache_clear()
    with pytest.raises(private.InspectMoved, match="no_such_agent"):
        private.bridge_port_key("no_such_agent")
