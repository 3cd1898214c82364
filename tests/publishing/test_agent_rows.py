"""A shipping agent's row carries its product, version, switches and what it left out onto the
board; the harness's own rows are unchanged by the field (byte for byte)."""

from __future__ import annotations

import json

from harness.publishing.formats import agents_table, brief, leaderboard
from harness.results.summary import AgentRecord, Summary, read_summary
from tests.helpers import ROOT

BASELINE = ROOT / "results" / "baseline" / "summary.json"

AGENT = AgentRecord(
    product="Claude Code",
    package="@anthropic-ai/claude-code",
    version="9.9.9",
    switches={"CLAUDE_CODE_ENABLE_TASKS": "false"},
    model_config_id="claude-sonnet-4-5",
    left_out={"user_changes": "user turns"},
)


def _with_agent() -> Summary:
    summary = read_summary(BASELINE)
    first = summary.variants[0].model_copy(update={"variant": "cli/x", "agent": AGENT})
    return summary.model_copy(update={"variants": [first, *summary.variants[1:]]})


def test_the_harness_rows_serialize_without_an_agent_field() -> None:
    summary = read_summary(BASELINE)
    assert all("agent" not in v for v in json.loads(summary.model_dump_json())["variants"])
    assert agents_table(summary) is None
    assert "not supported" not in brief(summary)


def test_an_agent_row_says_its_product_switches_and_left_out_scenarios() -> None:
    summary = _with_agent()
    dumped = json.loads(summary.model_dump_json())["variants"][0]
    assert AgentRecord.model_validate(dumped["agent"]) == AGENT
    table = agents_table(summary)
    assert table is not None
    assert "@anthropic-ai/claude-code 9.9.9" in table
    assert "CLAUDE_CODE_ENABLE_TASKS=false" in table
    assert "user_changes: user turns" in table
    assert "not supported: cli/x leaves out user_changes (user turns)" in brief(summary)
    assert "Shipping agents" in leaderboard(summary, "md")
    assert "<h2>Shipping agents</h2>" in leaderboard(summary, "html")
