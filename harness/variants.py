"""Variant names: a todo level plus the `inject` and `gate` switches."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

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
#: the todo tools real coding agents ship (`--variants products`)
PRODUCTS = ("cc-todowrite", "cc-tasks", "codex-plan", "inspect-todo_write")
SETS = {"headline": HEADLINE, "products": PRODUCTS}


class Variant(BaseModel):
    """One design under test."""

    model_config = ConfigDict(frozen=True)

    level: str  # L0..L3, or the name of a registered design (harness.designs)
    inject: bool = False
    gate: bool = False
    #: lift the demo's 20-item cap (for studies of long lists; not a design of its own)
    uncapped: bool = False

    @property
    def design(self) -> str:
        """The registered design's name."""
        return LEVEL_NAMES.get(self.level, self.level)

    @property
    def label(self) -> str:
        if self.level == "L3" and self.inject:
            name = "L4-inject"
        else:
            name = self.design + ("+inject" if self.inject else "")
        return name + ("+gate" if self.gate else "") + ("+uncapped" if self.uncapped else "")

    @classmethod
    def parse(cls, name: str, inject: bool = False, gate: bool = False) -> Variant:
        """Parse `L0-rewrite`, `L2`, `L4-inject+gate`, `L1+inject` and the like."""
        parts = [p.strip() for p in name.strip().split("+")]
        head = re.match(r"^l([0-4])\b", parts[0].lower())
        flags = {p.lower() for p in parts[1:]}
        if not head:
            from harness.designs import designs

            known = designs()
            if parts[0] not in known:
                raise ValueError(
                    f"unknown variant '{name}' (expected one of {', '.join(HEADLINE)} or a "
                    f"design: {', '.join(sorted(set(known) - set(LEVEL_NAMES.values())))}; "
                    "optionally with +inject / +gate / +uncapped)"
                )
            unknown = flags - {"inject", "gate", "uncapped"}
            if unknown:
                raise ValueError(
                    f"unknown switch '{'+'.join(sorted(unknown))}' in variant '{name}'"
                )
            return cls(
                level=parts[0],
                inject=inject or "inject" in flags,
                gate=gate or "gate" in flags,
                uncapped="uncapped" in flags,
            )
        level = int(head.group(1))
        unknown = flags - {"inject", "gate", "uncapped"}
        if unknown:
            raise ValueError(f"unknown switch '{'+'.join(sorted(unknown))}' in variant '{name}'")
        uncapped = "uncapped" in flags
        if level == 4:
            return cls(level="L3", inject=True, gate=gate or "gate" in flags, uncapped=uncapped)
        return cls(
            level=f"L{level}",
            inject=inject or "inject" in flags,
            gate=gate or "gate" in flags,
            uncapped=uncapped,
        )


def parse_variants(names: str | list[str]) -> list[Variant]:
    """Comma-separated or listed variant names; `headline` and `products` expand to their sets."""
    raw = names.split(",") if isinstance(names, str) else names
    result: list[Variant] = []
    for name in (n.strip() for n in raw if n.strip()):
        expanded = SETS.get(name, (name,))
        result.extend(Variant.parse(n) for n in expanded)
    return list(dict.fromkeys(result))
