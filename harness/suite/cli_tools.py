"""The workspace tools in a shipping CLI's terms, declared once for both directions.

A CLI agent has its own tools (Claude Code: `Write`, `Read`, `Edit`, `Bash`; Codex CLI:
`exec_command`, its shell; OpenCode: `write`, `read`, `edit`, `bash`); the scenarios' tools
are the seed's (`write_file`, `create_excel`, ...). Inside a CLI episode every seed tool is also
a command, `todo-bench-tool NAME 'JSON'` (`harness/agents/toolcmd.py`), which runs the harness's
own workspace code and journals the call, so any scenario can be solved through a CLI. This
module says how a seed call is made through the CLI (the simulated agent's side) and which
native CLI calls are a seed call (the record's side, for the subtasks' tool rules).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel

from harness.products.catalog import FILE_TOOLS
from harness.products.catalog import SHELLS as PRODUCT_SHELLS
from harness.suite.workspace_tools import SPECS

Call = tuple[str, dict[str, Any]]

#: the command that runs a seed workspace tool inside a CLI episode
HELPER = "todo-bench-tool"
#: the environment variable naming the episode's journal of helper calls (written by the
#: helper, read by the episode and by the hooks' gates)
JOURNAL = "TODO_BENCH_JOURNAL"


class HelperCall(BaseModel):
    """One line of the helper's journal: a seed workspace tool it ran, and what came of it."""

    tool: str
    args: dict[str, Any]
    ok: bool
    #: the tool's answer, cut to its first 500 characters
    result: str

    def line(self) -> str:
        return json.dumps(self.model_dump(), ensure_ascii=False) + "\n"


def helper_journal(path: str | Path) -> list[HelperCall]:
    """Every call the helper journaled at `path`, in order (none when there is no file)."""
    journal = Path(path)
    if not journal.is_file():
        return []
    lines = journal.read_text(encoding="utf-8").splitlines()
    return [HelperCall.model_validate_json(line) for line in lines if line.strip()]


#: the line the episode adds to the CLI's system prompt; the workspace root follows the colon
WORKSPACE_LINE = "The task's workspace (your working directory) is: "
_ROOT = re.compile(re.escape(WORKSPACE_LINE) + r"(\S+)")
#: each CLI's shell tool -> the argument holding its command line: a CLI offering one can be
#: driven this way (`harness/products/`)
SHELLS = {shell.tool: shell.command for shell in PRODUCT_SHELLS}
#: the shells whose schema asks for a description of the command
_DESCRIBED = frozenset(shell.tool for shell in PRODUCT_SHELLS if shell.described)


def workspace_note(root: str) -> str:
    """What a CLI agent is told about the workspace and the helper command."""
    return (
        f"{WORKSPACE_LINE}{root}\n"
        f"Besides your own tools, the command `{HELPER} NAME 'JSON'` runs one workspace tool "
        "of this task with its arguments as a JSON object: "
        f"{', '.join(spec.brief for spec in SPECS)}. Paths are relative to the workspace."
    )


def workspace_root(system: str) -> str | None:
    """The workspace root a CLI episode announced in its system prompt, if any."""
    found = _ROOT.search(system)
    return found.group(1) if found else None


def helper_command(name: str, args: dict[str, Any]) -> str:
    return f"{HELPER} {name} {shlex.quote(json.dumps(args, ensure_ascii=False))}"


def shell_of(offered: set[str]) -> str | None:
    """The CLI's shell tool among the offered tools, if it has one."""
    return next((shell for shell in SHELLS if shell in offered), None)


def to_cli(call: Call, root: str, offered: set[str]) -> Call:
    """A seed workspace call made through a CLI: text files through its own `Write` and `Read`
    where it has them, everything else through the helper command (run by its shell tool)."""
    name, args = call
    path = args.get("path")
    own = next((f for f in FILE_TOOLS if {f.write, f.read} <= offered), None)
    if own is not None and isinstance(path, str):
        if name == "write_file":
            return own.write, {own.path: f"{root}/{path}", "content": args.get("content", "")}
        if name == "read_file" and not path.endswith(".xlsx"):
            return own.read, {own.path: f"{root}/{path}"}
    shell = shell_of(offered)
    if shell is None:
        raise ValueError(f"no shell tool among {sorted(offered)} to run {name} through")
    extra = {"description": f"Run {name}"} if shell in _DESCRIBED else {}
    return shell, {SHELLS[shell]: helper_command(name, args), **extra}


def _relative(path: Any, root: str) -> str | None:
    if not isinstance(path, str):
        return None
    pure = PurePosixPath(path)
    if not pure.is_absolute():
        return str(pure)
    try:
        return str(pure.relative_to(root))
    except ValueError:
        return None  # outside the workspace: not a workspace call


def from_cli(call: Call, root: str) -> Call | None:
    """The seed workspace call a native CLI call is, if it is one (`Write` and `Edit` write a
    file, `Read` reads one); helper commands are taken from the helper's own journal."""
    name, args = call
    for own in FILE_TOOLS:
        path = _relative(args.get(own.path), root)
        if path is None:
            continue
        if name == own.write:
            return "write_file", {"path": path, "content": args.get("content", "")}
        if name in own.edits:
            return "write_file", {"path": path}
        if name == own.read:
            return "read_file", {"path": path}
    return None


def helper_runs(call: Call) -> int:
    """How many helper commands a native call runs (a shell command may chain several)."""
    name, args = call
    command = args.get(SHELLS.get(name, ""))
    if not isinstance(command, str):
        return 0
    return len(re.findall(rf"(?:^|[\s;&|(]){re.escape(HELPER)}\s", command))
