"""Each todo design on its own rules, plus one contract every design must keep."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from harness.todo import (
    LEVELS,
    GranularStore,
    RewriteStore,
    TextLockStore,
    TodoRejected,
    WhitelistStore,
    render,
)
from harness.todo.base import TodoItem
from harness.todo.registry import designs
from tests.helpers import items

PLAN = items(
    ("1", "Write a.md", "in_progress"),
    ("2", "Write b.md", "pending"),
    ("3", "Write c.md", "pending"),
)


def test_render_format() -> None:
    listed = [
        TodoItem(id="1", text="a", status="completed"),
        TodoItem(id="2", text="b", status="in_progress"),
        TodoItem(id="3", text="c"),
    ]
    assert render(listed) == "[x] #1: a\n[>] #2: b\n[ ] #3: c\n(1/3 completed)"


def test_l0_blindly_replaces_a_valid_list() -> None:
    store = RewriteStore()
    store.write(PLAN)
    # drops #2, rewrites #3's text and renumbers: all accepted, as in the classic demo
    store.write(items(("1", "Write a.md", "completed"), ("2", "Write the c file", "pending")))
    assert [(i.id, i.text) for i in store.items] == [("1", "Write a.md"), ("2", "Write the c file")]


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ([{"id": str(i), "text": f"t{i}"} for i in range(21)], "Max 20"),
        (items(("1", "a", "in_progress"), ("2", "b", "in_progress")), "Only one task"),
        (items(("1", "  ", "pending")), "text required"),
        (items(("1", "a", "done")), "invalid status 'done'"),
        ("not a list", "must be a list"),
        (items(("1", "a", "pending"), ("1", "b", "pending")), "Duplicate ids"),
    ],
)
def test_l0_keeps_the_demo_rules(payload: object, message: str) -> None:
    store = RewriteStore()
    with pytest.raises(TodoRejected, match=message):
        store.write(payload)


def test_l0_id_defaults_to_position() -> None:
    store = RewriteStore()
    store.write([{"text": "a"}, {"text": "b", "status": "completed"}])
    assert [i.id for i in store.items] == ["1", "2"]


def test_l1_rejects_a_text_change_naming_the_stored_text() -> None:
    store = TextLockStore()
    store.write(PLAN)
    changed = items(
        ("1", "Write a.md", "completed"),
        ("2", "Write index.md", "pending"),
        ("3", "Write c.md", "pending"),
    )
    with pytest.raises(TodoRejected, match=r"#2 must keep its text 'Write b\.md'"):
        store.write(changed)
    assert store.items[1].text == "Write b.md"
    store.rename("2", "Write index.md")  # the explicit tool may rename
    assert store.items[1].text == "Write index.md"


def test_l1_still_lets_a_rewrite_drop_an_item() -> None:
    store = TextLockStore()
    store.write(PLAN)
    store.write(PLAN[:2])
    assert len(store.items) == 2


def test_l2_rejects_missing_and_unknown_ids() -> None:
    store = WhitelistStore()
    store.write(PLAN)
    sent = items(("1", "Write a.md", "completed"), ("9", "Write z.md", "pending"))
    with pytest.raises(TodoRejected) as error:
        store.write(sent)
    message = str(error.value)
    assert "missing ids: #2 'Write b.md', #3 'Write c.md'" in message
    assert "unknown ids: #9" in message
    assert [i.id for i in store.items] == ["1", "2", "3"]


def test_l2_adds_and_deletes_explicitly_with_fresh_ids() -> None:
    store = WhitelistStore()
    store.write(PLAN)
    store.delete("3")
    assert store.add("Write d.md") == "Added #4: Write d.md"  # never reuses a seen id
    assert [i.id for i in store.items] == ["1", "2", "4"]


def test_l3_cannot_express_a_full_rewrite() -> None:
    store = GranularStore()
    assert "todo" not in store.TOOLS
    with pytest.raises(TodoRejected, match="Full rewrites are not supported"):
        store.write(PLAN)


def test_l3_logs_every_op_and_rolls_back() -> None:
    store = GranularStore()
    store.add("Write a.md")
    store.add("Write b.md")
    store.update_status("1", "in_progress")
    store.rename("2", "Write bee.md")
    store.delete("1")
    assert [op.op for op in store.op_log] == [
        "add_todo",
        "add_todo",
        "update_todo_status",
        "rename_todo",
        "delete_todo",
    ]
    with pytest.raises(TodoRejected):
        store.update_status("7", "completed")
    assert len(store.op_log) == 5  # rejected ops are not logged as accepted
    restored = store.rollback(3)
    assert [(i.id, i.text, i.status) for i in restored] == [
        ("1", "Write a.md", "in_progress"),
        ("2", "Write b.md", "pending"),
    ]
    assert store.rollback(0) == []
    with pytest.raises(TodoRejected, match="No version 9"):
        store.rollback(9)


def test_l3_validates_every_op() -> None:
    store = GranularStore()
    store.add("a")
    store.add("b")
    store.update_status("1", "in_progress")
    with pytest.raises(TodoRejected, match="Only one task"):
        store.update_status("2", "in_progress")
    with pytest.raises(TodoRejected, match="invalid status"):
        store.update_status("2", "finished")
    with pytest.raises(TodoRejected, match=r"No todo with id #5 \(existing ids: #1, #2"):
        store.delete("5")


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_contract_rejections_leave_the_store_untouched(level: str) -> None:
    store = LEVELS[level]()
    if "todo" in store.TOOLS:
        store.write(PLAN)
    else:
        for row in PLAN:
            store.add(row["text"])
    before = list(store.items)
    attempts: list[tuple[Callable[..., str], tuple[object, ...]]] = [
        (store.update_status, ("99", "completed")),
        (store.rename, ("99", "x")),
        (store.delete, ("99",)),
        (store.write, ([{"id": "1", "text": "a", "status": "bogus"}],)),
    ]
    for op, args in attempts:
        with pytest.raises(TodoRejected):
            op(*args)
        assert store.items == before


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_contract_ops_render_consistently(level: str) -> None:
    store = LEVELS[level]()
    store.add("Write a.md")
    store.update_status("1", "completed")
    assert store.show() == "[x] #1: Write a.md\n(1/1 completed)"


@pytest.mark.parametrize("name", sorted(designs()))
def test_a_restored_snapshot_is_the_store_as_it_was(name: str) -> None:
    """The transaction every tool call runs in: a snapshot shares only frozen records (items,
    op-log entries), so a restore brings back exactly the earlier state, designs' own fields
    included, however the store changed in between."""
    store = designs()[name]()
    store.items = [TodoItem.model_validate(row) for row in PLAN]
    if isinstance(store, GranularStore):
        store.add("Write d.md")
    dumped = repr(vars(store))
    saved = store.snapshot()
    store.items[0] = store.items[0].model_copy(update={"text": "changed"})
    for value in vars(store).values():
        if isinstance(value, list):
            value.append(value[0])
        elif isinstance(value, dict):
            value["intruder"] = set()
    store.restore(saved)
    assert repr(vars(store)) == dumped


def test_a_snapshot_does_not_copy_the_op_log_entries() -> None:
    store = GranularStore()
    for n in range(15):
        store.add(f"item {n}")
    saved = store.snapshot()
    assert saved["op_log"] is not store.op_log  # the list is the store's own copy
    assert all(a is b for a, b in zip(saved["op_log"], store.op_log, strict=True))
