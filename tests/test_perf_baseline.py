"""The bare-inspect baseline of `make perf` replays exactly the turns and tool calls it is given,
and with `--tools harness` offers the harness's own tool schemas."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from inspect_ai.event import ModelEvent
from inspect_ai.log import read_eval_log

pytestmark = pytest.mark.slow

SCRIPT = Path(__file__).parents[1] / "scripts" / "bare_inspect.py"


def _baseline() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bare_inspect", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bare_inspect"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("tools", "offered"), [("note", 1), ("harness", 13)])
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
