"""What a CLI episode keeps in its sample's store so that `todo-bench verify` can re-derive it
from the log alone: the product's own record of its calls, and the final workspace (each file's
sha256, and its bytes up to a cap)."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import Any

from inspect_ai.util import StoreModel
from pydantic import Field

#: the final workspace's bytes kept in the log at most (every scenario's is a few kB); past it
#: only the digests are kept, and verify says the outcome checks were trusted
KEPT_BYTES = 2 * 1024 * 1024


class CliEvidence(StoreModel):
    """The product's record of the episode's calls (`CallRecord`s as JSON) and the final
    workspace: every file's sha256, and every file's bytes (base64) unless past KEPT_BYTES."""

    calls: list[dict[str, Any]] = Field(default_factory=list)
    digests: dict[str, str] = Field(default_factory=dict)
    files: dict[str, str] = Field(default_factory=dict)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def workspace_evidence(root: Path, names: list[str]) -> tuple[dict[str, str], dict[str, str]]:
    """The digests of the files `names` under `root`, and their bytes (base64) if all of them
    fit in KEPT_BYTES (else none: a partial workspace would fail checks that hold)."""
    contents = {name: (root / name).read_bytes() for name in names}
    digests = {name: digest(data) for name, data in contents.items()}
    if sum(len(data) for data in contents.values()) > KEPT_BYTES:
        return digests, {}
    return digests, {
        name: base64.b64encode(data).decode("ascii") for name, data in contents.items()
    }
