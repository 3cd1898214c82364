"""IntentPlanner (second seed): one model call that splits the request into subtasks.

The call asks for structured output (inspect's `response_schema`, a pydantic schema) and also
says in words what JSON to write, so providers without structured output can still answer. Its
plan feeds the deployable tracker (`harness.episode.gate.heuristic`); a reply that does not
parse leaves the
tracker to take the agent's first todo list instead, and the failure is in the ledger.
"""

from __future__ import annotations

import re
from typing import Annotated

from inspect_ai.model import (
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ResponseSchema,
)
from inspect_ai.util import json_schema
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from harness.episode import prompts
from harness.episode.ledger import PlannerEvent, prompt_tokens
from harness.episode.reply_guard import Repair, receive
from harness.todo.base import MAX_TEXT_CHARS

#: the schema's name: the simulated agent recognises a planner call by it
SCHEMA_NAME = "intent_plan"
MAX_SUBTASKS = 100

Line = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_TEXT_CHARS)
]


class IntentPlan(BaseModel):
    """The planner's answer: the request's subtasks, in order."""

    model_config = ConfigDict(extra="forbid")

    subtasks: list[Line] = Field(min_length=1, max_length=MAX_SUBTASKS)


CONFIG = GenerateConfig(
    response_schema=ResponseSchema(name=SCHEMA_NAME, json_schema=json_schema(IntentPlan))
)
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def parse_plan(text: str) -> IntentPlan:
    """The plan in a reply (code fences and prose around the JSON object are ignored);
    ValueError with one line saying what is wrong."""
    found = _OBJECT.search(text)
    if found is None:
        raise ValueError("no JSON object in the reply")
    try:
        return IntentPlan.model_validate_json(found.group(0))
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "reply"
        raise ValueError(f"{where}: {first['msg']}") from error


async def intent_plan(model: Model, request: str) -> tuple[PlannerEvent, list[Repair]]:
    """Ask the model for the request's subtasks; the event holds the plan or why there is none.
    The reply passes the reply guard first (what it repaired comes back for the ledger)."""
    output = await model.generate(
        [ChatMessageSystem(content=prompts.PLANNER), ChatMessageUser(content=request)],
        config=CONFIG,
    )
    output, repairs = receive(output)
    usage = output.usage
    event = PlannerEvent(
        turn=0,
        input_tokens=prompt_tokens(usage),
        output_tokens=usage.output_tokens if usage else 0,
    )
    try:
        event.items = parse_plan(output.completion).subtasks
    except ValueError as error:
        event.error = str(error)
    return event, repairs
