"""The files `todo-bench hooks install / uninstall` touch in a project, read and written so that
nothing is lost: only regular files are read (a fifo, a device, a folder or a dangling link is
refused by its type before it is opened, and the open cannot block), at most 1 MB of them;
writes go to a temporary file beside the target and replace it atomically, through a link
(the link stays a link); and the project folder is locked for the whole command, so installs
and uninstalls at once take turns."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from harness.filekind import read_regular
from harness.hooks.settings import SettingsError

#: a settings file or install record larger than this is refused, not read
MAX_BYTES = 1_000_000
#: seconds a command waits for another one working on the same project
LOCK_WAIT = 30.0


@contextlib.contextmanager
def locked(project: Path, wait: float = LOCK_WAIT) -> Iterator[None]:
    """Hold the project folder's lock (a flock on the folder itself: no file is created)."""
    try:
        fd = os.open(project, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as error:
        raise SettingsError(f"{project}: cannot open the folder ({_why(error)})") from error
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise SettingsError(
                        f"{project}: another todo-bench hooks install or uninstall has held "
                        f"this project for {wait:g} s; nothing changed (try again)"
                    ) from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # releases the lock


def target(path: Path) -> Path:
    """Where a write to `path` lands: `path`, or the file its link names (links followed)."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def outside(path: Path, project: Path) -> Path | None:
    """The file a write to `path` would change, if that is outside the project."""
    real, root = Path(os.path.realpath(path)), Path(os.path.realpath(project))
    return None if real == root or root in real.parents else real


def read_text(path: Path) -> str | None:
    """A file's text, None if there is none; SettingsError (one line) for anything else than a
    readable regular UTF-8 file of at most MAX_BYTES."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise SettingsError(f"{path}: cannot read ({_why(error)}); left untouched") from error
    try:
        kind, raw = read_regular(path, MAX_BYTES)
    except FileNotFoundError as error:  # lstat saw it: a link to nothing
        link = os.readlink(path)
        raise SettingsError(
            f"{path}: a link to {link}, which does not exist; left untouched (not created "
            "through the link)"
        ) from error
    except OSError as error:
        raise SettingsError(f"{path}: cannot read ({_why(error)}); left untouched") from error
    if kind is not None:
        raise SettingsError(f"{path}: {kind}, not a regular file; left untouched")
    if len(raw) > MAX_BYTES:
        raise SettingsError(f"{path}: larger than {MAX_BYTES:,} bytes; left untouched")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SettingsError(
            f"{path}: not JSON (not UTF-8: byte 0x{raw[error.start]:02x} at offset "
            f"{error.start}); left untouched"
        ) from error


def writable(path: Path) -> None:
    """SettingsError unless `path` (through a link) can be replaced: its folder writable, and
    the file itself, if it exists, not read-only (a read-only file is the user's choice)."""
    real = target(path)
    folder = real.parent
    while not folder.exists():  # a folder still to be created: its first existing parent
        folder = folder.parent
    if real.exists() and _read_only(real):
        raise SettingsError(f"{real}: read-only; nothing changed")
    if _read_only(folder):
        raise SettingsError(f"{folder}: a read-only folder; nothing changed")


def _read_only(path: Path) -> bool:
    """Not writable by us, or with no write permission for anyone: the owner's choice, which
    root (who may write anyway) respects too."""
    return not os.access(path, os.W_OK) or not path.stat().st_mode & 0o222


def write_text(path: Path, text: str) -> None:
    """Replace `path` (through a link: the link stays) with `text` atomically, keeping the
    file's permissions."""
    real = target(path)
    mode = real.stat().st_mode & 0o7777 if real.exists() else None
    try:
        real.parent.mkdir(parents=True, exist_ok=True)
        fd, scratch = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(text.encode("utf-8"))
                handle.flush()
                os.fsync(handle.fileno())
            if mode is not None:
                os.chmod(scratch, mode)
            os.replace(scratch, real)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(scratch)
            raise
    except OSError as error:
        raise SettingsError(f"{real}: cannot write ({_why(error)}); nothing changed") from error


def remove(path: Path) -> None:
    """Remove a file this command created (a regular file only: never a link or a folder)."""
    try:
        path.unlink()
    except OSError as error:
        raise SettingsError(f"{path}: cannot remove ({_why(error)})") from error


def _why(error: OSError) -> str:
    if error.errno == errno.ENOSPC:
        return "no space left on the device"
    return error.strerror or str(error)
