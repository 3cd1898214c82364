"""The chosen fixes in a project's hooks file, Claude Code's `.claude/settings.json`, Codex CLI's
`.codex/hooks.json` or Gemini CLI's `.gemini/settings.json` (the same `hooks` section: events,
matcher groups, command entries; Gemini's with its own event names, its timeouts in ms):
merged with what is there (a user's own hooks are never changed or reordered; ours go in groups
of their own, after theirs), and removed again exactly.

Our hook entries are recognised by their program, `todo-bench-hook`. The first install keeps
the file as it was (its exact text, or that there was none) in `todo-bench-hooks.json` beside
it, so an uninstall that finds nothing else changed restores it byte for byte (or removes the
files it created); if the user edited the file since, only our entries are taken out.
"""

from __future__ import annotations

import copy
import shlex
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from harness.errors import UsageError
from harness.hooks.fixes import events_of
from harness.hooks.hosts import DEFAULT, HOSTS, Host

PROGRAM = "todo-bench-hook"
#: seconds the product waits for one of our hooks before treating it as failed (let through);
#: written in the product's unit (Gemini CLI's are milliseconds)
TIMEOUT = 30
RECORD = "todo-bench-hooks.json"

Settings = dict[str, Any]


class SettingsError(UsageError):
    """A settings file this command will not touch; the message says why in one line."""


class InstallRecord(BaseModel):
    """What the first install found, so that uninstall can put it back."""

    #: the settings file's text before the first install; None: there was no file
    original: str | None
    #: whether the install created the product's folder (`.claude`, `.codex`, `.gemini`)
    created_dir: bool
    #: the topmost folder the install created, relative to the project ("" for none; OpenCode's
    #: plugin folder can be two deep, `.opencode/plugins`)
    created: str = ""
    fixes: list[str]
    command: str


def default_program() -> str:
    """This installation's hook program by its full path (it works without an activated
    environment), else the bare name for PATH to find."""
    beside = Path(sys.executable).parent / PROGRAM
    return str(beside) if beside.is_file() else PROGRAM


def hook_command(
    fixes: tuple[str, ...], program: str | None = None, host: Host = HOSTS[DEFAULT]
) -> str:
    """The command line of our hook entries (`--product` named for any product but the
    default, so existing Claude Code installs keep their exact command)."""
    product = "" if host.name == DEFAULT else f"--product {host.name} "
    return f"{shlex.quote(program or default_program())} {product}{','.join(fixes)}"


def is_ours(hook: object) -> bool:
    """A hook entry this command wrote: a command whose program is todo-bench-hook."""
    command = hook.get("command") if isinstance(hook, dict) else None
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    return bool(words) and Path(words[0]).name == PROGRAM


def hooks_for(
    fixes: tuple[str, ...], program: str | None = None, host: Host = HOSTS[DEFAULT]
) -> Settings:
    """The `hooks` section the fixes need in one product: one group per (event, matcher), one
    command each."""
    command = hook_command(fixes, program, host)
    entry = {"type": "command", "command": command, "timeout": TIMEOUT * host.wire.per_second}
    section: Settings = {}
    for event, matcher in events_of(fixes, host):
        group: Settings = {"matcher": matcher} if matcher else {}
        section.setdefault(event, []).append({**group, "hooks": [dict(entry)]})
    return section


def check(settings: object, where: str, fields: tuple[str, ...] = ()) -> Settings:
    """The settings as a dict, or SettingsError naming the first part of the wrong shape;
    `fields` are keys of `hooks` that are the product's switches, not events (Gemini CLI's
    `enabled`, `disabled`, `notifications`)."""
    if not isinstance(settings, dict):
        raise SettingsError(f"{where}: not a JSON object; left untouched")
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsError(f"{where}: 'hooks' is not an object; left untouched")
    for event, groups in hooks.items():
        if event in fields:
            continue
        if not isinstance(groups, list) or not all(
            isinstance(g, dict) and isinstance(g.get("hooks", []), list) for g in groups
        ):
            raise SettingsError(
                f"{where}: 'hooks.{event}' is not a list of matcher groups; left untouched"
            )
    return settings


def without_ours(settings: Settings) -> Settings:
    """The settings with our entries taken out, and the groups, events and section that only
    held ours; everything else as it was."""
    out = copy.deepcopy(settings)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        if not isinstance(hooks[event], list):  # a product's switch in the section (`check`)
            continue
        kept = []
        for group in hooks[event]:
            entries = group.get("hooks", [])
            mine = [h for h in entries if is_ours(h)]
            if mine and len(mine) == len(entries):
                continue
            if mine:
                group["hooks"] = [h for h in entries if not is_ours(h)]
            kept.append(group)
        if len(kept) < len(hooks[event]) and not kept:
            del hooks[event]
        else:
            hooks[event] = kept
    if not hooks and "hooks" in settings and settings["hooks"]:
        del out["hooks"]
    return out


def merged(
    settings: Settings,
    fixes: tuple[str, ...],
    program: str | None = None,
    host: Host = HOSTS[DEFAULT],
) -> Settings:
    """The settings with our groups for the fixes, after the user's own (any of ours that were
    there before replaced)."""
    out = without_ours(settings)
    hooks = out.setdefault("hooks", {})
    for event, groups in hooks_for(fixes, program, host).items():
        hooks.setdefault(event, []).extend(groups)
    return out
