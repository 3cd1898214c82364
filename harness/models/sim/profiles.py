"""Fault-rate profiles of the simulated agent; any rate can be overridden with `-M name=value`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError


class Profile(BaseModel):
    """Per-opportunity fault rates; recall faults grow with the turns since the list was seen."""

    model_config = ConfigDict(extra="forbid")

    name: str = "custom"
    seed: int = 0
    drop: float = Field(0.0, ge=0, le=1, description="per item per rewrite: leave it out")
    mutate: float = Field(0.0, ge=0, le=1, description="per item per rewrite: drift its text")
    renumber: float = Field(0.0, ge=0, le=1, description="per rewrite with a drop: shift ids")
    invent: float = Field(0.0, ge=0, le=1, description="per rewrite: add an unasked item")
    wrong_id: float = Field(0.0, ge=0, le=1, description="per granular op: recall a wrong id")
    staleness_growth: float = Field(0.15, ge=0, description="rate multiplier per stale turn")
    forget: float = Field(0.0, ge=0, le=1, description="per item: lost when context is compacted")
    relist: float = Field(
        0.0, ge=0, le=1, description="per turn: call list_todos if memory is lost"
    )
    repair: float = Field(1.0, ge=0, le=1, description="per rejected update: fix and resend")
    premature_done: float = Field(0.0, ge=0, le=1, description="per turn: claim done early")
    early_complete: float = Field(0.0, ge=0, le=1, description="per subtask: tick it before work")
    prose_call: float = Field(0.0, ge=0, le=1, description="per step: write the call as text")
    wrong_result: float = Field(0.0, ge=0, le=1, description="per step: subtly wrong output")
    update_every: int = Field(1, ge=1, description="subtasks finished between todo updates")
    paraphrase: float = Field(0.0, ge=0, le=1, description="per plan item: own words, not title")
    merge: float = Field(0.0, ge=0, le=1, description="per pair of plan items: write them as one")
    omit: float = Field(0.0, ge=0, le=1, description="per plan item: leave it off, do it anyway")


PROFILES: dict[str, dict[str, Any]] = {
    "oracle": {"repair": 1.0, "update_every": 1},
    "careful": {
        "drop": 0.02,
        "mutate": 0.02,
        "renumber": 0.2,
        "invent": 0.01,
        "wrong_id": 0.02,
        "forget": 0.1,
        "relist": 0.7,
        "repair": 0.95,
        "premature_done": 0.005,
        "early_complete": 0.01,
        "prose_call": 0.005,
        "wrong_result": 0.01,
        "update_every": 1,
    },
    "sloppy": {
        "drop": 0.03,
        "mutate": 0.04,
        "renumber": 0.4,
        "invent": 0.03,
        "wrong_id": 0.05,
        "forget": 0.35,
        "relist": 0.1,
        "repair": 0.7,
        "premature_done": 0.02,
        "early_complete": 0.05,
        "prose_call": 0.01,
        "wrong_result": 0.015,
        "update_every": 2,
    },
    "chaotic": {
        "drop": 0.08,
        "mutate": 0.08,
        "renumber": 0.6,
        "invent": 0.08,
        "wrong_id": 0.12,
        "forget": 0.6,
        "relist": 0.1,
        "repair": 0.4,
        "premature_done": 0.05,
        "early_complete": 0.12,
        "prose_call": 0.06,
        "wrong_result": 0.1,
        "update_every": 3,
    },
}
#: `sloppy` planning in its own words (`harness/models/sim/wording.py`), for trackers that read
#: its plan
PROFILES["own-words"] = {**PROFILES["sloppy"], "paraphrase": 0.5, "merge": 0.15, "omit": 0.1}
#: list-fault rates fitted on 82 real coding-agent sessions (`scripts/fit_field.py`,
#: docs/field.md); the rates no log shows are `sloppy`'s
PROFILES["field"] = yaml.safe_load((Path(__file__).with_name("field.yaml")).read_text("utf-8"))


class ProfileError(ValueError):
    """An unknown profile, an unreadable profile file or a bad override."""


#: the sim's model arguments that are not profile fields: its scenario folder (the run's) and
#: its latency per request (`latency.py`)
SCENARIO_DIR_ARG = "scenario_dir"
LATENCY_ARG = "latency"


def split_args(model_args: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The sim's model arguments as (the profile's overrides, its own options)."""
    options = (SCENARIO_DIR_ARG, LATENCY_ARG)
    return (
        {k: v for k, v in model_args.items() if k not in options},
        {k: v for k, v in model_args.items() if k in options},
    )


def load_profile(name: str, overrides: dict[str, Any] | None = None) -> Profile:
    """`oracle|careful|sloppy|chaotic|own-words`, or `file:path.yaml`; overrides win."""
    if name.startswith("file:"):
        path = Path(name[len("file:") :])
        try:
            base = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as error:
            raise ProfileError(f"{path}: cannot read profile: {error}") from error
        base.setdefault("name", path.stem)
    elif name in PROFILES:
        base = {"name": name, **PROFILES[name]}
    else:
        raise ProfileError(
            f"unknown sim profile '{name}' (use {', '.join(PROFILES)} or file:PATH.yaml)"
        )
    try:
        return Profile.model_validate({**base, **(overrides or {})})
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise ProfileError(f"sim profile '{name}': field '{field}': {first['msg']}") from error
