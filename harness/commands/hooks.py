"""`todo-bench hooks install / uninstall / show`: the seed's fixes as a product's hooks in a
project: Claude Code's `.claude/settings.json` (the default), Codex CLI's `.codex/hooks.json`
(`--product codex`), Gemini CLI's `.gemini/settings.json` (`--product gemini-cli`) or
OpenCode's plugin `.opencode/plugins/todo-bench.js` (`--product opencode`) (docs/hooks.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from harness.commands.args import Commands
from harness.errors import UsageError
from harness.hooks import hosts
from harness.hooks.fixes import DEFAULT, FIXES, parse_fixes


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


def _host(args: argparse.Namespace) -> hosts.Host:
    return hosts.HOSTS[args.product]


def cmd_install(args: argparse.Namespace) -> int:
    from harness.hooks.install import install

    host = _host(args)
    print(install(_folder(args), _fixes(args), args.command, host))
    if host.notice:  # what the product needs before it runs them
        print(host.notice)
    return 0


def cmd_uninstall(args: argparse.Namespace) -> int:
    from harness.hooks.install import uninstall

    print(uninstall(_folder(args), _host(args)))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from harness.hooks.plugin import plugin_text
    from harness.hooks.settings import hooks_for

    host = _host(args)
    if host.kind == "plugin":
        print(plugin_text(_fixes(args), args.command, host), end="")
        return 0
    section = hooks_for(_fixes(args), args.command, host)
    print(json.dumps({"hooks": section}, indent=2))
    return 0


def cmd_plugin(args: argparse.Namespace) -> int:
    from importlib.metadata import version

    from harness.hooks.claude_plugin import MARKETPLACE, PLUGIN, write_plugin

    folder = Path(args.dir)
    write_plugin(folder, _fixes(args), args.command, version("todo-bench"))
    print(f"wrote Claude Code plugin {PLUGIN} in marketplace {MARKETPLACE} at {folder}")
    print(
        f"install it for every project: claude plugin marketplace add {folder.resolve()} && "
        f"claude plugin install {PLUGIN}@{MARKETPLACE}; or for one session: claude "
        f"--plugin-dir {(folder / PLUGIN).resolve()}"
    )
    return 0


def _product(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--product",
        choices=tuple(hosts.HOSTS),
        default=hosts.DEFAULT,
        help="whose hooks file: "
        + "; ".join(f"{h.name}: DIR/{h.config}" for h in hosts.HOSTS.values())
        + f" (default {hosts.DEFAULT})",
    )


def add(sub: Commands) -> None:
    """`todo-bench hooks`: install, uninstall, show."""
    fixes_help = (
        f"comma-separated, from: {', '.join(n for n, f in FIXES.items() if f.deployable)} "
        f"(default {','.join(DEFAULT)})"
    )
    hooks = sub.add_parser(
        "hooks",
        help="the seed's fixes as a product's hooks in a project (Claude Code, Codex CLI, "
        "Gemini CLI) or its plugin (OpenCode)",
        description="; ".join(f"{n}: {f.summary}" for n, f in FIXES.items() if f.deployable),
    )
    actions = hooks.add_subparsers(
        dest="hooks_command", required=True, metavar="{install,show,plugin,uninstall}"
    )
    for name, func, helptext in (
        ("install", cmd_install, "merge the hooks into the product's hooks file in DIR"),
        ("show", cmd_show, "print the hooks section (OpenCode: the plugin) install would write"),
    ):
        action = actions.add_parser(name, help=helptext)
        _product(action)
        action.add_argument("--fix", default=",".join(DEFAULT), help=fixes_help)
        action.add_argument(
            "--command",
            help="the hook program as the settings name it (default: this installation's "
            "todo-bench-hook by full path)",
        )
        if name == "install":
            action.add_argument("dir", nargs="?", default=".", help="project folder (default .)")
        action.set_defaults(func=func)
    plugin = actions.add_parser(
        "plugin",
        help="write the fixes as a Claude Code plugin (a one-plugin marketplace) into DIR",
        description="Claude Code installs it with its own commands (`claude plugin "
        "marketplace add DIR`, `claude plugin install todo-bench-fixes@todo-bench`) for every "
        "project, or loads it for one session (`claude --plugin-dir DIR/todo-bench-fixes`); "
        "DIR must be empty or new",
    )
    plugin.add_argument("--fix", default=",".join(DEFAULT), help=fixes_help)
    plugin.add_argument(
        "--command",
        help="the hook program as the plugin names it (default: this installation's "
        "todo-bench-hook by full path)",
    )
    plugin.add_argument("dir", help="the folder to write the plugin into (empty or new)")
    plugin.set_defaults(func=cmd_plugin)
    remove = actions.add_parser(
        "uninstall", help="remove exactly what install added from the product's hooks file"
    )
    _product(remove)
    remove.add_argument("dir", nargs="?", default=".", help="project folder (default .)")
    remove.set_defaults(func=cmd_uninstall)
