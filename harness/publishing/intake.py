"""Reading files nobody vouches for, within bounds: a submission's archive, its folder, its JSON.

Every bound is checked before the work it bounds: an archive's member count from its
end-of-central-directory record (before the directory itself is parsed, so a million members
cost nothing), its declared sizes and expansion ratio from the directory (before anything is
written), and again while it is extracted (a header that lies about a size is caught as the
bytes arrive). A folder is walked with `lstat` only: a symlink, FIFO, device or socket is
refused before anything opens it (opening a FIFO blocks, reading /dev/zero never ends). A JSON
file is refused past a size, and past a nesting depth found by a scan of its brackets before
`json.loads` recurses into it.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import struct
import tarfile
import zipfile
from pathlib import Path, PurePosixPath
from typing import IO

from pydantic import BaseModel, Field

from harness.errors import UsageError

MiB = 1 << 20
#: copied in blocks of this size (memory stays flat whatever a member's size)
BLOCK = MiB


class Limits(BaseModel):
    """What reading one submission may cost; `todo-bench verify`'s flags raise them."""

    max_members: int = Field(10_000, ge=1, description="files and folders in an archive or folder")
    max_bytes: int = Field(512 * MiB, ge=1, description="total size of the files, expanded")
    max_ratio: float = Field(200.0, ge=1, description="an archive's expanded size / its size")
    max_json_bytes: int = Field(64 * MiB, ge=1, description="one JSON file")
    max_json_depth: int = Field(64, ge=1, description="nesting of one JSON file")


DEFAULT = Limits()


def check_zip(path: Path, limits: Limits) -> list[zipfile.ZipInfo]:
    """An archive's members, refused (UsageError) when they break a bound or would leave it;
    nothing is extracted and the directory is parsed only once its member count is known."""
    count = zip_member_count(path)
    if count > limits.max_members:
        raise UsageError(
            f"{path}: {count} archive members, above the bound of {limits.max_members} "
            "(--max-members raises it)"
        )
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (OSError, zipfile.BadZipFile) as error:
        raise UsageError(f"{path}: not a readable archive ({error})") from error
    for member in members:
        _safe_name(path, member.filename)
        if stat.S_ISLNK(member.external_attr >> 16):
            raise UsageError(f"{path}: member {member.filename} is a link")
    _sizes(path, sum(m.file_size for m in members), path.stat().st_size, limits)
    return members


