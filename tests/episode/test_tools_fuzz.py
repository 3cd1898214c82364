"""No tool call can kill an episode or half-update a store: property tests over every todo tool
of every design and every workspace tool, called directly and through inspect's tool path.

Each generated call must end as a result or a tool error, add exactly one ledger event, leave
the store's invariants intact, and, when refused, leave the store and the workspace exactly as
they were. Nothing outside the workspace may change. `FUZZ_CALLS` (below) says how many calls
run per tool: a few hundred in the default suite, 1,000 in the slow one.

Through inspect's tool path, a call first passes the agent loop's reply guard
(`harness.episode.reply_guard`), as in an episode, and everything that reaches the log must
encode. The hostile suites give every call a value nested 300-400 levels deep or a lone
surrogate (in a value, a key or an item's field): each must be refused unrun.
"""

from __future__ import annotations

import asyncio
import copy
import os
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inspect_ai.model import ChatMessageAssistant, execute_tools
from inspect_ai.tool import ToolCall, ToolError

from harness.episode.ledger import Ledger
from harness.episode.reply_guard import MAX_DEPTH, fix_text, guard_reply
from harness.episode.tools import Episode, todo_tools, workspace_tools
from harness.suite.scenario import TOOL_ARGS
from harness.suite.tracker import TaskStateTracker
from harness.suite.workspace import Workspace
from harness.todo.registry import designs
from tests.helpers import DOCS

HOSTILE_IDS = [
    "",
    "None",
    "²",
    "٣",
    "1" * 5000,
    "-1",
    "0",
    "1",
    "1",
    "2",
    "#3",
    " 4 ",
    "a b",
    "\x00",
]
HOSTILE_TEXT = ["", " ", "a\x07b", "\x00", "x" * 5000, "\ud800", "写测试", "Write a.md", "\n"]
HOSTILE_PATHS = [
    "../x", "a/../../x", "/etc/passwd", "~/x", "~", "a/" * 200, "a\x00b", "..\\..\\x",
    "loop", "loop/x", "pipe", "out/x.txt", "out", "d", "d/", "./a.md", "a.md", "x" * 300,
    "exports/1.xlsx", "t.csv", "", ".", "é/ü.txt",
]  # fmt: skip
STATUS = ["pending", "in_progress", "completed", "deleted", "DONE", "", None, 3]

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True)
    | st.text(max_size=30)
    | st.sampled_from(HOSTILE_IDS + HOSTILE_TEXT + HOSTILE_PATHS)
)
anything = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
todo_item = st.fixed_dictionaries(
    {},
    optional={
        "id": st.sampled_from(HOSTILE_IDS) | anything,
        "text": st.sampled_from(HOSTILE_TEXT) | st.text(max_size=20) | anything,
        "content": st.sampled_from(HOSTILE_TEXT) | st.text(max_size=20),
        "status": st.sampled_from(STATUS) | anything,
        "step": st.text(max_size=20),
        "activeForm": st.text(max_size=10),
    },
)
VALUES: dict[str, st.SearchStrategy[Any]] = {
    "items": st.lists(todo_item, max_size=25) | anything,
    "todos": st.lists(todo_item, max_size=25) | anything,
    "plan": st.lists(todo_item, max_size=25) | anything,
    "path": st.sampled_from(HOSTILE_PATHS) | st.text(max_size=40),
    "src": st.sampled_from(HOSTILE_PATHS) | st.text(max_size=40),
    "dst": st.sampled_from(HOSTILE_PATHS) | st.text(max_size=40),
    "content": st.sampled_from(HOSTILE_TEXT) | st.text(max_size=200),
    "rows": st.lists(st.lists(st.sampled_from(HOSTILE_TEXT) | scalars, max_size=4), max_size=6)
    | anything,
}


SURROGATES = ["\ud800", "\udbff", "\udc00", "\udfff"]
surrogate_text = st.builds(
    lambda before, lone, after: before + lone + after,
    st.text(max_size=6),
    st.sampled_from(SURROGATES),
    st.text(max_size=6),
)


