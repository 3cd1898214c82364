"""What the board says about a shipping agent's row: its product, version, switches, hooks and
the scenarios it left out (`harness/suite/agent_ready.py` says which and why)."""

from __future__ import annotations

from harness.agents.install import installed_version
from harness.results.summary import AgentRecord
from harness.todo.clis import CliProduct


def agent_record(product: CliProduct, left_out: dict[str, str]) -> AgentRecord:
    """What the board says about a CLI row (kept in the eval log's task metadata)."""
    return AgentRecord(
        product=product.title,
        package=product.package,
        version=installed_version(product) or "not installed",
        switches=product.switches,
        model_config_id=product.model_config_id,
        hooks=list(product.hooks),
        left_out=left_out,
    )
