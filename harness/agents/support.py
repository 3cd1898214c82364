"""Which scenarios a shipping agent's episode can take today: user turns and compactions need
the product's own channels (a follow-up message in the session, its compaction command), which
the CLI episode does not drive yet, so such a scenario is left out of a CLI row, with its
reason, rather than run without its feature or counted as a failure."""

from __future__ import annotations

from harness.agents.install import installed_version
from harness.results.summary import AgentRecord
from harness.suite.scenario import Scenario
from harness.todo.clis import CliProduct


def unsupported(scenario: Scenario) -> str | None:
    """Why a CLI episode cannot run this scenario as written, or None if it can."""
    missing = [
        what
        for what, present in (
            ("user turns", scenario.user_turns),
            ("compaction", scenario.compactions),
        )
        if present
    ]
    return " and ".join(missing) or None


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
