"""How each shipping CLI is run through inspect-swe, declared once per CLI: its inspect-swe
agent, what the episode prepares before it starts, and where its own record of the episode's
calls is (under the episode's fresh HOME).

- Claude Code: `claude_code()`; its session JSONL under `$HOME/.claude/projects/`, which also
  records each compaction (a `compact_boundary` line).
- Codex CLI: `codex_cli()` with `CODEX_HOME` in the episode's HOME (its config, AGENTS.md and
  rollouts, never the workspace), the product's config keys as `-c` overrides (those inspect-swe
  sets from its own arguments passed as those arguments); its rollout JSONL under
  `CODEX_HOME/sessions/`. inspect-swe's model-catalog download is answered from its own bundled
  snapshot (`seed_codex_catalog`), so a run tries no connection but the bridge.
- OpenCode: `opencode()` with its XDG folders in the episode's HOME, the product's config keys
  as its inline config (`OPENCODE_CONFIG_CONTENT`, merged over the file inspect-swe writes to
  point it at the bridge); its own store, the SQLite `opencode.db` in its data folder. Its
  config folder is prepared so that it does not install its plugin SDK from npm at start.
- Gemini CLI: `gemini_cli()` at the pinned version, whose binary is linked where inspect-swe
  looks for an installed one (`seed_gemini_cli`, so nothing is downloaded); the product's
  settings keys as its system settings file (it overrides the user settings inspect-swe
  writes; in the user's own cache, since Gemini CLI skips one under a folder others may write
  to, as /tmp); its chat JSONL under `$HOME/.gemini/tmp/`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

from inspect_ai.agent import Agent
from inspect_swe import claude_code as claude_code_agent
from inspect_swe import codex_cli
from inspect_swe import gemini_cli as gemini_cli_agent
from inspect_swe import opencode as opencode_agent

from harness._inspect_private import seed_codex_catalog, seed_gemini_cli
from harness.agents.binaries import binary
from harness.products.product import CliProduct
from harness.products.session_record import CallRecord
from harness.products.shipped import claude_code, codex, gemini_cli, opencode

#: the arguments every inspect-swe CLI agent takes (version, model_config, cwd, env, filter,
#: system_prompt)
Common = dict[str, Any]


@dataclass(frozen=True)
class CliRunner:
    #: inspect-swe's agent for the product, given the common arguments and the episode's HOME
    agent: Callable[[CliProduct, Common, Path], Agent]
    #: that agent's function name in inspect-swe (`_inspect_private.BRIDGE_PORT_KEYS`)
    inspect_agent: str
    #: the product's own record of its calls, read from the episode's HOME after the run
    record: Callable[[Path], list[CallRecord]]
    #: run on the host just before the CLI starts, given the episode's HOME
    prepare: Callable[[CliProduct, Path], None] = field(default=lambda product, home: None)
    #: how many compactions the product's own record holds (only a product with a compaction
    #: command, `CliProduct.compact_command`, is asked)
    compactions: Callable[[Path], int] = field(default=lambda home: 0)


#: the Codex config keys inspect-swe's `codex_cli()` writes itself from its own arguments
#: (after every override), so they are passed as those arguments
_CODEX_OWN_ARGS = ("web_search", "features.goals")


def _codex_agent(product: CliProduct, common: Common, home: Path) -> Agent:
    config = product.config
    search = cast(Literal["live", "cached", "disabled"], config["web_search"].strip('"'))
    return codex_cli(
        home_dir=str(codex.home(home)),
        web_search=search,
        goals=config["features.goals"] == "true",
        config_overrides={k: v for k, v in config.items() if k not in _CODEX_OWN_ARGS},
        **common,
    )


def _config_tree(config: dict[str, str]) -> dict[str, Any]:
    """Dotted config keys with JSON values, as the nested object a config file holds."""
    tree: dict[str, Any] = {}
    for key, value in config.items():
        *parents, leaf = key.split(".")
        node = tree
        for name in parents:
            node = node.setdefault(name, {})
        node[leaf] = json.loads(value)
    return tree


def _seed_opencode_config(product: CliProduct, home: Path) -> None:
    """OpenCode's config folder in the episode's HOME, its plugin SDK already listed as
    installed (the episode loads no plugin)."""
    seed_plugin_sdk(opencode.config_folder(home), product)


def seed_plugin_sdk(folder: Path, product: CliProduct) -> None:
    """An OpenCode config folder (its HOME's, a project's `.opencode/`) with its plugin SDK
    already listed as installed: OpenCode has no switch for that install, which otherwise
    tries the npm registry at every start."""
    (folder / "node_modules").mkdir(parents=True, exist_ok=True)
    wanted = {opencode.PLUGIN_SDK: product.version}
    (folder / "package.json").write_text(json.dumps({"dependencies": wanted}), encoding="utf-8")
    lock = {"packages": {"": {"dependencies": wanted}}}
    (folder / "package-lock.json").write_text(json.dumps(lock), encoding="utf-8")


def _opencode_agent(product: CliProduct, common: Common, home: Path) -> Agent:
    args = {k: v for k, v in common.items() if k not in ("model_config", "env")}
    env = {
        **common["env"],
        **opencode.dirs(home),
        # the row's config keys, as OpenCode's inline config (merged over inspect-swe's file)
        "OPENCODE_CONFIG_CONTENT": json.dumps(_config_tree(product.config)),
    }
    return opencode_agent(opencode_model=product.model_config_id, env=env, **args)


def _gemini_settings(product: CliProduct) -> Path:
    """The row's settings keys as Gemini CLI's system settings file (written once per
    content); RuntimeError where Gemini CLI would skip it."""
    content = json.dumps(_config_tree(product.config), indent=2, sort_keys=True)
    path = gemini_cli.settings(content)
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
        fresh = path.with_name(f".{path.name}.{os.getpid()}")
        fresh.write_text(content, encoding="utf-8")
        fresh.chmod(0o644)
        fresh.replace(path)
    open_to_others = gemini_cli.writable_by_others(path)
    if open_to_others is not None:
        raise RuntimeError(
            f"{product.name}: Gemini CLI skips its settings file {path}: {open_to_others} is "
            "writable by others (its switches, no update check and no telemetry, would be off)"
        )
    return path


def _prepare_gemini(product: CliProduct, home: Path) -> None:
    """Gemini CLI's binary where inspect-swe finds it, and the row's settings file."""
    seed_gemini_cli(binary(product))
    _gemini_settings(product)


def _gemini_agent(product: CliProduct, common: Common, home: Path) -> Agent:
    args = {k: v for k, v in common.items() if k not in ("model_config", "env", "version")}
    env = {**common["env"], gemini_cli.SETTINGS_ENV: str(_gemini_settings(product))}
    return gemini_cli_agent(
        gemini_model=product.model_config_id,
        version=product.version,
        web_search=False,
        env=env,
        **args,
    )


RUNNERS: dict[str, CliRunner] = {
    claude_code.CLI: CliRunner(
        agent=lambda product, common, home: claude_code_agent(**common),
        inspect_agent="claude_code",
        record=claude_code.home_calls,
        compactions=claude_code.compactions,
    ),
    codex.CLI: CliRunner(
        agent=_codex_agent,
        inspect_agent="codex_cli",
        record=codex.home_calls,
        prepare=lambda product, home: seed_codex_catalog(product.version),
    ),
    opencode.CLI: CliRunner(
        agent=_opencode_agent,
        inspect_agent="opencode",
        record=opencode.home_calls,
        prepare=_seed_opencode_config,
    ),
    gemini_cli.CLI: CliRunner(
        agent=_gemini_agent,
        inspect_agent="gemini_cli",
        record=gemini_cli.home_calls,
        prepare=_prepare_gemini,
    ),
}
