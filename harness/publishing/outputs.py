"""A summary's files in a folder: a run folder's own (summary.json and the markdown board), or a
published whole set (every format and the page's picture, as `make bench` keeps results/latest).
A folder is a local path or an object-store URL (`harness/storage.py`)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from harness import storage
from harness.publishing.formats import FORMATS, leaderboard
from harness.results.summary import Summary, write_summary

#: the picture of the html page beside the published set (scripts/regenerate.sh once made it)
SCREENSHOT = "leaderboard.png"


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


def publish_run(summary: Summary, folder: str | Path) -> str:
    """Write a run's summary.json and its full markdown leaderboard into a folder (a path or
    an object-store URL); returns the leaderboard."""
    board = leaderboard(summary, "md")
    write_summary(summary, storage.join(folder, "summary.json"))
    storage.write_text(storage.join(folder, "leaderboard.md"), board)
    return board


def publish_set(summary: Summary, folder: str, say: Callable[[str], None] = _stderr) -> None:
    """Publish a run into a folder as a whole set: summary.json and every leaderboard format
    (`FORMATS`: md, html, tex, csv), and the page's screenshot, leaderboard.png, retaken when
    chromium is installed and removed otherwise (it would show other numbers). A folder that
    already holds this summary byte for byte, and every format, is left as it is: the html
    page carries the date it was rendered, so rewriting it would change a committed file for
    nothing (`todo-bench report FOLDER` renders it again on purpose)."""
    text = summary.model_dump_json(indent=2) + "\n"
    files = {name: render for name, render in FORMATS.values() if name is not None}
    current = storage.join(folder, "summary.json")
    if (
        storage.is_file(current)
        and storage.read_text(current) == text
        and all(storage.is_file(storage.join(folder, name)) for name in files)
    ):
        say(f"todo-bench: {folder} already holds this summary; left as it is")
        return
    # everything rendered before anything is written: a rendering failure leaves the old set
    rendered = {name: render(summary) for name, render in files.items()}
    write_summary(summary, current)
    for name, content in rendered.items():
        storage.write_text(storage.join(folder, name), content)
    picture = retake_screenshot(folder)
    say(f"todo-bench: published to {folder}: summary.json, {', '.join(rendered)}{picture}")


def _browser() -> str | None:
    """The chromium that takes the screenshot, if one is installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def retake_screenshot(folder: str) -> str:
    """Take leaderboard.png of the new page with chromium, or remove the old one."""
    target = storage.join(folder, SCREENSHOT)
    browser = _browser()
    if browser and not storage.is_url(folder):
        page = Path(folder, "leaderboard.html").resolve()
        command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
        command += ["--window-size=1800,2600", f"--screenshot={Path(target).resolve()}"]
        try:
            done = subprocess.run(
                [*command, page.as_uri()], capture_output=True, timeout=120, check=False
            )
            if done.returncode == 0 and Path(target).is_file():
                return f", {SCREENSHOT}"
        except (OSError, subprocess.TimeoutExpired):
            pass
    if not storage.exists(target):
        return ""
    storage.remove_tree(target)
    return (
        f"; {SCREENSHOT} removed: it showed the numbers before "
        "(scripts/regenerate.sh retakes it where chromium is installed)"
    )
