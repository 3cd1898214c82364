"""The bare-inspect baseline of `make perf` replays exactly the turns and tool calls it is given,
and with `--tools harness` offers the harness's own tool schemas."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from inspect_ai.event import ModelEvent
from inspect_ai.log import read_eval_log
from inspect_ai.model import ChatMessageAssistant

from tests.helpers import load_script

pytestmark = pytest.mark.slow


def _baseline() -> ModuleType:
    return load_script("bare_inspect")


@pytest.mark.parametrize(("tools", "offered"), [("note", 1), ("harness", 13), ("harness-defs", 13)])
def test_the_baseline_replays_the_calls_it_is_given(
    tools: str, offered: int, tmp_path: Path
) -> None:
    plan = [[3, 1, 2, 0], [0]]
    report = _baseline().run(plan, 1, str(tmp_path), tools)
    assert report["cpu_before_episodes"] > 0 and report["cpu_episodes"] > 0
    (log,) = [read_eval_log(str(p)) for p in tmp_path.glob("*.eval")]
    replayed = {}
    for sample in log.samples or []:
        turns = [m for m in sample.messages if m.role == "assistant"]
        replayed[sample.id] = [len(m.tool_calls or []) for m in turns]
        models = [e for e in sample.events if isinstance(e, ModelEvent)]
        assert all(len(e.tools) == offered for e in models)
    assert replayed == {"s0": [3, 1, 2, 0], "s1": [0]}


def test_with_sizes_the_baseline_carries_as_many_bytes_as_the_harness_did(tmp_path: Path) -> None:
    sizes = [
        {
            "system": 900,
            "prompt": 300,
            "turns": [
                {"text": 40, "args": [120, 60], "results": [500, 2000]},
                {"text": 15, "args": [], "results": []},
            ],
        }
    ]
    _baseline().run([[2, 0]], 1, str(tmp_path), "harness", sizes)
    (log,) = [read_eval_log(str(p)) for p in tmp_path.glob("*.eval")]
    (sample,) = log.samples or []
    system, user, first, *_ = sample.messages
    assert (system.role, len(system.text)) == ("system", 900)
    assert len(user.text) == 300
    assert isinstance(first, ChatMessageAssistant)
    assert len(first.text) == 40 and len(first.tool_calls or []) == 2
    results = [len(m.text) for m in sample.messages if m.role == "tool"]
    assert results == [500, 2000]
    assert len(sample.messages[-1].text) == 15


def test_make_perf_starts_the_baseline_as_a_run_starts(tmp_path: Path) -> None:
    """Collector off while importing, then the heap settled before the eval (equal terms)."""
    perf = load_script("perf")
    report = perf.bare_run(tmp_path, [[1, 0]], "note")
    assert report["turns"] == [[1, 0]] and report["episodes"] > 0
    assert report["frozen"] > 100_000  # inspect's modules are out of the collector's view
