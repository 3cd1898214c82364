"""How the simulated agent words its plan: the scenario's titles, or its own words.

A real agent does not copy the checklist a benchmark author wrote; it paraphrases, merges two
steps into one item, or leaves a step out of its list and does it anyway. Three profile rates
(`paraphrase`, `merge`, `omit`) make the sim do the same, so that a tracker reading the agent's own
plan (`+heuristic`) is measured on plans it has never seen. Every wording it writes still names
its subtasks by the scenario's matcher (`harness.matcher`), so the oracle can judge each item; the
keyword table of a deployed tracker sees them fresh. Subtasks a scripted user turn refers to are
always written as titled (the user speaks of them by that name).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from harness.matcher import match_subtasks
from harness.models.sim.profiles import Profile
from harness.suite.scenario import Scenario, Subtask

#: first-verb rewordings an agent might use; some fall outside the seed's keyword table (none
#: is one of `harness.models.sim.recall`'s drift words, so a reworded plan is never read as a drift)
_VERBS = {
    "Write": ["Produce", "Generate"],
    "Create": ["Build", "Set up"],
    "Export": ["Output", "Emit"],
    "Save": ["Put", "Keep"],
    "List": ["Look through", "Survey"],
    "Read": ["Load", "Parse"],
    "Rename": ["Change the name of", "Switch"],
    "Move": ["Shift", "Transfer"],
    "Delete": ["Get rid of", "Clean up"],
    "Verify": ["Double-check", "Sanity-check"],
    "Add": ["Include", "Put in"],
    "Uppercase": ["Upper-case", "Convert to capitals"],
}
#: the same verbs as the seed's Chinese-speaking agent writes them
_CHINESE = {
    "Write": "写入",
    "Create": "创建",
    "Export": "导出",
    "Save": "保存",
    "List": "列出",
    "Read": "读取",
    "Rename": "重命名",
    "Move": "移动",
    "Delete": "删除",
    "Verify": "验证",
    "Add": "添加",
}
_FILE = re.compile(r"[\w][\w.\-/]*\.[A-Za-z][A-Za-z0-9]{0,4}\b")


@dataclass
class Plan:
    """A worded plan: its item texts, and which subtasks each one stands for."""

    texts: list[str] = field(default_factory=list)
    covers: dict[str, list[str]] = field(default_factory=dict)  # text -> subtask ids
    omitted: list[str] = field(default_factory=list)  # subtask ids left out of the list


def candidates(subtask: Subtask) -> list[str]:
    """Own-words versions of a subtask's title: a reworded verb, an alias, a Chinese line."""
    first, _, rest = subtask.title.partition(" ")
    out = [f"{verb} {rest}".strip() for verb in _VERBS.get(first, [])]
    out.extend(alias[:1].upper() + alias[1:] for alias in subtask.aliases)
    files = _FILE.findall(subtask.title)
    if first in _CHINESE and files:
        out.append(_CHINESE[first] + " " + " → ".join(files))
    return out


def word_plan(scenario: Scenario, profile: Profile, rng: random.Random) -> Plan:
    """The agent's first plan for a scenario, worded as the profile's rates say."""
    fixed = {t.subtask for t in scenario.user_turns if t.subtask}
    subtasks = scenario.initial_subtasks()
    plan = Plan()
    i = 0
    while i < len(subtasks):
        subtask = subtasks[i]
        free = subtask.id not in fixed
        if i > 0 and free and _chance(rng, profile.omit):
            plan.omitted.append(subtask.id)
            i += 1
            continue
        after = subtasks[i + 1] if i + 1 < len(subtasks) else None
        if after is not None and free and after.id not in fixed and _chance(rng, profile.merge):
            text = f"{subtask.title} and {after.title[:1].lower()}{after.title[1:]}"
            if _names(text, scenario) == [subtask.id, after.id] and text not in plan.covers:
                plan.texts.append(text)
                plan.covers[text] = [subtask.id, after.id]
                i += 2
                continue
        text = subtask.title
        if free and _chance(rng, profile.paraphrase):
            fitting = [
                c
                for c in candidates(subtask)
                if _names(c, scenario) == [subtask.id] and c not in plan.covers
            ]
            if fitting:
                text = rng.choice(fitting)
        if text in plan.covers:  # two subtasks titled alike: keep the list's items distinct
            text = subtask.title
        plan.texts.append(text)
        plan.covers[text] = [subtask.id]
        i += 1
    return plan


def _chance(rng: random.Random, rate: float) -> bool:
    """A draw only where the rate is set, so profiles without these rates keep their streams."""
    return rate > 0 and rng.random() < rate


def _names(text: str, scenario: Scenario) -> list[str]:
    return [s.id for s in match_subtasks(text, scenario.subtasks)]
