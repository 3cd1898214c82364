"""Two nested JSON-like values compared leaf by leaf, each difference one short line (what a
submission says against what verify derived)."""

from __future__ import annotations

#: a differing value is shown up to this many characters
SHORT = 40


def differences(submitted: object, derived: object, where: str = "") -> list[str]:
    """`field: submitted, derived` for every leaf that differs."""
    if isinstance(submitted, dict) and isinstance(derived, dict):
        return [
            line
            for key in sorted(submitted.keys() | derived.keys(), key=str)
            for line in differences(
                submitted.get(key), derived.get(key), f"{where}.{key}" if where else str(key)
            )
        ]
    if isinstance(submitted, list) and isinstance(derived, list) and len(submitted) == len(derived):
        return [
            line
            for index, (a, b) in enumerate(zip(submitted, derived, strict=True))
            for line in differences(a, b, f"{where}[{_label(a, index)}]")
        ]
    if submitted == derived:
        return []
    return [f"{where}: {_short(submitted)} submitted, {_short(derived)} re-derived"]


def more(differs: list[str]) -> str:
    return f" ({len(differs) - 1} more)" if len(differs) > 1 else ""


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= SHORT else text[: SHORT - 3] + "..."


def _label(item: object, index: int) -> str:
    """A list item's name where it has one (a variant), else its index."""
    return str(item.get("variant", index)) if isinstance(item, dict) else str(index)
