"""`todo-bench scenarios`: list, validate, check or print the schema of scenario files."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from harness.commands.args import Commands
from harness.errors import UsageError
from harness.suite.scenario import (
    SCENARIO_DIR,
    Scenario,
    ScenarioError,
    check_unique_prompts,
    json_schema,
    load_file,
    load_scenarios,
)


def cmd_scenarios(args: argparse.Namespace) -> int:
    if args.action == "schema":
        print(json_schema())
        return 0
    if args.action == "check":
        from harness.suite.scenario_check import check_files

        paths = _files(args)
        if not paths:
            raise UsageError(f"{args.scenario_dir}: no *.yaml scenario files found")
        lines, code = check_files(paths)
        for line in lines:
            print(line)
        print(f"{len(paths)} scenario files checked: {len(lines)} problems", file=sys.stderr)
        if code != 2:
            print(_agent_readiness(paths), file=sys.stderr)
        return code
    if args.action == "validate":
        return _validate(_files(args), args.scenario_dir)
    if args.paths:
        missing = [p for p in args.paths if not os.path.lexists(p)]
        if missing:
            raise UsageError(
                f"{missing[0]}: does not exist (scenarios list takes scenario files or folders)"
            )
        scenarios = [s for p in _files(args) for s in load_file(p)]
    else:
        scenarios = load_scenarios(Path(args.scenario_dir))
    from tabulate import tabulate

    from harness.agents.support import readiness

    rows = [[s.id, ",".join(s.tags), len(s.subtasks), readiness(s), s.title] for s in scenarios]
    headers = ["id", "tags", "subtasks", "cli rows", "title"]
    print(tabulate(rows, headers=headers, tablefmt="github"))
    return 0


def _files(args: argparse.Namespace) -> list[Path]:
    """The scenario files named: each folder among them stands for its `*.yaml` files (one
    with none is an error); no name at all, the scenario dir's."""
    if not args.paths:
        return sorted(Path(args.scenario_dir).glob("*.yaml"))
    files: list[Path] = []
    for name in args.paths:
        path = Path(name)
        if path.is_dir():
            found = sorted(path.glob("*.yaml"))
            if not found:
                raise UsageError(f"{path}: a folder with no *.yaml scenario files")
            files += found
        else:
            files.append(path)
    return files


def _agent_readiness(paths: list[Path]) -> str:
    """Which checked scenarios the shipping agents' rows (`cli/...`) take, and why not all."""
    from harness.agents.support import readiness

    scenarios = [s for p in paths for s in load_file(p)]
    out = {s.id: said for s in scenarios if (said := readiness(s)) != "yes"}
    line = (
        "agent-ready (every cli/... row takes them): "
        f"{len(scenarios) - len(out)} of {len(scenarios)}"
    )
    if out:
        line += "; not every row: " + ", ".join(f"{sid} ({said})" for sid, said in out.items())
    return line


def _validate(files: list[Path], folder: str) -> int:
    """Every file on its own line, each verified even after a failure; exit 2 if any fails."""
    from harness.run.checked_scenarios import load_verified

    if not files:
        raise UsageError(f"{folder}: no *.yaml scenario files found")
    loaded: list[tuple[Path, Scenario]] = []
    failures = 0
    for path in files:
        try:
            loaded += [(path, s) for s in load_verified(path)]
            print(f"ok  {path}")
        except ScenarioError as error:
            print(f"ERR {error}")
            failures += 1
    try:
        check_unique_prompts(loaded)
    except ScenarioError as error:
        print(f"ERR {error}")
        failures += 1
    print(f"{len(files) - failures} of {len(files)} scenario files valid", file=sys.stderr)
    return 2 if failures else 0


def add(sub: Commands) -> None:
    """Scenario files: list, schema, check."""
    scen = sub.add_parser(
        "scenarios",
        help="list, validate, check (replay, gate, sensitivity, lint) or print the schema",
        description="check exits 0 when every scenario is sound, 1 when it finds problems, "
        "2 when a file is not a valid scenario; one line per problem names file and field.",
    )
    scen.add_argument("action", choices=["list", "validate", "check", "schema"])
    scen.add_argument(
        "paths", nargs="*", help="scenario files or folders of them (default: the scenario dir)"
    )
    scen.add_argument(
        "--scenario-dir", default=str(SCENARIO_DIR), help="folder of scenario YAML files"
    )
    scen.set_defaults(func=cmd_scenarios)
