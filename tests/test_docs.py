"""The README and docs/ say only true things about the tree: every file or folder they name
exists, every local link resolves, every `todo-bench` command they show exists, and the README
stays a front page (at most 250 lines)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.commands import build_parser
from tests.helpers import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TOP = ("harness/", "scripts/", "tests/", "results/", "docs/", "scenarios/", "examples/", "evals/")
PATH = re.compile(r"`((?:" + "|".join(re.escape(t) for t in TOP) + r")[^`\s]*)`")
LINK = re.compile(r"\]\(([^)#\s]+)\)")
#: a command as shown: in inline code or at the start of a line of a code block
COMMAND = re.compile(r"(?:^|`)todo-bench ([a-z][a-z-]+)", re.MULTILINE)


def named_paths(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    found = [m.group(1).rstrip(".,:;") for m in PATH.finditer(text)]
    # placeholders and patterns are not paths
    return [p for p in found if not re.search(r"[<>*{}]|RUN|NAME|\.\.\.", p)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_named_file_exists(page: Path) -> None:
    missing = [p for p in named_paths(page) if not (ROOT / p.split(":")[0]).exists()]
    assert missing == [], f"{page.name} names files that do not exist"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_local_link_resolves(page: Path) -> None:
    links = [m.group(1) for m in LINK.finditer(page.read_text(encoding="utf-8"))]
    local = [link for link in links if "://" not in link]
    assert [link for link in local if not (page.parent / link).exists()] == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_command_shown_exists(page: Path) -> None:
    import argparse

    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    commands = set(sub.choices)
    shown = {m.group(1) for m in COMMAND.finditer(page.read_text(encoding="utf-8"))}
    assert shown - commands == set(), f"{page.name} shows commands that do not exist"


def test_the_readme_is_a_front_page() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 250, lines


def test_a_wrong_path_or_command_is_caught(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("See `harness/nowhere.py` and run `todo-bench frobnicate`.\n", encoding="utf-8")
    assert (
        named_paths(page) == ["harness/nowhere.py"] and not (ROOT / "harness/nowhere.py").exists()
    )
    assert {m.group(1) for m in COMMAND.finditer(page.read_text())} == {"frobnicate"}


def stated_task_versions(text: str) -> list[int]:
    """Every task version a page states as current (`TASK_VERSION` ..., now N)."""
    return [int(n) for n in re.findall(r"`TASK_VERSION`[^)]*?, now (\d+)", text)]


def test_the_stated_task_version_is_the_true_one() -> None:
    from harness.versions import TASK_VERSION

    text = (ROOT / "docs" / "running.md").read_text(encoding="utf-8")
    assert stated_task_versions(text) == [TASK_VERSION]
    assert stated_task_versions("(`TASK_VERSION` in `x.py`, now 3: old)") == [3]
