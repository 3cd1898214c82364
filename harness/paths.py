"""Workspace-relative path spelling: one rule for the sandbox, the rules and the scenario files.

Pure string work, linear in the path's length, so it is safe on any input.
"""

from __future__ import annotations

#: bounds on a path (the OS allows more; no scenario or sane agent needs it)
MAX_PATH_CHARS = 1024
MAX_PATH_PARTS = 32
MAX_NAME_CHARS = 255


class PathRefused(ValueError):
    """A path that is empty, too long, or points outside the workspace."""


def normalise(path: object) -> str:
    """The canonical workspace-relative spelling of a path (`./a//b` -> `a/b`), or refuse."""
    raw = str(path).strip()
    if not raw:
        raise PathRefused("path required.")
    if len(raw) > MAX_PATH_CHARS:
        raise PathRefused(f"Refused: path longer than {MAX_PATH_CHARS} characters.")
    if "\x00" in raw:
        raise PathRefused("Refused: path contains a NUL character.")
    text = raw.replace("\\", "/")
    if text.startswith("/") or raw.startswith("~"):
        raise PathRefused(f"Refused: '{raw}' is absolute; use a path inside the workspace.")
    parts = [part for part in text.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise PathRefused(f"Refused: '{raw}' leaves the workspace.")
    if len(parts) > MAX_PATH_PARTS or any(len(part) > MAX_NAME_CHARS for part in parts):
        raise PathRefused(
            f"Refused: at most {MAX_PATH_PARTS} folders deep, {MAX_NAME_CHARS} characters per name."
        )
    return "/".join(parts) or "."