def nest(levels: int, leaf: Any, shape: int) -> Any:
    """`leaf` `levels` containers deep: lists (shape 0), objects (1) or both in turn (2)."""
    for level in range(levels):
        as_object = shape == 1 or (shape == 2 and level % 2 == 0)
        leaf = {"k": leaf} if as_object else [leaf]
    return leaf


deep = st.builds(nest, st.integers(300, 400), scalars | surrogate_text, st.integers(0, 2))
#: a value no log can hold as it is: nested past the bound, or holding a lone surrogate
hostile = (
    deep
    | surrogate_text
    | st.lists(surrogate_text, min_size=1, max_size=3)
    | st.dictionaries(surrogate_text, scalars, min_size=1, max_size=2)
)
ITEM_FIELDS = ["id", "text", "content", "status", "step", "activeForm", "subject", "description"]


def hostile_value(param: str) -> st.SearchStrategy[Any]:
    """A hostile value for `param`, often where the tool looks (an item's field, a cell)."""
    if param in ("items", "todos", "plan"):
        planted = st.builds(
            lambda items, at, field, value: [
                *items[:at],
                {**(items[at] if at < len(items) else {}), field: value},
                *items[at + 1 :],
            ],
            st.lists(todo_item, max_size=4),
            st.integers(0, 4),
            st.sampled_from(ITEM_FIELDS),
            hostile,
        )
        return planted | hostile
    if param == "rows":
        return st.builds(lambda cell: [["a", cell]], hostile) | hostile
    return hostile


