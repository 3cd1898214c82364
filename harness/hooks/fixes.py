"""The fixes a user can choose, and the hook events each one needs (pure data: the entry point
dispatches on it, `settings.py` writes it)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from harness.hooks.hosts import Host

#: a matcher that matches every tool
ALL_TOOLS = "*"
#: the matcher of the product's own todo tool, filled in per product (`events_of`)
TODO_TOOL = "<todo tool>"


class Fix(BaseModel):
    """One fix: its name, what it does, and the (event, matcher) pairs it runs at."""

    model_config = ConfigDict(frozen=True)

    name: str
    summary: str
    events: tuple[tuple[str, str], ...]
    #: works on a developer's machine with no benchmark running (the oracle needs a scenario)
    deployable: bool = True
    #: a completion gate (at most one per install: each would refuse on its own terms)
    gate: bool = False
    #: why a benchmark episode with this fix cannot take a scenario's user turns (None: it can)
    no_user_turns: str | None = None


#: every fix that keeps the list records it after each accepted todo call (`PostToolUse`)
_RECORD = ("PostToolUse", TODO_TOOL)
#: L1 and L2 check a todo call before it runs
_CHECKED = (("PreToolUse", TODO_TOOL), _RECORD)
#: a gate that ticks from the calls watches every successful call, and judges each stop
_WATCHED = (("PostToolUse", ALL_TOOLS), ("Stop", ""))

FIXES: dict[str, Fix] = {
    f.name: f
    for f in (
        Fix(
            name="textlock",
            summary="L1: a todo call that rewords a stored item is denied",
            events=_CHECKED,
        ),
        Fix(
            name="whitelist",
            summary="L2 (with L1): a todo call that drops a stored item is denied",
            events=_CHECKED,
        ),
        Fix(
            name="inject",
            summary="L4: the current list as context after each tool call, with each user "
            "message and after compaction",
            events=(
                ("PostToolUse", ALL_TOOLS),
                ("UserPromptSubmit", ""),
                ("SessionStart", "compact"),
            ),
        ),
        Fix(
            name="gate-heuristic",
            summary="a claim of done is refused while an item of the agent's first plan is not "
            "ticked by the seed's keyword table",
            events=_WATCHED,
            gate=True,
        ),
        Fix(
            name="gate-open",
            summary="a claim of done is refused while the agent's own list has open items",
            events=(_RECORD, ("Stop", "")),
            gate=True,
        ),
        Fix(
            name="gate-oracle",
            summary="a claim of done is refused while a scenario subtask is not done "
            "(benchmark only: TODO_BENCH_HOOK_SCENARIO names the scenario)",
            deployable=False,
            events=_WATCHED,
            gate=True,
            no_user_turns="the oracle gate judges the scenario's subtasks as written, not as "
            "the user changes them",
        ),
    )
}
#: what `todo-bench hooks install` chooses when no `--fix` is given
DEFAULT = ("textlock", "whitelist", "inject", "gate-heuristic")


class FixError(ValueError):
    """A list of fixes that names an unknown fix or more than one gate."""


def parse_fixes(text: str) -> tuple[str, ...]:
    """`textlock,inject` -> the fixes, in FIXES' order; FixError says what is wrong."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in FIXES]
    if unknown or not names:
        raise FixError(
            f"unknown fix {', '.join(unknown) or '(none given)'}; choose from {', '.join(FIXES)}"
        )
    gates = [n for n in names if FIXES[n].gate]
    if len(set(gates)) > 1:
        raise FixError(f"one gate at most, got {', '.join(gates)}")
    return tuple(n for n in FIXES if n in names)


def events_of(fixes: tuple[str, ...], host: Host) -> list[tuple[str, str]]:
    """The (event, matcher) pairs the fixes need in one product, once each, by the product's
    own event names; the todo tool's matcher is left out where the same event already matches
    every tool, and an event the product lacks (Gemini CLI has no SessionStart after its
    compression) is left out."""
    pairs: list[tuple[str, str]] = []
    for name in fixes:
        pairs += [p for p in FIXES[name].events if p not in pairs]
    return [
        (host.wire.events[event], host.wire.matcher(host.tool) if matcher == TODO_TOOL else matcher)
        for event, matcher in pairs
        if event in host.wire.events and not (matcher == TODO_TOOL and (event, ALL_TOOLS) in pairs)
    ]
