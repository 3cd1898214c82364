"""The simulated agent speaks the todo tools of the designs real products ship.

Its policy thinks in the seed's vocabulary (`todo` rewrites with ids; `add_todo`,
`update_todo_status`, `rename_todo`, `delete_todo`, `list_todos`). Offered a product's tools, the
provider translates each decided call into that product's call, and shows the policy the
product's answers in the seed's terms, the way a model maps one tool set onto another.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageTool, ChatMessageUser
from inspect_ai.tool import ToolCall

from harness.products.catalog import DIALECTS, SUMMARY_REQUESTS, TASK_TOOLS
from harness.products.product import ListDialect
from harness.products.shipped.claude_code import TASK_CREATED, TASK_LINE
from harness.todo.base import STATUSES, TodoItem, render
from harness.todo.inspect_todo_write import DIALECT as INSPECT_DIALECT

Call = tuple[str, dict[str, Any]]

#: every full-list tool the policy's `todo` rewrite can be written as: the products' and
#: inspect-ai's own, in the order they are tried
LIST_TOOLS: dict[str, ListDialect] = {d.tool: d for d in (*DIALECTS, INSPECT_DIALECT)}
#: product tool -> the seed's tools it can stand for
STANDS_FOR: dict[str, tuple[str, ...]] = {
    **{tool: ("todo",) for tool in LIST_TOOLS},
    **{t.create: ("add_todo",) for t in TASK_TOOLS},
    **{t.update: ("update_todo_status", "rename_todo", "delete_todo") for t in TASK_TOOLS},
    **{t.reads[0]: ("list_todos",) for t in TASK_TOOLS},
}
#: the products' full-list tools write items without ids (`to_product`): the product knows an
#: item by its text, so ids the agent changes are no fault it can make there
ID_LESS = frozenset(LIST_TOOLS)


#: what the policy plans with: one full-list rewrite, or granular adds and status changes
_DRIVES = ({"todo"}, {"add_todo", "update_todo_status"})


def drivable(offered: set[str]) -> bool:
    """Whether the simulated agent can keep a list with these todo tools (a design whose tools
    it does not speak would give a row of episodes that measure nothing)."""
    names = classic_names(offered)
    return any(need <= names for need in _DRIVES)


def classic_names(offered: set[str]) -> set[str]:
    """The tool names the policy may use, given the tools on offer."""
    out = set(offered)
    for name in offered:
        out.update(STANDS_FOR.get(name, ()))
    return out


def to_product(call: Call, offered: set[str]) -> Call:
    """One decided call, in the offered product's terms (unchanged if the seed's tool exists)."""
    name, args = call
    if name in offered:
        return call
    if name == "todo":
        items = [(i["text"], i["status"]) for i in args.get("items") or []]
        dialect = next((d for tool, d in LIST_TOOLS.items() if tool in offered), None)
        if dialect is not None:
            return dialect.tool, dialect.entries(items)
    tasks = next((t for t in TASK_TOOLS if t.create in offered), None)
    if tasks is not None:
        if name == "add_todo":
            return tasks.create, {"subject": args["text"], "description": args["text"]}
        if name == "update_todo_status":
            return tasks.update, {"taskId": args["id"], "status": args["status"]}
        if name == "rename_todo":
            return tasks.update, {"taskId": args["id"], "subject": args["new_text"]}
        if name == "delete_todo":
            return tasks.update, {"taskId": args["id"], "status": "deleted"}
        if name == "list_todos":
            return tasks.reads[0], {}
    return call


def asks_for_summary(messages: list[ChatMessage]) -> bool:
    """The request is a product's compaction: its last message asks for the summary in the
    words of one of the shipping CLIs (`CliProduct.summary_request`)."""
    last = messages[-1] if messages else None
    if not isinstance(last, ChatMessageUser):
        return False
    text = last.text
    return any(all(part in text for part in words) for words in SUMMARY_REQUESTS)


def _answer(classic: str, text: str) -> str:
    """A product's answer, as the seed's tool would have put it."""
    created = TASK_CREATED.match(text)
    if classic == "add_todo" and created:
        return f"Added #{created.group(1)}: {created.group(2)}"
    if classic == "list_todos":
        items = [
            TodoItem.model_validate({"id": m.group(1), "status": m.group(2), "text": m.group(3)})
            for m in (TASK_LINE.match(line) for line in text.splitlines())
            if m and m.group(2) in STATUSES
        ]
        return render(items)
    return text


def seed_view(messages: list[ChatMessage], sent: dict[str, Call]) -> list[ChatMessage]:
    """The conversation with the agent's own product calls and their answers in the seed's terms."""
    out: list[ChatMessage] = []
    for message in messages:
        if (
            isinstance(message, ChatMessageAssistant)
            and message.tool_calls
            and any(c.id in sent for c in message.tool_calls)
        ):
            calls = [
                ToolCall(id=c.id, function=sent[c.id][0], arguments=sent[c.id][1], type="function")
                if c.id in sent
                else c
                for c in message.tool_calls
            ]
            message = message.model_copy(update={"tool_calls": calls})
        elif isinstance(message, ChatMessageTool) and message.tool_call_id in sent:
            classic = sent[message.tool_call_id][0]
            message = message.model_copy(
                update={"function": classic, "content": _answer(classic, message.text)}
            )
        out.append(message)
    return out
