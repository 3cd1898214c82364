"""`todo-bench hooks install / uninstall / show`: the seed's fixes as Claude Code hooks in a
project's `.claude/settings.json` (docs/hooks.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from harness.cli.args import Commands
from harness.errors import UsageError
from harness.hooks.fixes import DEFAULT, FIXES, parse_fixes
from harness.products.claude_code import SETTINGS


def _fixes(args: argparse.Namespace) -> tuple[str, ...]:
    fixes = parse_fixes(args.fix)
    bench_only = [name for name in fixes if not FIXES[name].deployable]
    if bench_only:
        raise UsageError(
            f"{', '.join(bench_only)} is for benchmark episodes only (it needs a scenario); "
            f"choose from {', '.join(n for n, f in FIXES.items() if f.deployable)}"
        )
    return fixes


def _folder(args: argparse.Namespace) -> Path:
    folder = Path(args.dir)
    if not folder.is_dir():
        raise UsageError(f"{folder}: not a folder")
    return folder


def cmd_install(args: argparse.Namespace) -> int:
    from harness.hooks.install import install

    print(install(_folder(args), _fixes(args), args.command))
    return 0


def cmd_uninstall(args: argparse.Namespace) -> int:
    from harness.hooks.install import uninstall

    print(uninstall(_folder(args)))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from harness.hooks.settings import hooks_for

    print(json.dumps({"hooks": hooks_for(_fixes(args), args.command)}, indent=2))
    return 0


def add(sub: Commands) -> None:
    """`todo-bench hooks`: install, uninstall, show."""
    fixes_help = (
        f"comma-separated, from: {', '.join(n for n, f in FIXES.items() if f.deployable)} "
        f"(default {','.join(DEFAULT)})"
    )
    hooks = sub.add_parser(
        "hooks",
        help=f"the seed's fixes as Claude Code hooks in a project's {SETTINGS}",
        description="; ".join(f"{n}: {f.summary}" for n, f in FIXES.items() if f.deployable),
    )
    actions = hooks.add_subparsers(
        dest="hooks_command", required=True, metavar="{install,show,uninstall}"
    )
    for name, func, helptext in (
        ("install", cmd_install, f"merge the hooks into DIR/{SETTINGS}"),
        ("show", cmd_show, "print the hooks section install would merge"),
    ):
        action = actions.add_parser(name, help=helptext)
        action.add_argument("--fix", default=",".join(DEFAULT), help=fixes_help)
        action.add_argument(
            "--command",
            help="the hook program as the settings name it (default: this installation's "
            "todo-bench-hook by full path)",
        )
        if name == "install":
            action.add_argument("dir", nargs="?", default=".", help="project folder (default .)")
        action.set_defaults(func=func)
    remove = actions.add_parser(
        "uninstall", help=f"remove exactly what install added from DIR/{SETTINGS}"
    )
    remove.add_argument("dir", nargs="?", default=".", help="project folder (default .)")
    remove.set_defaults(func=cmd_uninstall)
