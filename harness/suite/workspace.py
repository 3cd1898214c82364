"""The sandboxed per-episode directory and the operations behind the workspace tools."""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import os
import shutil
import stat
import tempfile
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from pathlib import Path
from typing import IO, Any, TypeVar

from openpyxl import Workbook, load_workbook
from openpyxl.utils import range_boundaries
from openpyxl.utils.exceptions import IllegalCharacterError

from harness import paths
from harness.suite.scenario import Scenario


class WorkspaceError(Exception):
    """A workspace operation that failed; returned to the model as a tool error."""


T = TypeVar("T")


class _Memo:
    """A bounded map from a content key to what was made from it, least recently used out.

    openpyxl's parsing and writing are most of an `.xlsx` tool call's or check's cost, and a
    run meets the same contents again and again (every epoch, the checks and the agent read
    the file just written); results are shared, so callers copy what they hand out."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._made: OrderedDict[Hashable, Any] = OrderedDict()

    def get(self, key: Hashable, make: Callable[[], T]) -> T:
        if key in self._made:
            self._made.move_to_end(key)
            found: T = self._made[key]
            return found
        made = make()  # an error leaves nothing behind
        self._made[key] = made
        if len(self._made) > self.size:
            self._made.popitem(last=False)
        return made


#: per process, shared by every workspace: parsed `.xlsx` files by (content, what was read)
_PARSED = _Memo(256)
#: per process: the bytes `create_excel` wrote, by (the file it replaced, sheet, rows)
_WRITTEN = _Memo(256)


class Workspace:
    """A temporary directory; every path is resolved inside it or refused."""

    def __init__(self, root: Path, hidden: tuple[str, ...] = ()) -> None:
        """`hidden`: folders (with their `/`) kept out of the listing: a shipping CLI's own
        folder in the project (its settings, the hooks or plugin installed there) is not the
        task's work, so `list_files` and `create_excel`'s `from_workspace_files` leave it out."""
        self.root = root.resolve()
        self._root = str(self.root)
        self.hidden = hidden

    @classmethod
    def create(cls, scenario: Scenario, under: Path | None = None) -> Workspace:
        """A new workspace with the scenario's files, in a new folder `under` the given one
        (default: the host's temporary folder)."""
        root = Path(tempfile.mkdtemp(prefix=f"todo-bench-{scenario.id}-", dir=under))
        workspace = cls(root)
        # literal and generated inputs alike: a scenario whose inputs are missing is unsolvable
        for spec in scenario.all_files():
            target = workspace.resolve(spec.path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(spec.content, encoding="utf-8")
        return workspace

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    @staticmethod
    def normalise(path: object) -> str:
        """The canonical workspace-relative spelling of a path, or refuse (`harness.paths`)."""
        try:
            return paths.normalise(path)
        except paths.PathRefused as refused:
            raise WorkspaceError(str(refused)) from refused

    def resolve(self, path: str) -> Path:
        """Map a workspace-relative path to a real path, refusing anything outside."""
        relative = self.normalise(path)
        # realpath follows symlinks, so a link pointing out is caught here too
        target = os.path.realpath(os.path.join(self._root, relative))
        if target != self._root and not target.startswith(self._root + os.sep):
            raise WorkspaceError(f"Refused: '{str(path).strip()}' leaves the workspace.")
        return Path(target)

    def rel(self, target: Path) -> str:
        return target.relative_to(self.root).as_posix()

    def files(self) -> list[str]:
        every = (self.rel(p) for p in self.root.rglob("*") if p.is_file())
        return sorted(f for f in every if not f.startswith(self.hidden))

    # -- operations ------------------------------------------------------------
    def list_files(self) -> str:
        files = self.files()
        return "\n".join(files) if files else "(workspace is empty)"

    def read_file(self, path: str) -> str:
        target = self._existing(path)
        if target.suffix == ".xlsx":
            return "\n".join(
                f"[{name}] " + ", ".join(row)
                for name, rows in self.xlsx(path).items()
                for row in rows
            )
        return target.read_text(encoding="utf-8", errors="replace")

    def write_file(self, path: str, content: str) -> str:
        target = self.resolve(path)
        text = str(content)
        self._write(target, path, _encode(text))
        return f"Wrote {len(text)} characters to {self.rel(target)}."

    def rename_file(self, src: str, dst: str) -> str:
        source = self._existing(src)
        target = self.resolve(dst)
        if os.path.lexists(target):
            raise WorkspaceError(f"'{dst}' already exists.")
        with self._parents(target):
            source.rename(target)
        return f"Renamed {self.rel(source)} -> {self.rel(target)}."

    def delete_file(self, path: str) -> str:
        target = self._existing(path)
        target.unlink()
        return f"Deleted {self.rel(target)}."

    def create_excel(
        self,
        path: str,
        rows: list[list[Any]] | None = None,
        from_workspace_files: bool = False,
        sheet: str = "Sheet1",
    ) -> str:
        target = self.resolve(path)
        if target.suffix != ".xlsx":
            raise WorkspaceError(f"'{path}' must end with .xlsx.")
        if from_workspace_files:
            listed = [f for f in self.files() if f != self.rel(target)]
            table = [["file"], *[[f] for f in listed]]
        elif rows:
            table = _table(rows)
        else:
            raise WorkspaceError("give `rows` or set `from_workspace_files` to true.")
        old = target.read_bytes() if target.is_file() else None
        replaced = None if old is None else hashlib.sha256(old).digest()
        key = (replaced, sheet, tuple(map(tuple, table)))
        self._write(target, path, _WRITTEN.get(key, lambda: _excel(old, path, sheet, table)))
        return f"Wrote sheet '{sheet}' with {len(table)} rows to {self.rel(target)}."

    def write_csv(self, path: str, rows: list[list[Any]]) -> str:
        target = self.resolve(path)
        table = _table(rows)
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows(table)
        self._write(target, path, _encode(buffer.getvalue()))
        return f"Wrote {len(table)} rows to {self.rel(target)}."

    # -- reading back (outcome checks) ------------------------------------------
    def xlsx(self, path: str) -> dict[str, list[list[str]]]:
        sheets: dict[str, list[list[str]]] = self._read(path, "sheets", _read_sheets)
        return {name: [list(row) for row in rows] for name, rows in sheets.items()}

    def xlsx_sheet_names(self, path: str) -> list[str]:
        def read(file: IO[bytes], path: str) -> list[str]:
            book = _load_book(file, path, read_only=True)
            names = list(book.sheetnames)
            book.close()
            return names

        return list(self._read(path, "names", read))

    def xlsx_cells(self, path: str, sheet: str | None, cells: str) -> list[list[str]]:
        def read(file: IO[bytes], path: str) -> list[list[str]]:
            book = _load_book(file, path)
            try:
                worksheet = book[sheet] if sheet else book.worksheets[0]
            except KeyError as error:
                raise WorkspaceError(f"'{path}' has no sheet {sheet!r}.") from error
            low_col, low_row, high_col, high_row = range_boundaries(cells)
            rows = worksheet.iter_rows(
                min_row=low_row,
                max_row=high_row,
                min_col=low_col,
                max_col=high_col,
                values_only=True,
            )
            return [["" if value is None else str(value) for value in row] for row in rows]

        found: list[list[str]] = self._read(path, ("cells", sheet, cells), read)
        return [list(row) for row in found]

    def _read(self, path: str, what: Hashable, read: Callable[[IO[bytes], str], T]) -> T:
        """`read(file, path)`, made once per content of the file and `what` was read."""
        raw = self._existing(path).read_bytes()
        key = (hashlib.sha256(raw).digest(), what)
        return _PARSED.get(key, lambda: read(io.BytesIO(raw), path))

    def csv_rows(self, path: str) -> list[list[str]]:
        return list(csv.reader(io.StringIO(self._existing(path).read_text(encoding="utf-8"))))

    def _write(self, target: Path, path: str, data: bytes) -> None:
        """Replace `target` with `data` whole or not at all: a failed write changes nothing."""
        if os.path.lexists(target) and not stat.S_ISREG(os.stat(target).st_mode):
            kind = "a folder" if target.is_dir() else "not a regular file"
            raise WorkspaceError(f"'{path}' is {kind}; cannot write it.")
        with self._parents(target):
            handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(data)
                os.replace(temporary, target)
            except BaseException:
                os.unlink(temporary)
                raise

    @contextlib.contextmanager
    def _parents(self, target: Path) -> Iterator[None]:
        """Create the folders `target` needs, and remove them again if the body fails."""
        missing = []
        folder = target.parent
        while not folder.exists() and folder != self.root:
            missing.append(folder)
            folder = folder.parent
        for created in reversed(missing):
            created.mkdir()
        try:
            yield
        except BaseException:
            for created in missing:
                with contextlib.suppress(OSError):
                    created.rmdir()
            raise

    def _existing(self, path: str) -> Path:
        target = self.resolve(path)
        if not target.is_file():
            raise WorkspaceError(f"No such file: '{path}'.")
        return target


def _excel(old: bytes | None, path: str, sheet: str, table: list[list[str]]) -> bytes:
    """An `.xlsx` file: `old` (if any) with `sheet` replaced by `table`, or a new one."""
    if old is not None:
        book = _load_book(io.BytesIO(old), path)
        if sheet in book.sheetnames:
            del book[sheet]
        worksheet = book.create_sheet(sheet)
    else:
        book = Workbook()
        worksheet = book.active
        assert worksheet is not None
        worksheet.title = sheet
    try:
        for row in table:
            worksheet.append(row)
    except (ValueError, IllegalCharacterError) as error:  # control characters
        raise WorkspaceError(f"a cell cannot hold this text ({error}).") from error
    data = io.BytesIO()
    book.save(data)
    return data.getvalue()


def _read_sheets(file: IO[bytes], path: str) -> dict[str, list[list[str]]]:
    book = _load_book(file, path, read_only=True)
    sheets = {
        ws.title: [
            ["" if cell is None else str(cell) for cell in row]
            for row in ws.iter_rows(values_only=True)
        ]
        for ws in book.worksheets
    }
    book.close()
    return sheets


def _load_book(file: IO[bytes], path: str, read_only: bool = False) -> Workbook:
    try:
        return load_workbook(file, read_only=read_only)
    except Exception as error:  # openpyxl raises many types for a corrupt file
        raise WorkspaceError(f"'{path}' is not a valid .xlsx file: {error}") from error


def _encode(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as error:  # lone surrogates: refused before anything is written
        raise WorkspaceError(f"the text cannot be stored as UTF-8 ({error.reason}).") from error


def _table(rows: object) -> list[list[str]]:
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise WorkspaceError("`rows` must be a list of lists of cell values.")
    return [[str(cell) for cell in row] for row in rows]


def malformed(tool: str, failure: Exception) -> str:
    detail = str(failure)[:200] or type(failure).__name__
    if isinstance(failure, KeyError):
        detail = f"missing argument {failure}"
    return f"{tool} could not use these arguments ({detail}); check the tool's parameters."


def perform(name: str, op: Callable[..., str], kwargs: dict[str, Any]) -> tuple[str, bool]:
    """Run one workspace operation: its answer and whether it succeeded (a refusal, bad
    arguments or a file-system error is an answer, never an exception)."""
    try:
        return op(**kwargs), True
    except WorkspaceError as error:
        return str(error), False
    except (TypeError, ValueError) as error:
        return f"bad arguments: {error}", False
    except OSError as error:  # e.g. writing to a path that is a directory
        return f"the file system refused: {error.strerror or error}", False
    except Exception as failure:  # e.g. openpyxl refusing a cell: never end the episode
        return malformed(name, failure), False
