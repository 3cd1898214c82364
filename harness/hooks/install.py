"""`todo-bench hooks install / uninstall` on a project folder's files, for Claude Code
(`.claude/settings.json`), Codex CLI (`.codex/hooks.json`), Gemini CLI
(`.gemini/settings.json`) or OpenCode (its plugin, `.opencode/plugins/todo-bench.js`, written
whole: `plugin.py`) (the merge itself is `settings.py`, the safe reading and writing
`projectfiles.py`). A settings file that is not
JSON, not of the documented shape, or not a file this command may replace is left untouched and
named in one line; nothing is written until everything that will be written is known to be
writable; and the project is locked for the whole command."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from harness.hooks import plugin, projectfiles
from harness.hooks.hosts import DEFAULT, HOSTS, Host
from harness.hooks.settings import (
    RECORD,
    InstallRecord,
    Settings,
    SettingsError,
    check,
    hook_command,
    merged,
    without_ours,
)

#: nesting deeper than this is refused (settings are a few levels deep; the parser, the merge
#: and the writer all recurse)
MAX_DEPTH = 100


def _paths(folder: Path, host: Host) -> tuple[Path, Path]:
    settings = folder / host.config
    return settings, settings.parent / RECORD


def _parse(text: str, where: Path) -> object:
    """JSON text as data, or SettingsError in one line."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise SettingsError(f"{where}: not JSON ({error.msg}); left untouched") from error
    except RecursionError as error:
        raise SettingsError(
            f"{where}: nested deeper than {MAX_DEPTH} levels; left untouched"
        ) from error
    if _depth(data) > MAX_DEPTH:
        raise SettingsError(f"{where}: nested deeper than {MAX_DEPTH} levels; left untouched")
    return data


def _depth(data: object) -> int:
    """How deep lists and objects nest (iteratively: the depth is what is in question)."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, dict):
            value = list(value.values())
        if isinstance(value, list):
            deepest = max(deepest, level)
            if level <= MAX_DEPTH:
                stack.extend((child, level + 1) for child in value)
    return deepest


def _read(path: Path, host: Host) -> tuple[str | None, Settings]:
    """The file's exact text (None if absent) and its settings."""
    text = projectfiles.read_text(path)
    if text is None:
        return None, {}
    return text, check(_parse(text, path), str(path), host.wire.config_fields)


def _record(path: Path) -> InstallRecord | None:
    text = projectfiles.read_text(path)
    if text is None:
        return None
    try:
        return InstallRecord.model_validate_json(text)
    except ValidationError as error:
        raise SettingsError(
            f"{path}: not a todo-bench install record ({error.errors()[0]['msg']}); left "
            "untouched (remove it to install afresh)"
        ) from error


def _json(settings: Settings) -> str:
    text = json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a \ud800 escape: keep it escaped
        text = json.dumps(settings, indent=2) + "\n"
    return text


def _via(path: Path, folder: Path) -> str:
    """How the line says where the file really is, when a link takes it out of the project."""
    real = projectfiles.outside(path, folder)
    return (
        ""
        if real is None
        else f" (through a link: the file changed is {real}, outside the project)"
    )


def _check_folder(own: Path) -> None:
    """The product's folder (`.claude`, `.codex`) is a folder, or a link to one, or absent;
    SettingsError otherwise."""
    if own.is_symlink() and not own.exists():
        raise SettingsError(
            f"{own}: a link to {own.readlink()}, which does not exist; nothing changed"
        )
    if own.exists() and not own.is_dir():
        raise SettingsError(f"{own}: not a folder; nothing changed")


def install(
    folder: Path,
    fixes: tuple[str, ...],
    program: str | None = None,
    host: Host = HOSTS[DEFAULT],
) -> str:
    """Merge the fixes' hooks into the product's hooks file in FOLDER; what was done, in one
    line."""
    with projectfiles.locked(folder):
        return _install(folder, fixes, program, host)


def _install(folder: Path, fixes: tuple[str, ...], program: str | None, host: Host) -> str:
    if host.kind == "plugin":
        return _install_plugin(folder, fixes, program, host)
    path, record_path = _paths(folder, host)
    _check_folder(path.parent)
    text, settings = _read(path, host)
    record = _record(record_path) or InstallRecord(
        original=text, created_dir=not path.parent.exists(), fixes=[], command=""
    )
    new = merged(settings, fixes, program, host)
    if text is not None and new == settings:
        return f"{path}: the hooks for {','.join(fixes)} are already installed"
    record.fixes, record.command = list(fixes), hook_command(fixes, program, host)
    return _write(folder, path, text, _json(new), record)


