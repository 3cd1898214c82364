"""Which scenarios a shipping agent's episode (`cli/...` rows) can take today. User turns go
through the product's own channel (a follow-up message in the same session, when the CLI
yields); compactions would need the product's compaction at a scenario's turn, which a headless
CLI offers no channel for, so such a scenario is left out of a CLI row, with its reason, rather
than run without its feature or counted as a failure (a row's hooks may leave out more:
`harness/agents/support.py`)."""

from __future__ import annotations

from harness.suite.scenario import Scenario


def unsupported(scenario: Scenario) -> str | None:
    """Why a CLI episode cannot run this scenario as written, or None if it can."""
    return "compaction" if scenario.compactions else None


def readiness(scenario: Scenario) -> str:
    """One cell for a listing: 'yes', or 'no: <why>'."""
    why = unsupported(scenario)
    return "yes" if why is None else f"no: {why}"
