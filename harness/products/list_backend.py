"""How a product's full-list todo tool takes a call, declared in the product's module: its
schema and words as the model is offered them, and what its backend does with a list (the
items it keeps, its answer, or its refusal in its own words). The harness's design of that name
(`harness/todo/full_list.py`) is built from it, so the board replays the product's calls as the
product takes them, and a new product with such a tool adds no design module."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

#: the items the harness holds, each (text, status: pending, in_progress or completed), and the
#: product's answer to the call
Taken = tuple[list[tuple[str, str]], str]


class Refused(ValueError):
    """The product refuses the call's arguments; the message is its own words."""


@dataclass(frozen=True)
class ListBackend:
    #: the harness design that reproduces it (`--variants NAME`, a row's `design`)
    design: str
    #: the shipping tool, as `--variants products` names it
    product: str
    #: the tool's name as the product offers it
    tool: str
    #: the tool's description and its arguments' descriptions, shown to the model
    description: str
    params: dict[str, str]
    #: a typed stub whose signature inspect reads to build the tool's JSON schema
    signature: Callable[..., Awaitable[str]]
    #: the call's arguments -> what the product keeps and answers; Refused where it refuses
    take: Callable[[dict[str, Any]], Taken]


def entry_field(entry: Any, name: str) -> str:
    """A field of a list entry, whether inspect passed a model or a dict."""
    value = entry.get(name) if isinstance(entry, dict) else getattr(entry, name, None)
    return "" if value is None else str(value).strip()
