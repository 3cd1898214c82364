"""Variant names: a todo design plus its switches (each declared once, in SWITCHES), and the
named sets of variants."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    SerializationInfo,
    field_validator,
    model_serializer,
    model_validator,
)

from harness.products.catalog import AGENTS, AGENTS_HOOKS, PRODUCTS, with_hooks
from harness.products.product import CliProduct

LEVEL_NAMES = {
    "L0": "L0-rewrite",
    "L1": "L1-textlock",
    "L2": "L2-whitelist",
    "L3": "L3-granular",
}
HEADLINE = (
    "L0-rewrite",
    "L1-textlock",
    "L2-whitelist",
    "L3-granular",
    "L4-inject",
    "L4-inject+gate",
)
SETS: dict[str, tuple[str, ...]] = {"headline": HEADLINE}


@dataclass(frozen=True)
class Switch:
    """A variant switch (`+name` in a label), declared once in SWITCHES: the label's order,
    `Variant.parse`, the help of `todo-bench run` and of its flags, the board's table of designs
    and `todo-bench factorial` read it there, and the episode's policies name it
    (`harness/episode/policies.py`, `installed_by`)."""

    name: str
    #: what it does, as `todo-bench run --help` says it
    help: str
    #: switches it cannot go with, each with the refusal of a variant that has both
    excludes: Mapping[str, str] = field(default_factory=dict)
    #: switches it needs, each with the refusal of a variant that lacks one
    requires: Mapping[str, str] = field(default_factory=dict)
    #: a factor of `todo-bench factorial` (False: variants that differ in it are two designs)
    factor: bool = True
    #: its words in the board's "switches" column of the designs compared ("": not listed)
    board: str = ""

    @property
    def key(self) -> str:
        """Its key in a variant's Python form (`completion_loop`), as every log holds it."""
        return self.name.replace("-", "_")


def _declared(*switches: Switch) -> dict[str, Switch]:
    return {switch.name: switch for switch in switches}


#: every switch, in the order a label names them: injection, the oracle gate, the deployable
#: stack of the second seed (`harness/episode/gate/heuristic.py`, `harness/episode/policies.py`),
#: the lifted cap
SWITCHES = _declared(
    Switch(
        "inject",
        "inject the current list into every prompt (what L4 adds to L3)",
        factor=False,
        board="list injected into every prompt",
    ),
    Switch(
        "gate",
        'add the completion gate: the agent\'s "done" is refused until every subtask is ticked',
        excludes={"heuristic": "+gate (oracle) and +heuristic are two gates"},
        board="completion gate",
    ),
    Switch(
        "heuristic",
        "the deployable gate: subtasks from the agent's own first plan, ticked by keyword rules",
    ),
    Switch(
        "planner",
        "IntentPlanner: the deployable gate's plan comes from one structured-output call first",
        requires={"heuristic": "+planner feeds the deployable gate; add +heuristic"},
    ),
    Switch("completion-loop", "an answer with no tool call and no work done does not end the run"),
    Switch("loop-controller", "the turn budget extends, bounded, while subtasks progress"),
    Switch(
        "uncapped",
        "lift the demo's 20-item cap (for studies of long lists; not a design of its own)",
        factor=False,
        board="no item cap",
    ),
)
#: `--variants seed-stack`: the oracle gate beside the deployable stack, piece by piece
SEED_STACK = (
    "L4-inject+gate",
    "L4-inject+heuristic",
    "L4-inject+heuristic+planner",
    "L4-inject+completion-loop",
    "L4-inject+loop-controller",
    "L4-inject+heuristic+completion-loop+loop-controller",
    "L4-inject+heuristic+planner+completion-loop+loop-controller",
)
SETS["seed-stack"] = SEED_STACK
#: `--variants seed-factorial`: every combination of the stack's switches on L4-inject (the
#: planner only with the heuristic gate it feeds), 12 variants
SEED_FACTORIAL = tuple(
    "L4-inject" + "".join(f"+{s}" for s in on)
    for gate in ((), ("heuristic",), ("heuristic", "planner"))
    for loop in ((), ("completion-loop",))
    for controller in ((), ("loop-controller",))
    for on in [(*gate, *loop, *controller)]
)
SETS["seed-factorial"] = SEED_FACTORIAL
#: `--variants agents`: the shipping CLIs with their own todo tools (`harness/products/`)
SETS["agents"] = AGENTS
SETS["agents-hooks"] = AGENTS_HOOKS


def _in_order(switches: Collection[str]) -> tuple[str, ...]:
    return tuple(s for s in SWITCHES if s in switches)


def _check(name: str, on: Collection[str]) -> None:
    """The switches `on` go together as their declarations say (ValueError saying why not)."""
    for switch in (SWITCHES[s] for s in SWITCHES if s in on):
        refusals = [why for other, why in switch.excludes.items() if other in on]
        refusals += [why for other, why in switch.requires.items() if other not in on]
        if refusals:
            raise ValueError(f"variant '{name}': {refusals[0]}")


