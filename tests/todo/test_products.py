"""The designs real products ship: their rules, ids by text identity, and the registry."""

from __future__ import annotations

import json

import pytest

from harness.products.shipped.claude_code import TODOWRITE_BACKEND
from harness.todo import ClaudeTasksStore, InspectTodoWriteStore
from harness.todo.base import TodoRejected
from harness.todo.full_list import STORES, FullListStore
from harness.todo.registry import DesignError, designs, load
from harness.todo.variants import HEADLINE, parse_variants, products


def todos(*rows: tuple[str, str]) -> dict[str, list[dict[str, str]]]:
    return {"todos": [{"content": c, "status": s, "activeForm": c} for c, s in rows]}


ClaudeTodoWriteStore = STORES["cc-todowrite"]
CodexPlanStore = STORES["codex-plan"]
OpenCodeTodoWriteStore = STORES["opencode-todowrite"]


def test_todowrite_keeps_ids_by_text_and_rewording() -> None:
    store = ClaudeTodoWriteStore()
    store.write_list(todos(("Write main.py", "pending"), ("Write test.py", "pending")))
    assert [(i.id, i.text) for i in store.items] == [("1", "Write main.py"), ("2", "Write test.py")]
    # reordered, one reworded, one new: the reworded item keeps its id, the new one gets 3
    store.write_list(
        todos(
            ("Write the test.py file", "pending"),
            ("Write main.py", "completed"),
            ("Tidy up afterwards", "pending"),
        )
    )
    assert [(i.id, i.status) for i in store.items] == [
        ("2", "pending"),
        ("1", "completed"),
        ("3", "pending"),
    ]


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"todos": [{"content": "a", "status": "pending"}]}, "activeForm"),
        (todos(("a", "done")), "status"),
        ({"todos": "nope"}, "must be a list"),
    ],
)
def test_todowrite_rejects_what_the_schema_forbids(
    payload: dict[str, object], message: str
) -> None:
    store = ClaudeTodoWriteStore()
    with pytest.raises(TodoRejected, match=message):
        store.write_list(payload)
    assert store.items == []


def test_todowrite_has_no_cap_and_no_single_in_progress_rule() -> None:
    store = ClaudeTodoWriteStore()
    store.write_list(todos(*((f"step {i}", "in_progress") for i in range(30))))
    assert len(store.items) == 30


def test_codex_plan_allows_one_step_in_progress() -> None:
    store = CodexPlanStore()
    with pytest.raises(TodoRejected, match="At most one step"):
        store.write_list(
            {
                "plan": [
                    {"step": "a", "status": "in_progress"},
                    {"step": "b", "status": "in_progress"},
                ]
            }
        )
    store.write_list(
        {"plan": [{"step": "a", "status": "in_progress"}, {"step": "b", "status": "pending"}]}
    )
    assert [i.text for i in store.items] == ["a", "b"]


def test_opencode_todowrite_takes_the_whole_list_and_answers_with_it() -> None:
    store = OpenCodeTodoWriteStore()
    sent = [
        {"content": "Write main.py", "status": "in_progress", "priority": "high"},
        {"content": "Write test.py", "status": "in_progress", "priority": "low"},
    ]
    assert json.loads(store.write_list({"todos": sent})) == sent  # no single-in-progress rule
    assert [(i.id, i.text) for i in store.items] == [("1", "Write main.py"), ("2", "Write test.py")]
    # the product takes any status string: the design its four, a cancelled item off the work
    with pytest.raises(TodoRejected, match="status must be"):
        store.write_list(
            {"todos": [{"content": "Write main.py", "status": "blocked", "priority": "high"}]}
        )
    assert len(store.items) == 2
    sent[1]["status"] = "cancelled"
    assert json.loads(store.write_list({"todos": sent})) == sent  # the product still shows it
    assert [(i.id, i.text) for i in store.items] == [("1", "Write main.py")]


def test_inspect_todo_write_is_the_library_tool() -> None:
    (spec,) = InspectTodoWriteStore.tool_specs()
    assert (
        spec.name == "todo_write" and "Exactly one step should be in_progress" in spec.description
    )
    store = InspectTodoWriteStore()
    assert (
        spec.run(store, {"todos": [{"content": "a", "status": "pending"}]}) == "Todo list updated"
    )


