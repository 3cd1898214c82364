"""A row runs its product as its users run it except at the switches it names, each with why."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from harness.products.catalog import HOOK_SWITCHES, PRODUCTS
from harness.todo.registry import DesignError, builtin, designs


@pytest.mark.parametrize("name", list(PRODUCTS))
def test_every_shipped_row_says_why_at_each_switch(name: str) -> None:
    row = PRODUCTS[name]
    assert set(row.why) == {*row.env, *row.config}
    assert all(reason.strip() for reason in row.why.values())


def test_a_switch_without_its_reason_does_not_load() -> None:
    row = PRODUCTS["cli/codex"]
    data = row.model_dump()
    data["config"] = {**row.config, "model_reasoning_effort": '"low"'}
    with pytest.raises(ValidationError, match="without a reason: model_reasoning_effort"):
        type(row).model_validate(data)


def test_a_reason_for_no_switch_does_not_load() -> None:
    row = PRODUCTS["cli/opencode"]
    data = row.model_dump()
    data["why"] = {**row.why, "OPENCODE_GONE": "a switch the row no longer sets"}
    with pytest.raises(ValidationError, match="reasons for no switch: OPENCODE_GONE"):
        type(row).model_validate(data)


@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_a_row_s_hook_switches_are_board_switches_and_its_design_loads_by_name(name: str) -> None:
    """What `hooks install` and the board read from a row: its switches are the board's, and
    its design is found by name alone (the hook program's path), the registered one."""
    row = PRODUCTS[name]
    assert set(row.hook_switches) <= set(HOOK_SWITCHES)
    assert tuple(s for s in HOOK_SWITCHES if s in row.hook_switches) == row.hook_switches
    assert builtin(row.design) is designs()[row.design]


def test_a_design_name_with_no_store_is_one_line() -> None:
    with pytest.raises(DesignError, match="no store of that name in harness.todo.rewrite"):
        builtin("rewrite")
    with pytest.raises(DesignError, match="design no-such: not shipped in harness/todo/"):
        builtin("no-such")
