"""`todo-bench hooks install / uninstall` on a project folder's files (the merge itself is
`settings.py`). A settings file that is not JSON, or not of the documented shape, is left
untouched and named in one line."""

from __future__ import annotations

import json
from pathlib import Path

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
from harness.products.claude_code import SETTINGS


def _paths(folder: Path) -> tuple[Path, Path]:
    settings = folder / SETTINGS
    return settings, settings.parent / RECORD


def _read(path: Path) -> tuple[str | None, Settings]:
    """The file's exact text (None if absent) and its settings."""
    if not path.is_file():
        return None, {}
    try:
        text = path.read_bytes().decode("utf-8")
        return text, check(json.loads(text), str(path))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        reason = error.msg if isinstance(error, json.JSONDecodeError) else "not UTF-8"
        raise SettingsError(f"{path}: not JSON ({reason}); left untouched") from error


def _write(path: Path, settings: Settings) -> None:
    path.write_bytes((json.dumps(settings, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def install(folder: Path, fixes: tuple[str, ...], program: str | None = None) -> str:
    """Merge the fixes' hooks into FOLDER/.claude/settings.json; what was done, in one line."""
    path, record_path = _paths(folder)
    text, settings = _read(path)
    record = (
        InstallRecord.model_validate_json(record_path.read_text(encoding="utf-8"))
        if record_path.is_file()
        else InstallRecord(
            original=text, created_dir=not path.parent.exists(), fixes=[], command=""
        )
    )
    new = merged(settings, fixes, program)
    if text is not None and new == settings:
        return f"{path}: the hooks for {','.join(fixes)} are already installed"
    path.parent.mkdir(parents=True, exist_ok=True)
    _write(path, new)
    record.fixes, record.command = list(fixes), hook_command(fixes, program)
    record_path.write_text(record.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return f"{path}: installed {','.join(fixes)}"


def uninstall(folder: Path) -> str:
    """Take our hooks out of FOLDER/.claude/settings.json; what was done, in one line."""
    path, record_path = _paths(folder)
    text, settings = _read(path)
    record = (
        InstallRecord.model_validate_json(record_path.read_text(encoding="utf-8"))
        if record_path.is_file()
        else None
    )
    cleaned = without_ours(settings)
    before = None if record is None or record.original is None else json.loads(record.original)
    if text is None or (cleaned == settings and record is None):
        return f"{path}: no todo-bench hooks to remove"
    if record is not None and record.original is None and not cleaned:
        path.unlink()
        said = "removed (the install had created it)"
    elif record is not None and record.original is not None and before == cleaned:
        path.write_bytes(record.original.encode("utf-8"))
        said = "restored as it was before the install"
    else:
        _write(path, cleaned)
        said = "todo-bench hooks removed (the rest kept as it is now)"
    record_path.unlink(missing_ok=True)
    if record is not None and record.created_dir and not any(path.parent.iterdir()):
        path.parent.rmdir()
    return f"{path}: {said}"
