"""Variant names: a todo design plus its switches (`inject`, `gate`, `heuristic`, `planner`,
`completion-loop`, `loop-controller`, `uncapped`), and the named sets of variants."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, model_serializer, model_validator

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


#: the deployable stack of the second seed (`harness/episode/gate/heuristic.py`,
#: `harness/episode/loop.py`)
STACK = ("heuristic", "planner", "completion-loop", "loop-controller")
SWITCHES = ("inject", "gate", *STACK, "uncapped")
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


def _one_gate(name: str, gate: bool, heuristic: bool) -> None:
    """A variant has one completion gate at most."""
    if gate and heuristic:
        raise ValueError(f"variant '{name}': +gate (oracle) and +heuristic are two gates")


class Variant(BaseModel):
    """One design under test.

    Its JSON form is its label (`L4-inject+gate`), and a label validates to it: a task's
    `variant` argument is a Variant, and inspect records it in the log and in an eval set's
    identity as the label it always was, so a run folder made before resumes, and a retry that
    reloads the task from the log's arguments gets the same variant back. In Python
    (`model_dump()`) it is its fields."""

    model_config = ConfigDict(frozen=True)

    level: str  # L0..L3, or the name of a registered design (harness.todo.registry)
    inject: bool = False
    #: the oracle gate: subtasks and completion rules from the scenario file
    gate: bool = False
    #: the deployable gate: subtasks from the agent's own first plan, ticked by keyword rules
    heuristic: bool = False
    #: IntentPlanner: the deployable gate's plan comes from one structured-output call first
    planner: bool = False
    #: an answer with no tool call and no work done does not end the run
    completion_loop: bool = False
    #: the turn budget extends, bounded, while subtasks progress
    loop_controller: bool = False
    #: lift the demo's 20-item cap (for studies of long lists; not a design of its own)
    uncapped: bool = False
    #: a shipping agent's row: the board's hook switches installed into it (`HOOK_SWITCHES`)
    hooks: tuple[str, ...] = ()

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
        if self.level == "L3" and self.inject:
            name = "L4-inject"
        else:
            name = self.design + ("+inject" if self.inject else "")
        on = {
            "gate": self.gate,
            "heuristic": self.heuristic,
            "planner": self.planner,
            "completion-loop": self.completion_loop,
            "loop-controller": self.loop_controller,
            "uncapped": self.uncapped,
        }
        return name + "".join(f"+{switch}" for switch, set_ in on.items() if set_)

    @model_validator(mode="before")
    @classmethod
    def _from_label(cls, data: Any) -> Any:
        """A label is the variant it names (a bad one: ValueError saying why)."""
        return dict(cls.parse(data)) if isinstance(data, str) else data

    @model_serializer(when_used="json")
    def _as_label(self) -> str:
        return self.label

    def switched(self, inject: bool = False, gate: bool = False) -> Variant:
        """This variant with injection and the oracle gate turned on where asked (a task's
        `-T inject=true`, `-T gate=true`); itself when neither is."""
        if not (inject or gate):
            return self
        if self.cli is not None:
            raise ValueError(f"variant '{self.label}': name a shipping agent's hooks in its name")
        _one_gate(self.label, gate, self.heuristic)
        return self.model_copy(update={"inject": self.inject or inject, "gate": self.gate or gate})

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
            level, inject = parts[0], False
        else:
            number = int(head.group(1))
            level, inject = ("L3" if number == 4 else f"L{number}"), number == 4
        if unknown:
            raise ValueError(f"unknown switch '{'+'.join(sorted(unknown))}' in variant '{name}'")
        gate = "gate" in flags
        _one_gate(name, gate, "heuristic" in flags)
        if "planner" in flags and "heuristic" not in flags:
            raise ValueError(
                f"variant '{name}': +planner feeds the deployable gate; add +heuristic"
            )
        return cls(
            level=level,
            inject=inject or "inject" in flags,
            gate=gate,
            heuristic="heuristic" in flags,
            planner="planner" in flags,
            completion_loop="completion-loop" in flags,
            loop_controller="loop-controller" in flags,
            uncapped="uncapped" in flags,
        )


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
