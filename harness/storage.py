"""Where a run folder lives: a local path, or an object-store URL (`s3://bucket/prefix`, or
anything else fsspec opens, as inspect does for its log directories).

Local paths go through `pathlib` (no fsspec on the everyday path); URLs through fsspec, with the
endpoint and credentials from the standard variables (`AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`,
`AWS_SECRET_ACCESS_KEY`, `AWS_DEFAULT_REGION`), which inspect's own reads use too. Every write is
atomic: a temporary name, then a rename, so a reader never sees half a file.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fsspec import AbstractFileSystem  # type: ignore[import-untyped]


class StoreError(OSError):
    """An object store that failed to answer (endpoint gone, connection cut, credentials
    refused), as one line naming the location and the cause. An OSError, so code that already
    tolerates a failed write (the lease's renewal) tolerates this too; a plain message, so it
    crosses from a worker process to the driver as it is."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "the object store failed"


def store_error(location: str | Path, cause: BaseException) -> StoreError:
    detail = (str(cause).strip().splitlines() or [""])[0][:200]
    return StoreError(f"{location}: the object store failed ({type(cause).__name__}: {detail})")


@contextmanager
def _remote(location: str | Path) -> Iterator[None]:
    """Every fault of a remote operation is a StoreError, except a missing object, which
    callers ask about (FileNotFoundError)."""
    try:
        yield
    except (FileNotFoundError, StoreError):
        raise
    except Exception as error:
        raise store_error(location, error) from error


def is_url(location: str | Path) -> bool:
    return "://" in str(location)


def join(base: str | Path, *parts: str) -> str:
    """`base/part/...` for a path or a URL (a URL keeps its `//`)."""
    if is_url(base):
        return "/".join([str(base).rstrip("/"), *(p.strip("/") for p in parts)])
    return str(Path(base).joinpath(*parts))


def parent(location: str | Path) -> str:
    """The folder a file is in, for a path or a URL."""
    if is_url(location):
        return str(location).rstrip("/").rsplit("/", 1)[0]
    return str(Path(location).parent)


def filesystem(location: str) -> tuple[AbstractFileSystem, str]:
    """The fsspec filesystem of a URL and the path inside it."""
    from fsspec.core import url_to_fs  # type: ignore[import-untyped]

    fs, path = url_to_fs(location)
    return fs, path


def exists(location: str | Path) -> bool:
    if not is_url(location):
        return Path(location).exists()
    with _remote(location):
        fs, path = filesystem(str(location))
        fs.invalidate_cache(path)  # another process (a worker, a second driver) may have written it
        return bool(fs.exists(path))


def is_file(location: str | Path) -> bool:
    if not is_url(location):
        return Path(location).is_file()
    with _remote(location):
        fs, path = filesystem(str(location))
        fs.invalidate_cache(path)
        return bool(fs.isfile(path))


def read_text(location: str | Path) -> str:
    """The file's text; FileNotFoundError when there is none."""
    return read_bytes(location).decode("utf-8")


def read_bytes(location: str | Path) -> bytes:
    """The file's bytes; FileNotFoundError when there is none."""
    if not is_url(location):
        return Path(location).read_bytes()
    with _remote(location):
        fs, path = filesystem(str(location))
        data: bytes = fs.cat_file(path)
        return data


def write_bytes(location: str | Path, data: bytes) -> None:
    """Write a file whole: under a temporary name first, then renamed into place."""
    if not is_url(location):
        target = Path(location)
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.part")
        try:
            temporary.write_bytes(data)
            os.replace(temporary, target)
        except BaseException:  # a full disk, say: no half-written part left beside the file
            temporary.unlink(missing_ok=True)
            raise
        return
    with _remote(location):
        fs, path = filesystem(str(location))
        part = f"{path}.{uuid.uuid4().hex[:8]}.part"
        fs.pipe_file(part, data)
        fs.mv(part, path)


def write_text(location: str | Path, text: str) -> None:
    """Write a text file whole (see `write_bytes`)."""
    write_bytes(location, text.encode("utf-8"))


def put_file(local: Path, location: str) -> None:
    """Copy a local file to a path or URL, whole (see `write_bytes`)."""
    write_bytes(location, local.read_bytes())


def remove_tree(location: str | Path) -> None:
    """Delete a file, or a folder (or prefix) and everything under it, if it exists."""
    if not is_url(location):
        import shutil

        local = Path(location)
        if local.is_dir() and not local.is_symlink():
            shutil.rmtree(local)
        elif local.exists() or local.is_symlink():
            local.unlink()
        return
    with _remote(location):
        fs, path = filesystem(str(location))
        if fs.exists(path):
            fs.rm(path, recursive=True)


def children(location: str | Path) -> list[str]:
    """The names directly under a folder (or prefix); none if it does not exist."""
    if not is_url(location):
        folder = Path(location)
        return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
    with _remote(location):
        fs, path = filesystem(str(location))
        fs.invalidate_cache(path)
        if not fs.exists(path):
            return []
        return sorted(
            str(entry).rstrip("/").rsplit("/", 1)[-1] for entry in fs.ls(path, detail=False)
        )


def rename(source: str | Path, target: str | Path) -> None:
    """Move a file to another name in the same store."""
    if not is_url(source):
        os.replace(source, target)
        return
    with _remote(source):
        fs, path = filesystem(str(source))
        fs.mv(path, filesystem(str(target))[1])


def make_dirs(location: str | Path) -> None:
    """A local folder (object stores have no folders: nothing to do)."""
    if not is_url(location):
        Path(location).mkdir(parents=True, exist_ok=True)
