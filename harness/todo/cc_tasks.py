"""cc-tasks: Claude Code's task tools. Tasks are created one at a time and get an id from the
backend; TaskUpdate changes status (`deleted` removes), subject or dependencies by id; TaskList
and TaskGet read. Dependencies are recorded, not enforced, as in the product. Every answer is
the pinned binary's own words (`harness/products/shipped/claude_code.py`): TaskUpdate names the
fields it changed, TaskList leaves out a blocker that is completed."""

from __future__ import annotations

from typing import Any, ClassVar

from harness.products.shipped.claude_code import (
    NO_SUCH_TASK,
    NO_TASKS,
    TASKS,
    task_created,
    task_line,
    task_missing,
    task_shown,
    task_updated,
)
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
        return task_created(item.id, subject)

    def _held(self, task_id: str, missing: str) -> int:
        """The task's position; TodoRejected with the product's words where it holds none."""
        key = str(task_id).strip().lstrip("#")
        index = next((i for i, item in enumerate(self.items) if item.id == key), None)
        if index is None:
            raise TodoRejected(missing)
        return index

    def update_task(self, args: dict[str, Any]) -> str:
        key = str(args.get("taskId", "")).strip().lstrip("#")
        index = self._held(key, task_missing(key))
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
            return task_updated(item.id, ["deleted"])
        # the fields the call changes, in the product's order; a value it already has is none
        update: dict[str, Any] = {}
        changed: list[str] = []
        subject = args.get("subject")
        if subject is not None and str(subject).strip() and str(subject).strip() != item.text:
            update["text"] = str(subject).strip()
            changed.append("subject")
        description = args.get("description")
        if description is not None and str(description) != self.descriptions.get(item.id, ""):
            self.descriptions[item.id] = str(description)
            changed.append("description")
        if status is not None and status != item.status:
            update["status"] = status
            changed.append("status")
        waits = self.blocked_by.setdefault(item.id, set())
        if set(blockers) - waits:
            waits.update(blockers)
            changed.append("blockedBy")
        items = list(self.items)
        items[index] = item.model_copy(update=update)
        self._replace(items)
        return task_updated(item.id, changed)

    def list_tasks(self) -> str:
        if not self.items:
            return NO_TASKS
        done = {item.id for item in self.items if item.status == "completed"}
        lines = []
        for item in self.items:
            waits = sorted(self.blocked_by.get(item.id, set()) - done)
            lines.append(task_line(item.id, item.status, item.text, blocked_by=waits))
        return "\n".join(lines)

    def get(self, task_id: str) -> str:
        item = self.items[self._held(task_id, NO_SUCH_TASK)]
        waits = sorted(self.blocked_by.get(item.id, set()))
        return task_shown(
            item.id, item.text, item.status, self.descriptions.get(item.id, ""), waits
        )