class Variant(BaseModel):
    """One design under test.

    Its JSON form is its label (`L4-inject+gate`), and a label validates to it: a task's
    `variant` argument is a Variant, and inspect records it in the log and in an eval set's
    identity as the label it always was, so a run folder made before resumes, and a retry that
    reloads the task from the log's arguments gets the same variant back. In Python
    (`model_dump()`) it is its design and one bool per declared switch, the form every log
    holds as the solver's argument; that form validates back too."""

    model_config = ConfigDict(frozen=True)

    level: str  # L0..L3, or the name of a registered design (harness.todo.registry)
    #: the switches that are on, in SWITCHES' order
    switches: tuple[str, ...] = ()
    #: a shipping agent's row: the board's hook switches installed into it (`HOOK_SWITCHES`)
    hooks: tuple[str, ...] = ()

    @field_validator("switches")
    @classmethod
    def _declared_order(cls, switches: tuple[str, ...]) -> tuple[str, ...]:
        unknown = sorted(set(switches) - set(SWITCHES))
        if unknown:
            raise ValueError(f"unknown switch '{'+'.join(unknown)}'")
        return _in_order(switches)

    def has(self, switch: str) -> bool:
        """Whether the switch is on (KeyError for a name no Switch declares: a typo)."""
        return SWITCHES[switch].name in self.switches

    @property
    def design(self) -> str:
        """The registered design's name."""
        return LEVEL_NAMES.get(self.level, self.level)

    @property
    def cli(self) -> CliProduct | None:
        """The shipping agent this variant runs (with its hooks), or None for the harness's
        own loop."""
        product = PRODUCTS.get(self.level)
        return None if product is None else with_hooks(product, self.hooks)

    @property
    def label(self) -> str:
        if self.level in PRODUCTS:
            return with_hooks(PRODUCTS[self.level], self.hooks).name
        name, switches = self.design, self.switches
        if self.level == "L3" and "inject" in switches:  # L4 is L3 with the list injected
            name, switches = "L4-inject", tuple(s for s in switches if s != "inject")
        return name + "".join(f"+{switch}" for switch in switches)

    @model_validator(mode="before")
    @classmethod
    def _from_label_or_fields(cls, data: Any) -> Any:
        """A label is the variant it names (a bad one: ValueError saying why); the Python form,
        a bool per switch, is the variant with those switches."""
        if isinstance(data, str):
            return dict(cls.parse(data))
        if isinstance(data, dict) and "switches" not in data:
            fields = {s.key: name for name, s in SWITCHES.items()}
            on = tuple(fields[key] for key, value in data.items() if key in fields and value)
            rest = {key: value for key, value in data.items() if key not in fields}
            return {**rest, "switches": on}
        return data

    @model_serializer
    def _dump(self, info: SerializationInfo) -> str | dict[str, Any]:
        """JSON: its label. Python: its level, a bool per declared switch and its hooks, the
        form every log holds as the solver's argument (as when each switch was a field)."""
        if info.mode_is_json():
            return self.label
        switches = {s.key: name in self.switches for name, s in SWITCHES.items()}
        return {"level": self.level, **switches, "hooks": self.hooks}

    def switched(self, inject: bool = False, gate: bool = False) -> Variant:
        """This variant with injection and the oracle gate turned on where asked (a task's
        `-T inject=true`, `-T gate=true`); itself when neither is."""
        if not (inject or gate):
            return self
        if self.cli is not None:
            raise ValueError(f"variant '{self.label}': name a shipping agent's hooks in its name")
        added = {name for name, on in (("inject", inject), ("gate", gate)) if on}
        _check(self.label, added | set(self.switches))
        return self.model_copy(update={"switches": _in_order({*self.switches, *added})})

    @classmethod
    def parse(cls, name: str) -> Variant:
        """Parse `L0-rewrite`, `L2`, `L4-inject+gate`, `L1+inject`, `L4-inject+heuristic` and
        the like."""
        parts = [p.strip() for p in name.strip().split("+")]
        head = re.match(r"^l([0-4])\b", parts[0].lower())
        flags = {p.lower() for p in parts[1:]}
        unknown = flags - set(SWITCHES)
        if parts[0] in PRODUCTS:
            switches = tuple(p.lower() for p in parts[1:])
            product = with_hooks(PRODUCTS[parts[0]], switches)  # ValueError: says what is wrong
            return cls(level=parts[0], hooks=tuple(product.name.split("+")[1:]))
        if not head:
            from harness.todo.registry import designs

            known = designs()
            if parts[0] not in known:
                raise ValueError(
                    f"unknown variant '{name}' (expected one of {', '.join(HEADLINE)} or a "
                    f"design: {', '.join(sorted(set(known) - set(LEVEL_NAMES.values())))}; "
                    f"optionally with {' / '.join('+' + s for s in SWITCHES)}; or a shipping "
                    f"agent: {', '.join(AGENTS)})"
                )
            level = parts[0]
        else:
            number = int(head.group(1))
            level = "L3" if number == 4 else f"L{number}"
            if number == 4:  # L4 is L3 with the list injected
                flags.add("inject")
        if unknown:
            raise ValueError(f"unknown switch '{'+'.join(sorted(unknown))}' in variant '{name}'")
        _check(name, flags)
        return cls(level=level, switches=tuple(flags))


def products() -> tuple[str, ...]:
    """`--variants products`: every registered design that reproduces a shipping tool (its
    `PRODUCT`), by name."""
    from harness.todo.registry import designs

    return tuple(sorted(name for name, design in designs().items() if design.PRODUCT))


def parse_variants(names: str | list[str]) -> list[Variant]:
    """Comma-separated or listed variant names; a set's name (`products` or one of SETS)
    expands to its variants."""
    raw = names.split(",") if isinstance(names, str) else names
    result: list[Variant] = []
    for name in (n.strip() for n in raw if n.strip()):
        expanded = products() if name == "products" else SETS.get(name, (name,))
        result.extend(Variant.parse(n) for n in expanded)
    return list(dict.fromkeys(result))
