"""cc-tasks: Claude Code's task tools. Tasks are created one at a time and get an id from the
backend; TaskUpdate changes status (`deleted` removes), subject or dependencies by id; TaskList
and TaskGet read. Dependencies are recorded, not enforced, as in the product."""

from __future__ import annotations

from typing import Any, ClassVar

from harness.products.shipped.claude_code import TASKS, task_line
from harness.todo.base import STATUSES, TodoItem, TodoRejected, TodoStore
from harness.todo.specs import ToolSpec


async def _task_create(subject: str, description: str, activeForm: str | None = None) -> str:  # noqa: N803
    raise NotImplementedError


async def _task_update(
    taskId: str,  # noqa: N803 - the product's own argument names
    status: str | None = None,
    subject: str | None = None,
    description: str | None = None,
    addBlockedBy: list[str] | None = None,  # noqa: N803
) -> str:
    raise NotImplementedError


async def _task_list() -> str:
    raise NotImplementedError


async def _task_get(taskId: str) -> str:  # noqa: N803
    raise NotImplementedError


class ClaudeTasksStore(TodoStore):
    """Id-based tasks with dependencies; the backend holds the list."""

    name: ClassVar[str] = "cc-tasks"
    PRODUCT: ClassVar[str] = "Claude Code TaskCreate / TaskUpdate"
    CAPPED: ClassVar[bool] = False  # the product has no cap

    def __init__(self, max_items: int | None = None) -> None:
        super().__init__(max_items)
        self.blocked_by: dict[str, set[str]] = {}
        self.descriptions: dict[str, str] = {}

    @classmethod
    def tool_specs(cls) -> list[ToolSpec]:
        return [
            ToolSpec(
                TASKS.create,
                "Create one task (pending) with a short imperative subject and a description "
                "of what done means; the system returns its id.",
                {
                    "subject": "Short title, e.g. 'Write main.py'.",
                    "description": "What the task involves and when it is done.",
                    "activeForm": "The subject phrased as ongoing work (optional).",
                },
                _task_create,
                lambda store, a: store.create(a["subject"], a.get("description", "")),
                "add",
            ),
            ToolSpec(
                TASKS.update,
                "Change one task by id: status (pending, in_progress, completed, or deleted to "
                "remove it), subject, description, or tasks it waits for (addBlockedBy).",
                {
                    "taskId": "The task's id.",
                    "status": "pending, in_progress, completed or deleted.",
                    "subject": "A new title.",
                    "description": "A new description.",
                    "addBlockedBy": "Ids of tasks this one waits for.",
                },
                _task_update,
                lambda store, a: store.update_task(a),
                "update",
            ),
            ToolSpec(
                TASKS.reads[0],
                "List every task with its id, status, subject and what blocks it.",
                {},
                _task_list,
                lambda store, a: store.list_tasks(),
                "read",
            ),
            ToolSpec(
                TASKS.reads[1],
                "Show one task in full by id.",
                {"taskId": "The task's id."},
                _task_get,
                lambda store, a: store.get(a["taskId"]),
                "read",
            ),
        ]

    def create(self, subject: str, description: str) -> str:
        subject = str(subject).strip()
        if not subject:
            raise TodoRejected("subject required.")
        item = TodoItem(id=str(self._next_id), text=subject)
        self._replace([*self.items, item])
        self.descriptions[item.id] = str(description)
        return f"Task #{item.id} created: {subject}"

    def update_task(self, args: dict[str, Any]) -> str:
        index = self._index(str(args.get("taskId", "")))
        item = self.items[index]
        status = args.get("status")
        status = None if status is None else str(status).strip().lower()
        if status is not None and status not in (*STATUSES, "deleted"):
            raise TodoRejected(
                f"invalid status '{status}' (pending, in_progress, completed, deleted)."
            )
        blockers = [str(b).strip().lstrip("#") for b in args.get("addBlockedBy") or []]
        unknown = [b for b in blockers if all(i.id != b for i in self.items)]
        if unknown:
            raise TodoRejected(f"No task with id {', '.join('#' + b for b in unknown)}.")
        if status == "deleted":
            self._replace([i for i in self.items if i.id != item.id])
            return f"Task #{item.id} deleted."
        update: dict[str, Any] = {}
        if status is not None:
            update["status"] = status
        if args.get("subject") is not None and str(args["subject"]).strip():
            update["text"] = str(args["subject"]).strip()
        if args.get("description") is not None:
            self.descriptions[item.id] = str(args["description"])
        self.blocked_by.setdefault(item.id, set()).update(blockers)
        items = list(self.items)
        items[index] = item.model_copy(update=update)
        self._replace(items)
        changed = ", ".join([*update, *(["blockedBy"] if blockers else [])]) or "nothing"
        return f"Updated task #{item.id}: {changed}."

    def list_tasks(self) -> str:
        if not self.items:
            return "No tasks."
        lines = []
        for item in self.items:
            waits = sorted(self.blocked_by.get(item.id, set()))
            lines.append(task_line(item.id, item.status, item.text, blocked_by=waits))
        return "\n".join(lines)

    def get(self, task_id: str) -> str:
        item = self.items[self._index(str(task_id))]
        return (
            f"#{item.id} [{item.status}] {item.text}\n{self.descriptions.get(item.id, '')}".strip()
        )
