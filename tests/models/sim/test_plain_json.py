"""A side request that asks for JSON gets JSON its schema admits (Gemini CLI's loop check), and
one that asks for none gets the plain title, as before."""

from __future__ import annotations

import asyncio
import json

from inspect_ai.model import GenerateConfig, ResponseSchema, get_model
from inspect_ai.util import JSONSchema

from harness.models.sim.plain_json import plainest
from harness.suite.scenario import load_scenarios, select

#: Gemini CLI 0.61.0's loop check asks for these two fields (its loopDetectionService)
LOOP_CHECK = JSONSchema(
    type="object",
    properties={
        "unproductive_state_analysis": JSONSchema(type="string"),
        "unproductive_state_confidence": JSONSchema(type="number", minimum=0, maximum=1),
    },
    required=["unproductive_state_analysis", "unproductive_state_confidence"],
)


def test_the_plainest_instance_of_each_kind() -> None:
    assert plainest(LOOP_CHECK) == {
        "unproductive_state_analysis": "",
        "unproductive_state_confidence": 0,
    }
    assert plainest(JSONSchema(type="string", enum=["user", "model"])) == "user"
    assert (
        plainest(JSONSchema(anyOf=[JSONSchema(type="boolean"), JSONSchema(type="null")])) is False
    )
    assert plainest(JSONSchema(type=["array", "null"], items=JSONSchema(type="string"))) == []
    assert plainest(JSONSchema(type="object", properties={"a": JSONSchema(type="integer")})) == {
        "a": 0
    }


def test_a_side_request_with_a_schema_is_answered_as_json_and_one_without_as_text() -> None:
    scenario = select(load_scenarios(), "main_and_test")[0]
    model = get_model("sim/sloppy")
    schema = ResponseSchema(name="loop", json_schema=LOOP_CHECK)
    asked = asyncio.run(
        model.generate(scenario.prompt, config=GenerateConfig(response_schema=schema))
    )
    assert json.loads(asked.completion)["unproductive_state_confidence"] == 0
    plain = asyncio.run(model.generate(scenario.prompt))
    assert plain.completion == scenario.title
