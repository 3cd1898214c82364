"""Generated scenario families: one YAML declaration expands into scenarios of chosen sizes.

A family file in the scenario folder has a top-level `family:` key instead of a scenario's
fields. Expansion is deterministic from the file's `seed`: the same file always gives the same
scenarios. Every generated scenario is an ordinary `Scenario`, validated and checked like a
written one.

Families (the `FAMILIES` table at the end maps each name to its builder):
- `per_file`: n input files processed one by one (an upper-case copy each), one subtask per
  file; optional near-duplicate decoys that must be left alone, repeated compactions, and
  several user changes (an added file, a cancelled file with undo, a renamed todo).
- `rename_chain`: a file renamed through n names, each step logged in order.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

#: generated sizes are bounded so a family cannot blow up a run
MAX_SIZE = 150


class Family(BaseModel):
    """A family declaration (the whole YAML file)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    family: str
    title: str = ""
    seed: int = 0
    tags: list[str] = Field(default_factory=list)
    sizes: list[int] = Field(min_length=1)
    #: compactions spread evenly over the episode
    compactions: int = Field(0, ge=0, le=10)
    keep_last: int = Field(2, ge=1)
    #: user changes per episode, cycling add / cancel (with undo) / rename (per_file only)
    user_changes: int = Field(0, ge=0, le=10)
    #: share of inputs that get a near-duplicate decoy (per_file only)
    near_duplicates: float = Field(0.0, ge=0, le=1)

    @field_validator("family")
    @classmethod
    def _known(cls, name: str) -> str:
        if name not in FAMILIES:
            raise ValueError(f"unknown family '{name}'; known: {', '.join(sorted(FAMILIES))}")
        return name

    def expand(self, stem: str) -> list[dict[str, Any]]:
        """Raw scenario dicts, one per size, with ids `<stem>_<size>`."""
        for size in self.sizes:
            if not 2 <= size <= MAX_SIZE:
                raise ValueError(f"sizes: {size} is outside 2..{MAX_SIZE}")
        make = FAMILIES[self.family]
        return [
            make(self, f"{stem}_{n}", n, random.Random(f"{self.seed}|{stem}|{n}"))
            for n in self.sizes
        ]


def _budget(steps: int, family: Family) -> dict[str, Any]:
    """A turn budget with room for planning, list upkeep and user changes, and compactions."""
    turns = min(500, 2 * steps + 30 + 4 * family.user_changes)
    every = turns // (family.compactions + 1) if family.compactions else 0
    compaction = [
        {"at_turn": every * (k + 1), "keep_last": family.keep_last}
        for k in range(family.compactions)
    ]
    return {"max_turns": turns, **({"compaction": compaction} if compaction else {})}


def _per_file(family: Family, scenario_id: str, n: int, rng: random.Random) -> dict[str, Any]:
    adds = (family.user_changes + 2) // 3  # changes cycle add, cancel, rename
    width = len(str(n + adds))
    names = [f"item_{i:0{width}d}" for i in range(1, n + 1)]
    extra = [f"item_{i:0{width}d}" for i in range(n + 1, n + 1 + adds)]
    files = [
        {"path": f"in/{name}.txt", "content": f"{name} value {rng.randint(10, 99)}\n"}
        for name in [*names, *extra]
    ]
    decoys = [name for name in names if rng.random() < family.near_duplicates]
    files += [{"path": f"in/{name.replace('_', '-')}.txt", "content": "decoy\n"} for name in decoys]
    content = {f["path"]: f["content"] for f in files}

    def subtask(name: str) -> dict[str, Any]:
        return {
            "id": name,
            "title": f"Uppercase {name}.txt into out/",
            "keywords": [name],
            "done_when": [{"tool": "write_file", "args": {"path": {"equals": f"out/{name}.txt"}}}],
        }

    def steps(name: str) -> list[dict[str, Any]]:
        source = f"in/{name}.txt"
        return [
            {"subtask": name, "tool": "read_file", "args": {"path": source}},
            {
                "subtask": name,
                "tool": "write_file",
                "args": {"path": f"out/{name}.txt", "content": content[source].upper()},
            },
        ]

    changes = _user_changes(family, names, extra, n, rng)
    user_turns, cancelled, added = changes.turns, changes.cancelled, changes.added
    kept = [name for name in [*names, *added] if name not in cancelled]
    decoy_note = (
        " Some files have near-duplicate names with a hyphen (in/item-NN.txt): leave those alone."
        if decoys
        else ""
    )
    prompt = (
        f"For each of the {n} files in/{names[0]}.txt ... in/{names[-1]}.txt, write an upper-case "
        f"copy to out/ with the same name (e.g. in/{names[0]}.txt -> out/{names[0]}.txt). "
        f"Track one todo per file.{decoy_note}"
    )
    checks: list[dict[str, Any]] = [
        {"kind": "files_matching", "path": "out/*.txt", "count": len(kept)},
        *(
            {
                "kind": "file_equals",
                "path": f"out/{name}.txt",
                "content": content[f"in/{name}.txt"].upper(),
            }
            for name in kept
        ),
        *changes.checks,
    ]
    return {
        "id": scenario_id,
        "title": family.title or f"Process {n} files one by one, one todo each",
        "tags": sorted({*family.tags, "generated", "long"}),
        "prompt": prompt,
        "files": files,
        "subtasks": [subtask(name) for name in [*names, *extra]],
        "checks": checks,
        # listing first: it is how an agent sees the inputs, decoys included
        "reference": [{"subtask": names[0], "tool": "list_files"}]
        + [s for name in [*names, *extra] for s in steps(name)]
        + changes.undo_steps,
        "user_turns": user_turns,
        # the near-duplicate an agent may drift to: item_07 -> item-07
        "confusions": {"item_": "item-"} if decoys else {},
        **_budget(2 * n + 2 * len(added), family),
    }


