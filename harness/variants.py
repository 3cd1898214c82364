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


class Variant(BaseModel):
    """One design under test."""

    model_config = ConfigDict(frozen=True)

    level: str  # L0..L3
    inject: bool = False
    gate: bool = False
    #: lift the demo's 20-item cap (for studies of long lists; not a design of its own)
    uncapped: bool = False

    @property
    def label(self) -> str:
        if self.level == "L3" and self.inject:
            name = "L4-inject"
        else:
            name = LEVEL_NAMES[self.level] + ("+inject" if self.inject else "")
        return name + ("+gate" if self.gate else "") + ("+uncapped" if self.uncapped else "")

    @classmethod
    def parse(cls, name: str, inject: bool = False, gate: bool = False) -> Variant:
        """Parse `L0-rewrite`, `L2`, `L4-inject+gate`, `L1+inject` and the like."""
        parts = [p.strip().lower() for p in name.strip().split("+")]
        head = re.match(r"^l([0-4])\b", parts[0])
        if not head:
            raise ValueError(
                f"unknown variant '{name}' (expected one of {', '.join(HEADLINE)}, "
                "optionally with +inject / +gate / +uncapped)"
            )
        level = int(head.group(1))
        flags = set(parts[1:])
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
    """Comma-separated or listed variant names; `headline` expands to the headline set."""
    raw = names.split(",") if isinstance(names, str) else names
    result: list[Variant] = []
    for name in (n.strip() for n in raw if n.strip()):
        expanded = HEADLINE if name == "headline" else (name,)
        result.extend(Variant.parse(n) for n in expanded)
    return list(dict.fromkeys(result))
