"""The bare-inspect baseline of `make perf` replays exactly the turns and tool calls it is given,
and with `--tools harness` offers the harness's own tool schemas."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from inspect_ai.event import ModelEvent
from inspect_ai.log import read_eval_log

from tests.helpers import load_script

pytestmark = pytest.mark.slow


def _baseline() -> ModuleType:
    return load_script("bare_inspect")


@pytest.mark.parametrize(("tools", "offered"), [("note", 1), ("harness", 13), ("harness-defs", 13)])
def test_the_baseline_replays_the_calls_it_is_given(
    tools: str, offered: int, tmp_path: Path
) -> None:
    plan = [[3, 1, 2, 0], [0]]
    _baseline().run(plan, 1, str(tmp_path), tools)
    (log,) = [read_eval_log(str(p)) for p in tmp_path.glob("*.eval")]
    replayed = {}
    for sample in log.samples or []:
        turns = [m for m in sample.messages if m.role == "assistant"]
        replayed[sample.id] = [len(m.tool_calls or []) for m in turns]
        models = [e for e in sample.events if isinstance(e, ModelEvent)]
        assert all(len(e.tools) == offered for e in models)
    assert replayed == {"s0": [3, 1, 2, 0], "s1": [0]}
