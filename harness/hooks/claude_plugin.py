"""The seed's fixes as a Claude Code plugin: a folder Claude Code's own plugin commands install
(`claude plugin marketplace add DIR`, then `claude plugin install todo-bench-fixes@todo-bench`),
or load for one session (`claude --plugin-dir DIR/todo-bench-fixes`). It holds a one-plugin
marketplace (`DIR/.claude-plugin/marketplace.json`) and the plugin, whose `hooks/hooks.json` is
the same hooks section `todo-bench hooks install` merges into a project's settings
(`settings.hooks_for`): the same program and the same rules, for every project of a user.

The folder is written whole into an empty or missing DIR and nothing is ever written over: a
user's files are never touched.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.errors import UsageError
from harness.hooks.fixes import FIXES
from harness.hooks.settings import hooks_for

#: the plugin's and the marketplace's names, as `claude plugin install` spells them
PLUGIN = "todo-bench-fixes"
MARKETPLACE = "todo-bench"
_AUTHOR = {"name": "todo-bench"}


def plugin_files(fixes: tuple[str, ...], program: str | None, version: str) -> dict[str, Any]:
    """Each file of the plugin folder (path relative to it) and its JSON."""
    summary = "; ".join(f"{name}: {FIXES[name].summary}" for name in fixes)
    about = f"The seed's todo-list fixes as Claude Code hooks ({', '.join(fixes)})"
    return {
        ".claude-plugin/marketplace.json": {
            "name": MARKETPLACE,
            "owner": _AUTHOR,
            "description": "todo-bench's fixes for an agent's todo list, as Claude Code plugins",
            "plugins": [{"name": PLUGIN, "source": f"./{PLUGIN}", "description": about}],
        },
        f"{PLUGIN}/.claude-plugin/plugin.json": {
            "name": PLUGIN,
            "version": version,
            "description": about,
            "author": _AUTHOR,
        },
        f"{PLUGIN}/hooks/hooks.json": {"description": summary, "hooks": hooks_for(fixes, program)},
    }


def write_plugin(
    folder: Path, fixes: tuple[str, ...], program: str | None, version: str
) -> list[Path]:
    """Write the plugin folder into `folder` (made if missing); UsageError, with nothing
    written, if it exists and is not an empty folder."""
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise UsageError(f"{folder}: not a folder; nothing written")
    if folder.is_dir() and any(folder.iterdir()):
        raise UsageError(
            f"{folder}: not empty; the plugin is written into an empty or new folder only "
            "(nothing written)"
        )
    written = []
    for relative, content in plugin_files(fixes, program, version).items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(content, indent=2) + "\n", encoding="utf-8")
        written.append(path)
    return written
