"""A Variant is its label in JSON and validates from it: every variant of every set comes back
equal from its label, a task's arguments hash as they did when the runner passed the label
(so run folders made before resume), and a bad label is refused with the message it always had.
"""

from __future__ import annotations

import re

import pytest
from inspect_ai._eval.eval_set_manifest import task_args_hash
from pydantic import BaseModel

from harness.todo.registry import load
from harness.todo.variants import SETS, Variant, parse_variants, products


def every_variant() -> list[Variant]:
    load("examples.append_only:AppendOnlyStore")  # a registered design, as --design does
    names = [*SETS, "products", "append-only", "append-only+inject+gate+uncapped"]
    return parse_variants(names)


def test_every_variant_of_every_set_comes_back_from_its_label() -> None:
    variants = every_variant()
    assert len(variants) > 30 and {v.design for v in variants} >= {"append-only", *products()}
    for variant in variants:
        assert Variant.model_validate(variant.label) == variant, variant.label
        assert Variant.model_validate_json(variant.model_dump_json()) == variant


def test_its_json_is_its_label_and_its_python_dump_its_fields() -> None:
    variant = Variant.parse("L4-inject+gate")
    assert variant.model_dump_json() == '"L4-inject+gate"'
    assert variant.model_dump() == {
        "level": "L3", "inject": True, "gate": True, "heuristic": False, "planner": False,
        "completion_loop": False, "loop_controller": False, "uncapped": False, "hooks": (),
    }  # fmt: skip
    assert Variant.model_validate(variant.model_dump()) == variant  # the solver's argument
    assert variant.switches == ("inject", "gate") and variant.has("gate")
    with pytest.raises(KeyError):
        variant.has("gates")  # a switch no declaration names is a typo, not False

    class Holder(BaseModel):
        variants: list[Variant]

    held = Holder(variants=[variant])
    assert Holder.model_validate_json(held.model_dump_json()) == held
    assert Holder.model_validate({"variants": ["L4-inject+gate"]}) == held
    assert Holder(variants=[variant]).variants[0] is variant  # an object is taken as it is


def test_a_task_s_arguments_hash_as_they_did_with_the_label() -> None:
    """inspect's eval-set identity of a task (`task_args_hash`) is the same whether the runner
    passes the variant or, as before, its label: no finished log of a run folder is orphaned."""
    others = {"scenarios": "excel_export,long_list", "scenario_dir": None, "designs": None}
    for variant in every_variant():
        assert task_args_hash({"variant": variant, **others}) == task_args_hash(
            {"variant": variant.label, **others}
        ), variant.label


@pytest.mark.parametrize(
    ("label", "refusal"),
    [
        ("L9-magic", "unknown variant 'L9-magic' (expected one of L0-rewrite"),
        ("L4-inject+gates", "unknown switch 'gates' in variant 'L4-inject+gates'"),
        ("L4-inject+gate+heuristic", "+gate (oracle) and +heuristic are two gates"),
        ("L4-inject+planner", "+planner feeds the deployable gate; add +heuristic"),
    ],
)
def test_a_bad_label_is_refused_as_it_was(label: str, refusal: str) -> None:
    with pytest.raises(ValueError, match=re.escape(refusal)):
        Variant.parse(label)
    with pytest.raises(ValueError, match=re.escape(refusal)):
        Variant.model_validate(label)


def test_the_task_s_switches_apply_through_one_method() -> None:
    variant = Variant.parse("L3-granular")
    assert variant.switched() is variant
    assert variant.switched(inject=True, gate=True) == Variant.parse("L4-inject+gate")
    with pytest.raises(ValueError, match="two gates"):
        Variant.parse("L4-inject+heuristic").switched(gate=True)
    with pytest.raises(ValueError, match="hooks in its name"):
        Variant.parse("cli/codex").switched(inject=True)
