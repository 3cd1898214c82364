"""What every command group shares: the one-line-error parser, number types, reading a
summary named on the command line."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn, TypeAlias

from pydantic import ValidationError

from harness import storage
from harness.errors import UsageError
from harness.results.summary import SCHEMA_VERSION, SchemaVersionError, Summary, read_summary


class Parser(argparse.ArgumentParser):
    """argparse with its errors in one line (no usage dump), exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


#: the sub-parser collection each command group adds its commands to
Commands: TypeAlias = "argparse._SubParsersAction[Parser]"


def positive(text: str) -> int:
    value = integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def positive_at_most(limit: int, why: str = "") -> Callable[[str], int]:
    """A whole number from 1 to `limit` (`why`, if given, is added to the refusal)."""

    def parse(text: str) -> int:
        value = positive(text)
        if value > limit:
            raise argparse.ArgumentTypeError(f"must be at most {limit:,}{why}, got {value}")
        return value

    return parse


def non_negative(text: str) -> int:
    value = integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None


def number_between(low: float | None, high: float | None) -> Callable[[str], float]:
    """A finite number strictly above `low` and below `high` (None: no bound that side)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not math.isfinite(value) or (low is not None and value <= low):
            raise argparse.ArgumentTypeError(_range(low, high) + f", got {text}")
        if high is not None and value >= high:
            raise argparse.ArgumentTypeError(_range(low, high) + f", got {text}")
        return value

    return parse


def _range(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"must be between {low:g} and {high:g}"
    return f"must be more than {low:g}" if low is not None else f"must be less than {high:g}"


def summary_path(path: str) -> str:
    """A run folder's summary.json, or the file itself; a local path or an object-store URL."""
    if not storage.is_url(path):
        local = Path(path)
        local = local / "summary.json" if local.is_dir() else local
        if not local.is_file():
            raise UsageError(f"{path}: no summary.json found")
        return str(local)
    candidate = path if path.endswith(".json") else storage.join(path, "summary.json")
    try:
        found = storage.is_file(candidate)
    except (OSError, ValueError, ImportError) as error:
        raise UsageError(f"{path}: cannot read ({error})") from error
    if not found:
        raise UsageError(f"{path}: no summary.json found")
    return candidate


def read(path: str) -> Summary:
    source = summary_path(path)
    try:
        return read_summary(source)
    except SchemaVersionError as error:
        raise UsageError(f"{source}: {error}") from error
    except ValidationError as error:
        detail = error.errors()[0]
        where = ".".join(str(part) for part in detail["loc"]) or "(top level)"
        raise UsageError(
            f"{source}: not a todo-bench summary of schema version {SCHEMA_VERSION} "
            f"(field '{where}': {detail['msg']})"
        ) from error
    except ValueError as error:
        first = str(error).splitlines()
        reason = first[1].strip() if len(first) > 1 else first[0] if first else "invalid"
        raise UsageError(
            f"{source}: not a todo-bench summary of schema version {SCHEMA_VERSION} ({reason})"
        ) from error
