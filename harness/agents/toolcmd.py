"""`todo-bench-tool NAME 'JSON'`: one seed workspace tool, run inside a CLI episode.

The CLI agent runs it through its own shell in the workspace; it runs the harness's own
workspace code on the current directory (paths leaving it are refused, as in the harness's
loop) and appends the call to the episode's journal (`TODO_BENCH_JOURNAL`), the harness's own
record of what the tool did.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from harness.products.catalog import OWN_FOLDERS
from harness.suite.cli_tools import JOURNAL, HelperCall
from harness.suite.workspace import Workspace, perform
from harness.suite.workspace_tools import BY_NAME

__all__ = ["JOURNAL", "main"]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (1, 2) or args[0] not in BY_NAME:
        print(f"usage: todo-bench-tool {{{','.join(BY_NAME)}}} ['JSON arguments']", file=sys.stderr)
        return 2
    name = args[0]
    problem: str | None
    try:
        kwargs = json.loads(args[1]) if len(args) == 2 else {}
    except json.JSONDecodeError as error:
        kwargs, problem = {}, f"arguments are not JSON: {error.msg}"
    else:
        problem = None if isinstance(kwargs, dict) else "arguments must be a JSON object"
    if problem is None:
        result, ok = perform(name, getattr(Workspace(Path.cwd(), hidden=OWN_FOLDERS), name), kwargs)
    else:
        result, ok = problem, False
    journal = os.environ.get(JOURNAL)
    if journal:
        args_given = kwargs if isinstance(kwargs, dict) else {}
        call = HelperCall(tool=name, args=args_given, ok=ok, result=result[:500])
        with open(journal, "a", encoding="utf-8") as handle:
            handle.write(call.line())
    print(result, file=sys.stdout if ok else sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