def test_tasks_ids_dependencies_rename_and_delete() -> None:
    """Every answer in the pinned Claude Code's words (its bundle's TaskCreate, TaskUpdate,
    TaskList and TaskGet result mappers)."""
    store = ClaudeTasksStore()
    assert store.list_tasks() == "No tasks found"
    assert store.create("Set up the schema", "tables") == (
        "Task #1 created successfully: Set up the schema"
    )
    store.create("Write the login endpoint", "POST /login")
    assert store.update_task({"taskId": "2", "addBlockedBy": ["1"], "status": "in_progress"}) == (
        "Updated task #2 status, blockedBy"
    )
    assert "#2 [in_progress] Write the login endpoint [blocked by #1]" in store.list_tasks()
    assert store.update_task({"taskId": "2", "subject": "Write the login API"}) == (
        "Updated task #2 subject"
    )
    assert store.items[1].text == "Write the login API"
    # a value the task already has is no change: the binary names none (and keeps its blank)
    assert store.update_task({"taskId": "2", "status": "in_progress"}) == "Updated task #2 "
    assert store.get("2") == (
        "Task #2: Write the login API\nStatus: in_progress\nDescription: POST /login\n"
        "Blocked by: #1"
    )
    store.update_task({"taskId": "1", "status": "completed"})
    assert store.list_tasks().splitlines()[1] == "#2 [in_progress] Write the login API"
    with pytest.raises(TodoRejected, match="No task with id #9"):
        store.update_task({"taskId": "2", "addBlockedBy": ["9"]})
    with pytest.raises(TodoRejected, match="invalid status"):
        store.update_task({"taskId": "2", "status": "done"})
    with pytest.raises(TodoRejected, match=r"^Task #7 not found$"):
        store.update_task({"taskId": "7", "status": "completed"})
    with pytest.raises(TodoRejected, match=r"^Task not found$"):
        store.get("7")
    assert store.update_task({"taskId": "1", "status": "deleted"}) == "Updated task #1 deleted"
    assert [i.id for i in store.items] == ["2"]
    assert store.create("Add rate limiting", "x").startswith("Task #3")  # ids never reused


def test_every_product_design_is_found_in_harness_todo() -> None:
    assert products() == (
        "cc-tasks",
        "cc-todowrite",
        "codex-plan",
        "gemini-writetodos",
        "inspect-todo_write",
        "opencode-todowrite",
    )
    assert all(designs()[name].PRODUCT for name in products())
    assert not any(designs()[name].PRODUCT for name in HEADLINE[:4])
    assert [v.label for v in parse_variants("products")] == list(products())
    assert parse_variants("cc-tasks+gate")[0].has("gate")


def test_a_users_design_that_names_a_product_joins_the_products_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from harness.todo import registry

    class MyPlanStore(FullListStore):
        BACKEND = TODOWRITE_BACKEND
        name = "my-plan"
        PRODUCT = "My agent's plan tool"

    class NotAProduct(FullListStore):
        BACKEND = TODOWRITE_BACKEND
        name = "not-a-product"
        PRODUCT = ""

    monkeypatch.setitem(registry._EXTRA, "my-plan", MyPlanStore)
    monkeypatch.setitem(registry._EXTRA, "not-a-product", NotAProduct)
    assert "my-plan" in products() and "not-a-product" not in products()
    assert "my-plan" in [v.label for v in parse_variants("products")]


def test_a_design_loaded_by_module_and_class() -> None:
    assert load("examples.append_only:AppendOnlyStore") == "append-only"
    assert "append-only" in designs()
    with pytest.raises(DesignError, match="module:Class"):
        load("no-colon")
    with pytest.raises(DesignError, match="not a TodoStore subclass"):
        load("harness.todo.specs:CLASSIC")


def test_the_products_have_no_item_cap_and_the_seed_levels_do() -> None:
    from harness.todo.base import MAX_ITEMS
    from harness.todo.registry import designs

    for name in ("cc-todowrite", "cc-tasks", "codex-plan", "inspect-todo_write",
                 "opencode-todowrite", "gemini-writetodos"):  # fmt: skip
        assert designs()[name](MAX_ITEMS).max_items is None, name
    for name in ("L0-rewrite", "L1-textlock", "L2-whitelist", "L3-granular"):
        assert designs()[name](MAX_ITEMS).max_items == MAX_ITEMS, name


class _Point:
    """An installed package's entry point, as importlib.metadata gives it."""

    def __init__(self, name: str, design: object) -> None:
        self.name, self.value, self._design = name, f"somepkg:{name}", design

    def load(self) -> object:
        return self._design


def test_an_entry_point_under_a_shipped_design_s_name_is_refused_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from harness.todo import registry

    class Impostor(FullListStore):
        BACKEND = TODOWRITE_BACKEND
        name = "cc-todowrite"

    monkeypatch.setattr(registry, "entry_points", lambda group: [_Point("cc-todowrite", Impostor)])
    registry._registered.cache_clear()
    try:
        with pytest.raises(DesignError, match="the name of a design todo-bench ships"):
            registry.designs()
        # the shipped class itself under its own name (an older install's entry point) is fine
        monkeypatch.setattr(
            registry, "entry_points", lambda group: [_Point("cc-todowrite", ClaudeTodoWriteStore)]
        )
        registry._registered.cache_clear()
        assert registry.designs()["cc-todowrite"] is ClaudeTodoWriteStore
    finally:
        registry._registered.cache_clear()
