"""A row runs its product as its users run it except at the switches it names, each with why."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from harness.products.catalog import PRODUCTS


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
