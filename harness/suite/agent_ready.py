"""Which scenarios a shipping agent's episode (`cli/...` rows) can take. User turns go through
the product's own channel (a message in the same session); a compaction goes through the
product's own compaction command where its headless mode has one (Claude Code's `/compact`), and
a scenario with a compaction is left out of a row whose product has none, with the reason,
rather than run without its feature or counted as a failure (a row's hooks may leave out more:
`harness/agents/support.py`)."""

from __future__ import annotations

from harness.suite.scenario import Scenario


def unsupported(scenario: Scenario, compacts: bool = False) -> str | None:
    """Why a CLI episode cannot run this scenario as written, or None if it can; `compacts`:
    the product has a compaction command the episode can send."""
    return "compaction" if scenario.compactions and not compacts else None
