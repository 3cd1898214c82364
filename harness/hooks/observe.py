"""A product's tool call in the seed's terms, for the gates' trackers: its file tools (`Write`,
`Edit`, `Read`, ...) on a workspace file are the seed's `write_file` / `read_file`; a shell call
that runs the helper command (`todo-bench-tool`, in benchmark episodes) is the seed calls the
helper's journal holds; any other shell call is what its command line's words say it did, as far
as the workspace bears it out (`harness/suite/shell_calls.py`: how Codex CLI works on a user's
machine), and so is a patch (`apply_patch`); any other call is observed under its own name."""

from __future__ import annotations

import os
from typing import Any

from harness.hooks.state import HookState
from harness.suite.cli_tools import JOURNAL, SHELLS, from_cli, helper_journal, helper_runs
from harness.suite.shell_calls import PATCH_START, patch_calls, settled, shell_calls

#: a seed call and whether it succeeded
Observed = tuple[str, dict[str, Any], bool]


def seed_calls(state: HookState, tool: str, args: dict[str, Any], cwd: str) -> list[Observed]:
    """The calls one successful product call made (the helper's are read once each)."""
    native = (tool, args)
    if helper_runs(native):
        return _helper_calls(state)
    command = args.get(SHELLS.get(tool, ""))
    if isinstance(command, str):
        return [(name, a, True) for name, a in settled(shell_calls(command, cwd), cwd)]
    patch = next((v for v in args.values() if isinstance(v, str) and PATCH_START in v), None)
    if patch is not None:
        return [(name, a, True) for name, a in settled(patch_calls(patch, cwd), cwd)]
    name, seed_args = from_cli(native, cwd) or native
    return [(name, seed_args, True)]


def _helper_calls(state: HookState) -> list[Observed]:
    path = os.environ.get(JOURNAL)
    calls = helper_journal(path) if path else []
    new, state.helper_lines = calls[state.helper_lines :], len(calls)
    return [(call.tool, call.args, call.ok) for call in new]
