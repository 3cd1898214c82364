"""Which scenarios a shipping agent's episode (`cli/...` rows) can take today: user turns and
compactions need the product's own channels (a follow-up message in the session, its
compaction command), which the CLI episode does not drive yet, so such a scenario is left out
of a CLI row, with its reason, rather than run without its feature or counted as a failure."""

from __future__ import annotations

from harness.suite.scenario import Scenario


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


def readiness(scenario: Scenario) -> str:
    """One cell for a listing: 'yes', or 'no: <why>'."""
    why = unsupported(scenario)
    return "yes" if why is None else f"no: {why}"