def hostile_arguments(params: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments as `arguments` makes them, with one hostile value planted: in a declared
    parameter, or as an extra one (sometimes under a key holding a surrogate)."""
    names = st.sampled_from([*params, "bogus"]) if params else st.just("bogus")
    planted = names.flatmap(lambda name: st.tuples(st.just(name), hostile_value(name)))
    key = st.tuples(surrogate_text, scalars)
    return st.builds(
        lambda args, extra: {**args, extra[0]: extra[1]}, arguments(params), planted | key
    )


def is_hostile(value: Any, depth: int = 0) -> bool:
    """Nested deeper than the guard's bound, or holding a lone surrogate anywhere."""
    if isinstance(value, str):
        return fix_text(value) != value
    if isinstance(value, dict | list):
        if depth >= MAX_DEPTH:
            return True
        items = [*value.keys(), *value.values()] if isinstance(value, dict) else value
        return any(is_hostile(item, depth + 1) for item in items)
    return False


def arguments(params: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """Declared arguments (sometimes missing, often hostile) plus now and then an extra one."""
    optional = {
        p: VALUES.get(p, st.sampled_from(HOSTILE_IDS + HOSTILE_TEXT) | anything) for p in params
    }
    return st.fixed_dictionaries({}, optional={**optional, "bogus": anything})


def plant(root: Path, outside: Path) -> None:
    """A workspace an attacker prepared: a symlink loop, a link out, a fifo, a folder."""
    os.symlink("loop", root / "loop")
    os.symlink(outside, root / "out")
    os.mkfifo(root / "pipe")
    (root / "d").mkdir()


def tree(root: Path) -> dict[str, bytes | str]:
    """Every entry under root, without following links: files by content, the rest by kind."""
    state: dict[str, bytes | str] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            key = str(path.relative_to(root))
            if path.is_symlink():
                state[key] = "link:" + os.readlink(path)
            elif path.is_dir():
                state[key] = "dir"
            elif path.is_file():
                state[key] = path.read_bytes()
            else:
                state[key] = "special"
    return state


#: calls nested past the bound or holding a lone surrogate that the reply guard refused
REFUSED: Counter[str] = Counter()


class Harness:
    """One episode's real tools for one design, in a planted workspace."""

    def __init__(self, design: str, tmp: Path) -> None:
        self.outside = tmp / "outside"
        self.outside.mkdir(exist_ok=True)
        (self.outside / "secret.txt").write_text("secret")
        root = tmp / "ws"
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir()
        plant(root, self.outside)
        self.episode = Episode(
            store=designs()[design](),
            workspace=Workspace(root),
            ledger=Ledger(scenario=DOCS.id, variant=design),
            tracker=TaskStateTracker(DOCS),
        )
        self.tools = {
            t.name: t for t in [*todo_tools(self.episode), *workspace_tools(self.episode)]
        }

    def check(self, name: str, args: dict[str, Any], via_inspect: bool) -> bool:
        """Run one call and assert every property; True if it was accepted."""
        store, root = self.episode.store, self.episode.workspace.root
        before_store = copy.deepcopy(store.__dict__)
        before_tree, before_outside = tree(root), tree(self.outside)
        events = len(self.episode.ledger.events)
        ran = True
        if via_inspect:
            accepted, ran = self._through_inspect(name, args)
            if is_hostile(args):  # the reply guard refused it: it never reached the tool
                assert not accepted and not ran, (name, args)
                REFUSED["calls"] += 1
        else:
            try:
                asyncio.run(self.tools[name].tool(**args))
                accepted = True
            except ToolError:
                accepted = False
        new = self.episode.ledger.events[events:]
        # recorded (a tick may follow an accepted call); calls inspect itself refused never
        # reach the tool: the agent loop records those as malformed (tests/scoring/test_truth.py)
        assert (new and getattr(new[0], "tool", None) == name) if ran else not new
        assert store.problems() is None, store.problems()
        assert tree(self.outside) == before_outside
        if not accepted:
            assert store.__dict__ == before_store
            assert tree(root) == before_tree
        return accepted

    def _through_inspect(self, name: str, args: dict[str, Any]) -> tuple[bool, bool]:
        """(accepted, ran): the reply guard or inspect may refuse the arguments, then the tool
        never ran. What the log would hold (the guarded reply, the result) must encode."""
        call = ToolCall(id="c1", function=name, arguments=args, type="function")
        message, repairs = guard_reply(ChatMessageAssistant(content="", tool_calls=[call]))
        result = asyncio.run(execute_tools([message], list(self.tools.values())))
        (reply,) = result.messages
        message.model_dump_json()
        reply.model_dump_json()
        error = getattr(reply, "error", None)
        if repairs:  # the guard's refusals never run
            assert error is not None and error.type == "parsing", error
        if error is None:
            return True, True
        return False, error.type != "parsing"

    def close(self) -> None:
        self.episode.workspace.cleanup()


def tool_names(design: str) -> list[str]:
    return [spec.name for spec in designs()[design].tool_specs()]


DESIGNS = sorted(designs())
WORKSPACE = list(TOOL_ARGS)


def fuzz(
    design: str,
    tmp: Path,
    examples: int,
    via_inspect: bool,
    names: list[str] | None = None,
    hostile_only: bool = False,
) -> Counter[str]:
    """Run `examples` generated call sequences (1-6 calls each) on fresh episodes; with
    `hostile_only`, every call carries a value nested past the bound or a lone surrogate, and
    `seen["refused"]` counts those the reply guard refused (all of them, through inspect)."""
    seen: Counter[str] = Counter()
    refused_before = REFUSED["calls"]
    harness = Harness(design, tmp)
    names = names or tool_names(design) + WORKSPACE
    params = {n: list(harness.tools[n].parameters.properties) for n in names}
    make = hostile_arguments if hostile_only else arguments
    call = st.sampled_from(names).flatmap(lambda n: st.tuples(st.just(n), make(params[n])))

    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    @given(st.lists(call, min_size=1, max_size=6))
    def episode(calls: list[tuple[str, dict[str, Any]]]) -> None:
        nonlocal harness
        harness.close()
        harness = Harness(design, tmp)
        for name, args in calls:
            harness.check(name, args, via_inspect)
            seen[name] += 1

    try:
        episode()
    finally:
        harness.close()
    if hostile_only and via_inspect:
        seen["refused"] = REFUSED["calls"] - refused_before
    return seen


@pytest.mark.parametrize("design", DESIGNS)
def test_no_call_kills_an_episode_or_half_updates_a_store(design: str, tmp_path: Path) -> None:
    seen = fuzz(design, tmp_path, examples=25, via_inspect=False)
    seen += fuzz(design, tmp_path, examples=8, via_inspect=True)
    assert set(seen) == set(tool_names(design) + WORKSPACE)


@pytest.mark.parametrize("design", DESIGNS)
def test_deep_and_surrogate_calls_are_refused_unrun(design: str, tmp_path: Path) -> None:
    """Through the reply guard and inspect, as in an episode: every such call is a tool error
    and nothing changes; called directly, no tool raises anything but a tool error."""
    seen = fuzz(design, tmp_path, examples=12, via_inspect=True, hostile_only=True)
    refused = seen.pop("refused")
    assert refused == sum(seen.values()) > 0
    seen += fuzz(design, tmp_path, examples=6, via_inspect=False, hostile_only=True)
    assert seen["refused"] == 0


#: calls per example: sequences of 1-6 calls, 3.5 on average
PER_EXAMPLE = 3.5


def at_least(
    design: str,
    tmp: Path,
    names: list[str],
    wanted: int = 1000,
    hostile_only: bool = False,
) -> Counter[str]:
    """Fuzz `names` until each has had `wanted` calls: one run a fifth of it through inspect
    (four fifths with `hostile_only`: that is the path those values broke), then top-ups of
    whichever tool is short (how calls spread over tools varies)."""
    examples = int(wanted * len(names) / PER_EXAMPLE)
    direct = examples // 5 if hostile_only else examples * 4 // 5
    seen = fuzz(design, tmp, direct, False, names=names, hostile_only=hostile_only)
    seen += fuzz(design, tmp, examples - direct, True, names=names, hostile_only=hostile_only)
    for _ in range(10):
        short = [n for n in names if seen[n] < wanted]
        if not short:
            break
        deficit = max(wanted - seen[n] for n in short)
        more = int(deficit / PER_EXAMPLE) + 20
        seen += fuzz(design, tmp, more, hostile_only, names=short, hostile_only=hostile_only)
    return seen


@pytest.mark.heavy
@pytest.mark.parametrize("design", DESIGNS)
def test_two_hundred_fifty_deep_and_surrogate_calls_per_todo_tool(
    design: str, tmp_path: Path
) -> None:
    """Fewer than the workspace tools' 500: four fifths of these go through the reply guard,
    which refuses them before any design's code runs (the same guard for every design), so
    what differs per design is the direct fifth (CI's time budget, 2026-12-06)."""
    todo = tool_names(design)
    seen = at_least(design, tmp_path, todo, wanted=250, hostile_only=True)
    print(f"{design}, hostile: {dict(seen)}")
    assert min(seen[name] for name in todo) >= 250, seen
    assert seen["refused"] >= 200 * len(todo)


@pytest.mark.heavy
def test_five_hundred_deep_and_surrogate_calls_per_workspace_tool(tmp_path: Path) -> None:
    seen = at_least("L3-granular", tmp_path, WORKSPACE, wanted=500, hostile_only=True)
    print(f"workspace, hostile: {dict(seen)}")
    assert min(seen[name] for name in WORKSPACE) >= 500, seen
    assert seen["refused"] >= 400 * len(WORKSPACE)


@pytest.mark.heavy
@pytest.mark.parametrize("design", DESIGNS)
def test_a_thousand_calls_per_todo_tool(design: str, tmp_path: Path) -> None:
    todo = tool_names(design)
    seen = at_least(design, tmp_path, todo)
    print(f"{design}: {dict(seen)}")
    assert min(seen[name] for name in todo) >= 1000, seen


@pytest.mark.heavy
def test_a_thousand_calls_per_workspace_tool(tmp_path: Path) -> None:
    seen = at_least("L3-granular", tmp_path, WORKSPACE)
    print(f"workspace: {dict(seen)}")
    assert min(seen[name] for name in WORKSPACE) >= 1000, seen