def zip_member_count(path: Path) -> int:
    """The member count a zip's end-of-central-directory record gives (zip64's when set)."""
    try:
        with path.open("rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            tail_at = max(0, size - (1 << 16) - 22)
            handle.seek(tail_at)
            tail = handle.read()
            end = tail.rfind(b"PK\x05\x06")
            if end < 0 or len(tail) - end < 22:
                raise UsageError(f"{path}: not a readable archive (no end of central directory)")
            count = struct.unpack("<H", tail[end + 10 : end + 12])[0]
            locator = end - 20
            if locator >= 0 and tail[locator : locator + 4] == b"PK\x06\x07":
                (record_at,) = struct.unpack("<Q", tail[locator + 8 : locator + 16])
                handle.seek(record_at)
                record = handle.read(56)
                if record[:4] == b"PK\x06\x06" and len(record) == 56:
                    count = struct.unpack("<Q", record[32:40])[0]  # the 16-bit count says 0xFFFF
            return int(count)
    except OSError as error:
        raise UsageError(f"{path}: not a readable archive ({error})") from error


def extract_zip(path: Path, into: Path, limits: Limits) -> None:
    """Every member of a checked zip written under `into`, the bounds enforced on the bytes
    themselves (a member that expands past its declared size is refused)."""
    members = check_zip(path, limits)
    written = 0
    with zipfile.ZipFile(path) as archive:
        for member in members:
            target = into / member.filename
            if member.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(member) as source, target.open("xb") as sink:
                written = _copy(source, sink, written, member.file_size, path, member.filename)
                _sizes(path, written, path.stat().st_size, limits)


def extract_tar(path: Path, into: Path, limits: Limits) -> None:
    """Every member of a .tar.gz written under `into`, streamed: only folders and regular
    files, each within the bounds as it arrives (a tar has no directory to check first)."""
    count = written = 0
    with tarfile.open(path, "r|gz") as packed:
        for member in packed:
            count += 1
            if count > limits.max_members:
                raise UsageError(
                    f"{path}: more than {limits.max_members} archive members "
                    "(--max-members raises it)"
                )
            _safe_name(path, member.name)
            target = into / member.name
            if member.isdir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            if not member.isfile():
                raise UsageError(f"{path}: member {member.name} is a link or a special file")
            _sizes(path, written + member.size, path.stat().st_size, limits)
            source = packed.extractfile(member)
            if source is None:  # isfile() above: never, but the type says it may
                raise UsageError(f"{path}: member {member.name} cannot be read")
            target.parent.mkdir(parents=True, exist_ok=True)
            with source, target.open("xb") as sink:
                written = _copy(source, sink, written, member.size, path, member.name)
            packed.members = []  # type: ignore[attr-defined]  # a streamed tar keeps every header


def _copy(
    source: IO[bytes], sink: IO[bytes], written: int, declared: int, path: Path, name: str
) -> int:
    """Copy one member block by block; refused when it gives more bytes than it declared."""
    own = 0
    while block := source.read(BLOCK):
        own += len(block)
        if own > declared:
            raise UsageError(f"{path}: member {name} expands past the size its header declares")
        sink.write(block)
    return written + own


def _safe_name(path: Path, name: str) -> None:
    parts = PurePosixPath(name).parts
    if name.startswith(("/", "\\")) or ".." in parts or "\\" in name or ":" in name:
        raise UsageError(f"{path}: member {name} leaves the archive")


def _sizes(path: Path, expanded: int, packed: int, limits: Limits) -> None:
    if expanded > limits.max_bytes:
        raise UsageError(
            f"{path}: expands to more than {limits.max_bytes} bytes (--max-bytes raises it)"
        )
    if expanded > limits.max_ratio * max(packed, 1) and expanded > MiB:
        raise UsageError(
            f"{path}: expands {expanded / max(packed, 1):.0f} times its size, above the bound "
            f"of {limits.max_ratio:g} (--max-ratio raises it)"
        )


def regular_files(folder: Path, limits: Limits) -> list[Path]:
    """Every file under a folder, in path order, each a regular file inside it: anything else
    (a symlink, wherever it points; a FIFO; a device; a socket) is refused by its `lstat`
    before anything opens it, and so are more members or bytes than the bounds allow."""
    found: list[Path] = []
    pending = [folder]
    count = total = 0
    while pending:
        current = pending.pop()
        try:
            entries = sorted(os.scandir(current), key=lambda e: e.name)
        except OSError as error:
            raise UsageError(f"{current}: cannot be listed ({error.strerror})") from error
        for entry in entries:
            count += 1
            if count > limits.max_members:
                raise UsageError(
                    f"{folder}: more than {limits.max_members} files and folders "
                    "(--max-members raises it)"
                )
            mode = entry.stat(follow_symlinks=False).st_mode
            if stat.S_ISDIR(mode):
                pending.append(Path(entry.path))
            elif stat.S_ISREG(mode):
                total += entry.stat(follow_symlinks=False).st_size
                if total > limits.max_bytes:
                    raise UsageError(
                        f"{folder}: its files hold more than {limits.max_bytes} bytes "
                        "(--max-bytes raises it)"
                    )
                found.append(Path(entry.path))
            else:
                raise UsageError(f"{entry.path}: {_kind(mode)}, not a regular file: refused")
    return sorted(found)


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symlink"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


#: a JSON string (brackets inside it do not nest) or one bracket
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


def json_text(path: Path, limits: Limits) -> str:
    """A JSON file's text, refused (UsageError) when it is not a regular file, is larger than
    the bound, or nests deeper than it (found before any parser recurses)."""
    try:
        mode = path.lstat()
    except OSError as error:
        raise UsageError(f"{path.name}: cannot be read ({error.strerror})") from error
    if not stat.S_ISREG(mode.st_mode):
        raise UsageError(f"{path.name}: {_kind(mode.st_mode)}, not a regular file: refused")
    if mode.st_size > limits.max_json_bytes:
        raise UsageError(
            f"{path.name}: {mode.st_size} bytes, above the bound of {limits.max_json_bytes} for a "
            "JSON file (--max-json-bytes raises it)"
        )
    data = path.read_bytes()
    depth = deepest = 0
    for token in _TOKENS.finditer(data):
        bracket = token.group()
        if bracket in (b"[", b"{"):
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limits.max_json_depth:
                    raise UsageError(
                        f"{path.name}: nested deeper than {limits.max_json_depth} levels: refused"
                    )
        elif bracket in (b"]", b"}"):
            depth -= 1
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UsageError(f"{path.name}: not UTF-8 ({error.reason})") from error


def copy_regular(files: list[Path], source: Path, target: Path) -> None:
    """Copy files (found by `regular_files`) from under `source` to the same paths under
    `target`; a file that stopped being regular since is refused, not followed."""
    for path in files:
        destination = target / path.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        try:
            handle = os.open(path, flags)
        except OSError as error:
            raise UsageError(f"{path}: cannot be read ({error.strerror})") from error
        with os.fdopen(handle, "rb") as reader:
            if not stat.S_ISREG(os.fstat(reader.fileno()).st_mode):
                raise UsageError(f"{path}: not a regular file: refused")
            with destination.open("xb") as writer:
                shutil.copyfileobj(reader, writer, BLOCK)
