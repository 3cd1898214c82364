"""What the board says about a shipping agent's row: its product, version, switches, hooks and
the scenarios it left out, with why (`left_out`)."""

from __future__ import annotations

from collections.abc import Iterable

from harness.agents.install import installed_version
from harness.hooks.fixes import FIXES
from harness.results.summary import AgentRecord
from harness.suite.agent_ready import unsupported
from harness.suite.scenario import Scenario
from harness.todo.clis import CliProduct


def left_out(product: CliProduct, scenarios: Iterable[Scenario]) -> dict[str, str]:
    """The scenarios the product's row cannot take as written, each with its reason: a feature
    no CLI episode drives (`harness/suite/agent_ready.py`), or one the row's hooks cannot
    follow."""
    out: dict[str, str] = {}
    for scenario in scenarios:
        why = [unsupported(scenario)]
        if scenario.user_turns:
            why += [FIXES[fix].no_user_turns for fix in product.hooks]
        if reasons := [w for w in why if w]:
            out[scenario.id] = "; ".join(reasons)
    return out


def agent_record(product: CliProduct, left: dict[str, str]) -> AgentRecord:
    """What the board says about a CLI row (kept in the eval log's task metadata)."""
    return AgentRecord(
        product=product.title,
        package=product.package,
        version=installed_version(product) or "not installed",
        switches=product.switches,
        model_config_id=product.model_config_id,
        hooks=list(product.hooks),
        left_out=left,
    )
