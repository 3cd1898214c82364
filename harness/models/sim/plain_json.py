"""The simulated agent's answer to a side request that asks for JSON by a schema (Gemini CLI's
loop check: is the conversation stuck?): the schema's plainest instance, an agent that says
nothing is wrong. Before, the title it gives a side request failed the product's JSON parse, and
Gemini CLI retried ten times over about four minutes."""

from __future__ import annotations

from typing import Any

from inspect_ai.util import JSONSchema


def plainest(schema: JSONSchema) -> Any:
    """The schema's plainest instance: an object of its required fields (every field where none
    is named required), a string's first allowed value or "", a number's minimum or 0, false,
    an empty array, the first alternative of a union."""
    if schema.enum:
        return schema.enum[0]
    if schema.anyOf:
        return plainest(schema.anyOf[0])
    kind = schema.type[0] if isinstance(schema.type, list) else schema.type
    if kind == "object" or (kind is None and schema.properties):
        fields = schema.properties or {}
        named = schema.required if schema.required is not None else list(fields)
        return {name: plainest(fields[name]) for name in named if name in fields}
    if kind == "string":
        return ""
    if kind in ("number", "integer"):
        return schema.minimum if schema.minimum is not None else 0
    if kind == "boolean":
        return False
    if kind == "array":
        return []
    return None