@dataclass
class _Changes:
    """The scripted user changes of a per_file scenario and what they add to it."""

    turns: list[dict[str, Any]] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    undo_steps: list[dict[str, Any]] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)


def _user_changes(
    family: Family, names: list[str], extra: list[str], n: int, rng: random.Random
) -> _Changes:
    """`user_changes` changes spread over the episode, cycling add / cancel (undo) / rename."""
    out = _Changes()
    user_turns, cancelled, added = out.turns, out.cancelled, out.added
    undo_steps, checks_extra = out.undo_steps, out.checks
    for k in range(family.user_changes):
        at = {"when": {"subtask_done": names[min(n - 1, (k + 1) * n // (family.user_changes + 1))]}}
        kind = ("add", "cancel", "rename")[k % 3]
        if kind == "add":
            name = extra[len(added)]
            added.append(name)
            message = f"Also copy in/{name}.txt the same way."
            user_turns.append({**at, "message": message, "action": "add", "subtask": name})
        elif kind == "cancel":
            name = names[rng.randrange(n // 2)]  # an early one: usually done already
            if name in cancelled:
                continue
            cancelled.append(name)
            check_id = f"no_{name}"
            checks_extra.append({"id": check_id, "kind": "file_absent", "path": f"out/{name}.txt"})
            undo_steps.append(
                {
                    "subtask": name,
                    "undo": True,
                    "tool": "delete_file",
                    "args": {"path": f"out/{name}.txt"},
                }
            )
            message = f"Skip {name}.txt after all; out/ must not have a copy of it."
            user_turns.append(
                {**at, "message": message, "action": "cancel", "subtask": name, "undo": [check_id]}
            )
        else:
            name = names[rng.randrange(n // 2, n)]
            message = (
                f"Please call the {name}.txt step 'Copy {name} in capitals' in your todo list."
            )
            user_turns.append(
                {
                    **at,
                    "message": message,
                    "action": "rename",
                    "subtask": name,
                    "new_text": f"Copy {name} in capitals",
                }
            )
    return out


def _rename_chain(family: Family, scenario_id: str, n: int, rng: random.Random) -> dict[str, Any]:
    names = [f"stage_{i:03d}.txt" for i in range(n + 1)]
    payload = f"payload {rng.randint(100, 999)}\n"
    pairs = list(zip(names, names[1:], strict=False))
    log = "".join(f"{a} -> {b}\n" for a, b in pairs)
    return {
        "id": scenario_id,
        "title": family.title or f"Rename a file through {n} names, logging each step",
        "tags": sorted({*family.tags, "generated", "rename"}),
        "prompt": (
            f"Rename {names[0]} to {names[1]}, then {names[1]} to {names[2]}, and so on up to "
            f"{names[-1]} (stage numbers one apart), keeping the content. Afterwards write "
            'log.md with one line per rename, in order, formatted "old -> new".'
        ),
        "files": [{"path": names[0], "content": payload}],
        "subtasks": [
            {
                "id": f"r{i:03d}",
                "title": f"Rename {a} to {b}",
                "keywords": [a, b],
                "done_when": [
                    {"tool": "rename_file", "args": {"src": {"equals": a}, "dst": {"equals": b}}}
                ],
            }
            for i, (a, b) in enumerate(pairs, start=1)
        ]
        + [
            {
                "id": "log",
                "title": "Write the rename log to log.md",
                "keywords": ["log.md"],
                "done_when": [{"tool": "write_file", "args": {"path": {"equals": "log.md"}}}],
            }
        ],
        "checks": [
            {"kind": "file_equals", "path": names[-1], "content": payload},
            {"kind": "file_absent", "path": names[0]},
            {
                "kind": "lines_in_order",
                "path": "log.md",
                "lines": [f"{a} -> {b}" for a, b in pairs],
            },
        ],
        "reference": [
            {"subtask": f"r{i:03d}", "tool": "rename_file", "args": {"src": a, "dst": b}}
            for i, (a, b) in enumerate(pairs, start=1)
        ]
        + [{"subtask": "log", "tool": "write_file", "args": {"path": "log.md", "content": log}}],
        **_budget(n + 1, family),
    }


#: family name -> builder of one raw scenario (the family, its id, its size, its random source);
#: a new family is one builder and one entry here
FAMILIES: dict[str, Callable[[Family, str, int, random.Random], dict[str, Any]]] = {
    "per_file": _per_file,
    "rename_chain": _rename_chain,
}