def _write(folder: Path, path: Path, text: str | None, new: str, record: InstallRecord) -> str:
    """Write the product's file and the install's record beside it (both checked writable
    first; the file taken back if the record cannot be written); what was done, in one line."""
    record_path = path.parent / RECORD
    projectfiles.writable(path)
    projectfiles.writable(record_path)
    projectfiles.write_text(path, new)
    try:
        projectfiles.write_text(record_path, record.model_dump_json(indent=2) + "\n")
    except SettingsError:  # without its record the install could not be undone: take it back
        if text is None:
            projectfiles.remove(path)
        else:
            projectfiles.write_text(path, text)
        raise
    return f"{path}: installed {','.join(record.fixes)}{_via(path, folder)}"


def uninstall(folder: Path, host: Host = HOSTS[DEFAULT]) -> str:
    """Take our hooks out of the product's hooks file in FOLDER; what was done, in one line."""
    with projectfiles.locked(folder):
        return _uninstall(folder, host)


def _uninstall(folder: Path, host: Host) -> str:
    if host.kind == "plugin":
        return _uninstall_plugin(folder, host)
    path, record_path = _paths(folder, host)
    _check_folder(path.parent)
    text, settings = _read(path, host)
    record = _record(record_path)
    cleaned = without_ours(settings)
    before = (
        None if record is None or record.original is None else _parse(record.original, record_path)
    )
    if text is None or (cleaned == settings and record is None):
        return f"{path}: no todo-bench hooks to remove"
    projectfiles.writable(path)
    if record is not None and record.original is None and not cleaned and not path.is_symlink():
        projectfiles.remove(path)
        said = "removed (the install had created it)"
    elif record is not None and record.original is not None and before == cleaned:
        projectfiles.write_text(path, record.original)
        said = "restored as it was before the install"
    else:  # a link is written through, never removed: the install did not create it
        projectfiles.write_text(path, _json(cleaned))
        said = "todo-bench hooks removed (the rest kept as it is now)"
    if record is not None:
        projectfiles.remove(record_path)
    own = path.parent
    if (
        record is not None
        and record.created_dir
        and not own.is_symlink()
        and not any(own.iterdir())
    ):
        own.rmdir()
    return f"{path}: {said}{_via(path, folder)}"


def _created(path: Path, folder: Path) -> str:
    """The topmost folder on the way to `path` that does not exist yet, relative to the
    project ("" if all do): what uninstall may remove again once it is empty."""
    missing = [p for p in path.relative_to(folder).parents if p.parts and not (folder / p).exists()]
    return str(missing[-1]) if missing else ""


def _own_plugin(path: Path) -> str | None:
    """The text of our plugin at `path` (None: no file); SettingsError for a file of the user's,
    which is never replaced or removed."""
    text = projectfiles.read_text(path)
    if text is not None and not plugin.is_ours(text):
        raise SettingsError(
            f"{path}: a plugin file that todo-bench did not write; left untouched (move it to "
            "install ours)"
        )
    return text


def _install_plugin(folder: Path, fixes: tuple[str, ...], program: str | None, host: Host) -> str:
    path, record_path = _paths(folder, host)
    _check_folder(folder / Path(host.config).parts[0])
    _check_folder(path.parent)
    text = _own_plugin(path)
    new = plugin.plugin_text(fixes, program, host)
    if text == new:
        return f"{path}: the plugin for {','.join(fixes)} is already installed"
    record = _record(record_path) or InstallRecord(
        original=None,
        created_dir=not path.parent.exists(),
        created=_created(path, folder),
        fixes=[],
        command="",
    )
    record.fixes, record.command = list(fixes), hook_command(fixes, program, host)
    return _write(folder, path, text, new, record)


def _uninstall_plugin(folder: Path, host: Host) -> str:
    path, record_path = _paths(folder, host)
    _check_folder(path.parent)
    record = _record(record_path)
    if _own_plugin(path) is None:
        return f"{path}: no todo-bench plugin to remove"
    projectfiles.writable(path)
    if path.is_symlink():  # a link is never removed: the install did not create it
        raise SettingsError(
            f"{path}: a link (to {path.readlink()}); left untouched (remove it, or the file it "
            "names, by hand)"
        )
    projectfiles.remove(path)
    if record is not None:
        projectfiles.remove(record_path)
        # the folders the install created, innermost first, each only while empty
        top = folder / record.created if record.created else None
        own = path.parent
        while top is not None and own != folder and (own == top or top in own.parents):
            if own.is_symlink() or any(own.iterdir()):
                break
            own.rmdir()
            own = own.parent
    return f"{path}: removed (the install had created it){_via(path, folder)}"
