"""gemini-writetodos, the design that reproduces Gemini CLI's `write_todos`: each of its checks
fires where the product's does and only there, with the product's words, and its answer is the
product's. The heavy test holds the design to the pinned product's own code: the same calls go
through Gemini CLI's `WriteTodosTool` (its schema validation, its handler's checks and its
answer, run by node from the package `make agents` installed), and every verdict and every word
must be the same."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from harness.agents.binaries import AgentMissing, agents_dir, binary
from harness.products.catalog import PRODUCTS
from harness.products.shipped.gemini_cli import refusal
from harness.todo.base import TodoRejected
from harness.todo.full_list import STORES

GeminiWriteTodosStore = STORES["gemini-writetodos"]


def _todo(description: Any, status: Any, **extra: Any) -> dict[str, Any]:
    return {"description": description, "status": status, **extra}


#: (arguments, the product's refusal or None): every check must fire on its own case and on no
#: other; the accepted cases sit at each check's edge
#: the product's refusals, shared by several cases
ENUM = "params/todos/0/status must be equal to one of the allowed values"
BLANK = "Each todo must have a non-empty description string"
CASES: list[tuple[dict[str, Any], str | None]] = [
    ({"todos": [_todo("a", "pending"), _todo("b", "blocked")]}, None),
    ({"todos": []}, None),
    ({"todos": [_todo("a", s) for s in ("completed", "cancelled", "blocked")]}, None),
    ({"todos": [_todo("a", "in_progress"), _todo("b", "pending")]}, None),
    ({"todos": [_todo(" a ", "pending")]}, None),
    ({}, "params must have required property 'todos'"),
    ({"todos": [], "explanation": "x"}, "params must NOT have additional properties"),
    ({"todos": "Write main.py"}, "params/todos must be array"),
    ({"todos": [_todo("a", "pending"), 3]}, "params/todos/1 must be object"),
    (
        {"todos": [{"status": "pending"}]},
        "params/todos/0 must have required property 'description'",
    ),
    ({"todos": [{"description": "a"}]}, "params/todos/0 must have required property 'status'"),
    (
        {"todos": [_todo("a", "pending", priority="high")]},
        "params/todos/0 must NOT have additional properties",
    ),
    ({"todos": [_todo(5, "zz")]}, "params/todos/0/description must be string"),
    ({"todos": [_todo("a", None)]}, "params/todos/0/status must be string"),
    ({"todos": [_todo("a", "Completed")]}, ENUM),  # no case folding
    ({"todos": [_todo("a", "done")]}, ENUM),
    ({"todos": [_todo("a", "pending"), _todo("  ", "pending")]}, BLANK),
    (
        {"todos": [_todo("a", "in_progress"), _todo("b", "in_progress")]},
        'Invalid parameters: Only one task can be "in_progress" at a time.',
    ),
]


@pytest.mark.parametrize(("params", "refused"), CASES)
def test_each_check_fires_on_its_case_and_no_other(
    params: dict[str, Any], refused: str | None
) -> None:
    assert refusal(params) == refused
    store = GeminiWriteTodosStore()
    store.write_list({"todos": [_todo("kept", "pending")]})
    if refused is None:
        store.write_list(params)
        return
    with pytest.raises(TodoRejected) as raised:
        store.write_list(params)
    assert str(raised.value) == refused
    assert [i.text for i in store.items] == ["kept"]  # a refused call changes nothing


def test_the_list_replaces_the_stored_one_and_the_answer_is_the_product_s() -> None:
    store = GeminiWriteTodosStore()
    answer = store.write_list(
        {"todos": [_todo("Write main.py", "in_progress"), _todo("Write test.py", "pending")]}
    )
    assert answer == (
        "Successfully updated the todo list. The current list is now:\n"
        "1. [in_progress] Write main.py\n2. [pending] Write test.py"
    )
    assert [(i.id, i.text, i.status) for i in store.items] == [
        ("1", "Write main.py", "in_progress"),
        ("2", "Write test.py", "pending"),
    ]
    assert store.write_list({"todos": []}) == "Successfully cleared the todo list."
    assert store.items == []


def test_a_cancelled_item_leaves_the_harness_s_list_and_a_blocked_one_stays_as_pending() -> None:
    store = GeminiWriteTodosStore()
    store.write_list({"todos": [_todo("a", "pending"), _todo("b", "pending")]})
    answer = store.write_list({"todos": [_todo("a", "blocked"), _todo("b", "cancelled")]})
    assert answer.endswith("1. [blocked] a\n2. [cancelled] b")  # the product still shows both
    assert [(i.id, i.text, i.status) for i in store.items] == [("1", "a", "pending")]


def test_a_rewording_keeps_the_id_and_no_cap_applies() -> None:
    from harness.todo.base import MAX_ITEMS

    store = GeminiWriteTodosStore(MAX_ITEMS)
    assert store.max_items is None
    store.write_list({"todos": [_todo("Write main.py", "pending")]})
    store.write_list({"todos": [_todo("Write the main.py file", "pending")]})
    assert [i.id for i in store.items] == ["1"]
    store.write_list({"todos": [_todo(f"item {n}", "pending") for n in range(30)]})
    assert len(store.items) == 30


#: runs each case through the pinned package's own WriteTodosTool (its bundle exports it)
_PROBE = """
const [bundle, file] = process.argv.slice(2);
const fs = await import("node:fs");
const cases = JSON.parse(fs.readFileSync(file, "utf8"));
let tool;
for (const name of fs.readdirSync(bundle).filter((n) => n.startsWith("chunk-"))) {
  const text = fs.readFileSync(`${bundle}/${name}`, "utf8");
  if (!/^\\s*WriteTodosTool,$/m.test(text)) continue;
  const module = await import(`${bundle}/${name}`);
  if (module.WriteTodosTool) { tool = new module.WriteTodosTool({}); break; }
}
const out = [];
for (const params of cases) {
  try {
    const run = await tool.build(params).execute({ abortSignal: new AbortController().signal });
    out.push({ answer: run.llmContent });
  } catch (error) {
    out.push({ refused: error.message });
  }
}
console.log(JSON.stringify(out));
"""


@pytest.mark.heavy
def test_the_design_and_the_pinned_product_give_the_same_verdict_and_words(
    tmp_path: Path,
) -> None:
    product = PRODUCTS["cli/gemini-cli"]
    try:
        binary(product)
    except AgentMissing as missing:
        pytest.skip(f"{missing} (CI runs make agents first)")
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    bundle = agents_dir() / Path(product.binary).parent
    script, cases = tmp_path / "probe.mjs", tmp_path / "cases.json"
    script.write_text(_PROBE, encoding="utf-8")
    cases.write_text(json.dumps([params for params, _ in CASES]), encoding="utf-8")
    ran = subprocess.run(
        [node, str(script), str(bundle), str(cases)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    verdicts = json.loads(ran.stdout.strip().splitlines()[-1])
    assert len(verdicts) == len(CASES)
    for (params, refused), verdict in zip(CASES, verdicts, strict=True):
        if refused is not None:
            assert verdict == {"refused": refused}, params
        else:
            assert verdict == {"answer": GeminiWriteTodosStore().write_list(params)}, params
