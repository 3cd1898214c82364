"""`make install`'s pins (constraints.txt) install on every Python pyproject.toml admits: a
pinned version whose own `Requires-Python` leaves out the floor (3.11.0) made `make install`
fail on Debian 12's python3 (3.11.2: soupsieve 4.1.3 needs 3.11.5) while the CI's 3.11.7 passed.
Read offline, from the metadata of the installed distributions."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from importlib import metadata
from types import SimpleNamespace
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tests.helpers import ROOT


def floor() -> Version:
    """The lowest Python pyproject.toml's `requires-python` admits (`>=3.11` -> 3.11.0)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (lowest,) = re.findall(r">=\s*([\d.]+)", project["requires-python"])
    return Version(lowest)


def unconditional_pins(text: str) -> dict[str, str]:
    """`name==version` lines with no environment marker (a marked pin is already conditional)."""
    pins = {}
    for line in text.splitlines():
        if line.startswith("#") or ";" in line or "==" not in line:
            continue
        name, version = line.strip().split("==")
        pins[name] = version
    return pins


def too_new(
    pins: dict[str, str], lowest: Version, lookup: Callable[[str], Any] = metadata.distribution
) -> list[str]:
    """The installed pins whose `Requires-Python` leaves out `lowest`."""
    out = []
    for name, version in sorted(pins.items()):
        try:
            dist = lookup(name)
        except metadata.PackageNotFoundError:
            continue  # an extra's package this venv does not have
        needs = dist.metadata.get("Requires-Python")
        if dist.version == version and needs and lowest not in SpecifierSet(needs):
            out.append(f"{name}=={version} needs Python {needs}")
    return out


def test_every_unconditional_pin_installs_on_the_lowest_python_admitted() -> None:
    pins = unconditional_pins((ROOT / "constraints.txt").read_text(encoding="utf-8"))
    assert len(pins) > 100, "constraints.txt read wrong: the check would prove nothing"
    wrong = too_new(pins, floor())
    assert not wrong, (
        f"pins Python {floor()} cannot install (pin an older release for it under a marker, "
        f"as soupsieve's): {wrong}"
    )


def test_the_check_fires_on_a_pin_that_needs_a_newer_python() -> None:
    def installed(needs: str) -> Callable[[str], Any]:
        return lambda name: SimpleNamespace(version="4.1.3", metadata={"Requires-Python": needs})

    pin = {"soupsieve": "4.1.3"}
    assert too_new(pin, Version("3.11.0"), installed(">=3.11.5")) == [
        "soupsieve==4.1.3 needs Python >=3.11.5"
    ]
    assert too_new(pin, Version("3.11.0"), installed(">=3.10")) == []
    marked = 'a==1\nb==2; python_full_version < "3.11.5"\n# c==3\n'
    assert unconditional_pins(marked) == {"a": "1"}
