"""How a shipping CLI is run through inspect-swe, the shape each product module's `RUNNER` fills:
its inspect-swe agent, what the episode prepares on the host before the CLI starts, and where the
product's own record of the episode's calls is (under the episode's fresh HOME). The agents wing
runs it (`harness/agents/solver.py`); inspect-swe is imported only when an agent is built."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.products.product import CliProduct
from harness.products.session_record import CallRecord

if TYPE_CHECKING:
    from inspect_ai.agent import Agent

#: the arguments every inspect-swe CLI agent takes (version, model_config, cwd, env, filter,
#: system_prompt)
Common = dict[str, Any]


def _nothing(product: CliProduct, home: Path) -> None:
    return None


def _none(home: Path) -> int:
    return 0


@dataclass(frozen=True)
class CliRunner:
    #: inspect-swe's agent for the product, given the common arguments and the episode's HOME
    agent: Callable[[CliProduct, Common, Path], Agent]
    #: that agent's name in inspect-swe (`inspect_swe.<name>`; its bridge's port key is read
    #: from its module: `_inspect_private.bridge_port_key`)
    inspect_agent: str
    #: the product's own record of its calls, read from the episode's HOME after the run
    record: Callable[[Path], list[CallRecord]]
    #: run on the host just before the CLI starts, given the episode's HOME
    prepare: Callable[[CliProduct, Path], None] = field(default=_nothing)
    #: where in inspect-swe's own install folder it looks for an installed copy of the CLI
    #: before it downloads one (the episode links the pinned binary of `make agents` there); None
    #: where inspect-swe runs the binary it finds on PATH
    install_link: str | None = None
    #: how many compactions the product's own record holds (only a product with a compaction
    #: command, `CliProduct.compact_command`, is asked)
    compactions: Callable[[Path], int] = field(default=_none)


def config_tree(config: dict[str, str]) -> dict[str, Any]:
    """Dotted config keys with JSON values, as the nested object a config file holds."""
    tree: dict[str, Any] = {}
    for key, value in config.items():
        *parents, leaf = key.split(".")
        node = tree
        for name in parents:
            node = node.setdefault(name, {})
        node[leaf] = json.loads(value)
    return tree
