"""Claude Code (npm `@anthropic-ai/claude-code`): its two todo designs (`TodoWrite`, a full-list
rewrite; the id-based Task tools), its file tools and shell, the folder it keeps, its session
record (JSONL under `$HOME/.claude/projects/`) and the one parser of it, its `/compact`, and its
hooks (a project's `.claude/settings.json`)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from harness.products.cli_runner import CliRunner, Common
from harness.products.list_backend import ListBackend, Refused, Taken, entry_field
from harness.products.product import (
    OFFLINE,
    CliProduct,
    ContextTags,
    Extension,
    FileTools,
    ListDialect,
    Shell,
    TaskTools,
)
from harness.products.reading import Quiet, as_dict, bursts, items, lines
from harness.products.session_record import (
    CallRecord,
    Compaction,
    Event,
    Item,
    Note,
    TaskIssue,
    TodoState,
    UserMessage,
)

if TYPE_CHECKING:
    from inspect_ai.agent import Agent

CLI = "claude-code"
PACKAGE = "@anthropic-ai/claude-code"
VERSION = "2.1.332"
TODOWRITE = ListDialect(tool="TodoWrite", key="todos", text="content", copies=("activeForm",))
TASKS = TaskTools(create="TaskCreate", update="TaskUpdate", reads=("TaskList", "TaskGet"))
#: where it shows a hook's context (and a Stop hook's refusal) to the model
REMINDER = ContextTags(open="<system-reminder>", close="</system-reminder>")
#: the statuses TodoWrite takes
STATUSES = ("pending", "in_progress", "completed")


class ClaudeTodo(BaseModel):
    """One item as TodoWrite takes it."""

    content: str
    status: Literal["pending", "in_progress", "completed"]
    activeForm: str  # noqa: N815 - the product's own field name


async def _todo_write(todos: list[ClaudeTodo]) -> str:
    raise NotImplementedError


def _take_todos(params: dict[str, Any]) -> Taken:
    """TodoWrite: the whole list of `{content, status, activeForm}` with no ids replaces the
    stored one; no cap, no check against the stored list."""
    raw = params[TODOWRITE.key]
    if not isinstance(raw, list):
        raise Refused("`todos` must be a list of {content, status, activeForm}.")
    rows = []
    for position, entry in enumerate(raw, start=1):
        content, status = entry_field(entry, "content"), entry_field(entry, "status").lower()
        if not content or not entry_field(entry, "activeForm"):
            raise Refused(f"Item {position}: content and activeForm are required.")
        if status not in STATUSES:
            raise Refused(f"Item {position}: status must be pending, in_progress or completed.")
        rows.append((content, status))
    return rows, "Todo list updated. Keep it current and carry on with the task in progress."


TODOWRITE_BACKEND = ListBackend(
    design="cc-todowrite",
    product="Claude Code TodoWrite",
    tool=TODOWRITE.tool,
    description="Write your task list for this session: send the complete list every time, each "
    "item with `content` (what to do), `status` (pending, in_progress or completed) and "
    "`activeForm` (the same step phrased as ongoing work). Keep exactly one item in_progress "
    "while you work, and mark an item completed as soon as it is done.",
    params={"todos": "The complete, updated list."},
    signature=_todo_write,
    take=_take_todos,
)


def task_line(
    key: str, status: str, subject: str, owner: str = "", blocked_by: Sequence[str] = ()
) -> str:
    """One line of TaskList's answer as the pinned binary writes it (its bundle: `#id [status]
    subject`, then ` (owner)` where a task has one, then ` [blocked by #a, #b]`)."""
    own = f" ({owner})" if owner else ""
    blocked = f" [blocked by {', '.join('#' + b for b in blocked_by)}]" if blocked_by else ""
    return f"#{key} [{status}] {subject}{own}{blocked}"


#: TaskList's answer with no task, and TaskGet's for an id it does not hold (the pinned binary's)
NO_TASKS, NO_SUCH_TASK = "No tasks found", "Task not found"


def task_created(key: str, subject: str) -> str:
    """TaskCreate's answer as the pinned binary writes it."""
    return f"Task #{key} created successfully: {subject}"


#: a `task_created` answer: the id and the subject (its first line: the binary may add lines
#: after it, as where the app keeps statuses)
TASK_CREATED = re.compile(r"^Task #(\S+) created successfully: (.*)")


def task_updated(key: str, fields: Sequence[str]) -> str:
    """TaskUpdate's answer: the fields the call changed, in the binary's order (subject,
    description, activeForm, owner, metadata, status, blocks, blockedBy; `deleted` alone for a
    delete), none where it changed nothing (the binary's trailing blank kept)."""
    return f"Updated task #{key} {', '.join(fields)}"


def task_missing(key: str) -> str:
    """TaskUpdate's answer for an id it does not hold."""
    return f"Task #{key} not found"


def task_shown(
    key: str, subject: str, status: str, description: str, blocked_by: Sequence[str] = ()
) -> str:
    """TaskGet's answer: its subject, status and description lines, then what blocks it."""
    lines = [f"Task #{key}: {subject}", f"Status: {status}", f"Description: {description}"]
    if blocked_by:
        lines.append(f"Blocked by: {', '.join('#' + b for b in blocked_by)}")
    return "\n".join(lines)


#: a line `task_line` writes: the id, the status and the subject (owner and blockers left out)
TASK_LINE = re.compile(r"^#(\S+) \[(\w+)\] (.*?)(?: \([^)]*\))?(?: \[blocked by [^\]]*\])?$")
FILE_TOOLS = FileTools(write="Write", read="Read", edits=("Edit", "MultiEdit"), path="file_path")
SHELL = Shell(tool="Bash", command="command", described=True)
#: the project folder it keeps for itself (its settings, its hooks)
OWN_FOLDER = ".claude/"
#: where a project's hooks are declared
SETTINGS = ".claude/settings.json"
#: its session records under a HOME
RECORDS = ".claude/projects/*/*.jsonl"

#: what every Claude Code row sets: no telemetry, no update check, no other traffic (the
#: machines have no network but the bridge), and the todo tools on (headless mode hides them
#: for a model id it does not know)
_QUIET = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_ENABLE_TODO_TOOLS": "1",
}
_WHY = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": OFFLINE,
    "DISABLE_TELEMETRY": OFFLINE,
    "DISABLE_AUTOUPDATER": OFFLINE,
    "DISABLE_ERROR_REPORTING": OFFLINE,
    "CLAUDE_CODE_ENABLE_TODO_TOOLS": "its todo tools offered whatever model id the CLI is told "
    "(the pinned version offers them by default only to the model ids it knows)",
    "CLAUDE_CODE_ENABLE_TASKS": "which of its two todo designs the row measures (TodoWrite, "
    "or the Task tools)",
}
_COMMON: dict[str, Any] = {
    "cli": CLI,
    "package": PACKAGE,
    "version": VERSION,
    "binary": "node_modules/@anthropic-ai/claude-code-linux-x64/claude",
    "file_tools": FILE_TOOLS,
    "shell": SHELL,
    "why": _WHY,
    "own_folders": (OWN_FOLDER,),
    "record": f"$HOME/{RECORDS} (JSONL; a `compact_boundary` line at each compaction)",
    "extension": Extension(
        kind="hooks",
        config=SETTINGS,
        note="PreToolUse (can deny a call), PostToolUse (can add context), Stop (can refuse "
        "the stop), PreCompact, SessionStart",
        context=REMINDER,
    ),
    # its `/compact`, as the prompt of a resumed print-mode session (scripts/probe_compact.py)
    "compact_command": "/compact",
    "summary_request": ("<analysis>", "<summary>"),
}

#: the designs built from this module (harness/todo/full_list.py)
LIST_BACKENDS = (TODOWRITE_BACKEND,)

ROWS = (
    CliProduct(
        name="cli/claude-code-todowrite",
        title="Claude Code, TodoWrite (full-list rewrite)",
        design=TODOWRITE_BACKEND.design,
        env={**_QUIET, "CLAUDE_CODE_ENABLE_TASKS": "false"},
        todo_tools=(TODOWRITE.tool,),
        dialect=TODOWRITE,
        # every fix: its hooks offer each one's event (docs/hooks.md)
        hook_switches=("textlock", "whitelist", "inject", "gate", "heuristic"),
        **_COMMON,
    ),
    CliProduct(
        name="cli/claude-code-tasks",
        title="Claude Code, TaskCreate / TaskUpdate (id-based)",
        design="cc-tasks",
        env={**_QUIET, "CLAUDE_CODE_ENABLE_TASKS": "true"},
        todo_tools=TASKS.names,
        tasks=TASKS,
        # the oracle gate only: the others read and judge a full list, and the Task tools are
        # id-based, one item a call (the seed's L3 already)
        hook_switches=("gate",),
        **_COMMON,
    ),
)


# -- where its record is, and the calls in it ----------------------------------------------


def sessions(home: Path) -> Iterator[Path]:
    """The main session files Claude Code wrote under a HOME (its subagents' files left out)."""
    for path in sorted(home.glob(RECORDS)):
        if not path.name.startswith("agent-"):
            yield path


_NOT_FOUND = re.compile(r"not found", re.IGNORECASE)


def result_text(block: dict[str, Any]) -> str:
    """The text of a `tool_result` block."""
    content = block.get("content")
    if isinstance(content, list):
        return "\n".join(str(as_dict(c).get("text", "")) for c in content)
    return "" if content is None else str(content)


def calls(path: Path) -> list[CallRecord]:
    """Every tool call of one Claude Code session JSONL, in the order made, with its answer."""
    made: dict[str, CallRecord] = {}
    for record in lines(path):
        content = as_dict(record.get("message")).get("content")
        if not isinstance(content, list):
            continue
        for block in (b for b in content if isinstance(b, dict)):
            if record.get("type") == "assistant" and block.get("type") == "tool_use":
                call_id = str(block.get("id", ""))
                made.setdefault(
                    call_id,
                    CallRecord(
                        id=call_id,
                        tool=str(block.get("name", "")),
                        args=as_dict(block.get("input")),
                    ),
                )
            elif record.get("type") == "user" and block.get("type") == "tool_result":
                call = made.get(str(block.get("tool_use_id", "")))
                if call is not None:
                    call.result = result_text(block)
                    call.error = bool(block.get("is_error"))
                    call.refused_unmarked = call.tool in TASKS.names and bool(
                        _NOT_FOUND.search(call.result)
                    )
    return list(made.values())


def home_calls(home: Path) -> list[CallRecord]:
    """Every call of every main session under a HOME."""
    return [call for path in sessions(home) for call in calls(path)]


def compactions(home: Path) -> int:
    """How many times the sessions under a HOME say their context was compacted (a
    `compact_boundary` system line each)."""
    return sum(
        1
        for path in sessions(home)
        for record in lines(path)
        if record.get("type") == "system" and record.get("subtype") == "compact_boundary"
    )


# -- the audit's reading: todo states, user messages, compactions --------------------------


def recognises(record: dict[str, Any]) -> bool:
    """A line of a Claude Code session JSONL."""
    return record.get("type") in ("user", "assistant", "summary", "system") and (
        "message" in record or "sessionId" in record or "summary" in record
    )


_NOT_TYPED = ("<command-", "<local-command", "Caveat:", REMINDER.open)
_CREATED = re.compile(r"Task #(\w+) created")
_GOT = re.compile(r"^Task #(\w+): (.*)$")
_GOT_STATUS = re.compile(r"^Status: (\w+)", re.MULTILINE)


def _user_text(content: Any) -> str | None:
    """Text the person typed, from a user line's content (None for tool results and meta)."""
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return None
        text = "\n".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    else:
        return None
    text = text.strip()
    return text if text and not text.startswith(_NOT_TYPED) else None


def events(path: Path) -> Iterator[Event]:
    """Claude Code events; consecutive `TaskCreate` results are one list update (a plan made
    one task at a time is still one plan)."""
    return bursts(_events(path), (TASKS.create,))


class _TaskReplay:
    """Claude Code's id-based task list, replayed from the calls and the product's answers.

    Ids are the product's: a created task gets the id its result names (`Task #N created`,
    `toolUseResult.task.id`), whatever order results come in. `TaskList` and `TaskGet` answers
    resynchronise the list (a list made before this log, or shared by an agent team). An update
    the product refused ("Task not found") and an update to a task this log never saw are
    reported as their own issues, never skipped silently.
    """

    def __init__(self) -> None:
        self.tasks: dict[str, Item] = {}
        self.calls: dict[str, tuple[str, dict[str, Any]]] = {}  # tool_use id -> call

    def unanswered(self) -> Iterator[TaskIssue]:
        """The calls whose answers never came (a session cut off, a reduced log)."""
        for name, args in self.calls.values():
            yield TaskIssue(issue="no_result", key=str(args.get("taskId", "")) if name else "")
        self.calls.clear()

    def state(self, tool: str, calls: int = 1) -> TodoState:
        return TodoState(tool=tool, items=list(self.tasks.values()), keyed=True, calls=calls)

    def call(self, block: dict[str, Any]) -> None:
        self.calls[str(block.get("id"))] = (str(block.get("name")), as_dict(block.get("input")))

    def answer(self, block: dict[str, Any], extra: dict[str, Any]) -> Iterator[Event]:
        """The events one tool result settles (`extra`: the line's `toolUseResult`)."""
        use_id = block.get("tool_use_id")
        call = self.calls.pop(use_id, None) if isinstance(use_id, str) else None
        if call is None:
            return
        name, args = call
        text = result_text(block)
        refused = block.get("is_error") is True or extra.get("success") is False
        key = str(args.get("taskId", "")).lstrip("#")
        if refused and not (name != TASKS.create and _NOT_FOUND.search(text + str(extra))):
            yield TaskIssue(issue="call_failed", key=key)
            return
        get = TASKS.reads[1]
        if name == TASKS.create:
            task = as_dict(extra.get("task"))
            named = task.get("id") or (_CREATED.search(text) or [None, None])[1]
            if named is None:
                yield TaskIssue(issue="call_failed", key="")
                return
            key = str(named)
            subject = str(args.get("subject") or task.get("subject") or "")
            self.tasks[key] = Item(key=key, text=subject, status="pending")
            yield self.state(name)
        elif name == TASKS.update:
            yield from self._update(args, text, extra, refused)
        elif name == TASKS.reads[0]:
            self._sync_list(extra, text)
            yield self.state(name)
        elif name == get:
            if _NOT_FOUND.search(text) and not extra.get("task"):
                yield TaskIssue(issue="task_not_found", key=str(args.get("taskId", "")))
                return
            self._sync_one(extra, text)
            yield self.state(name)

    def _update(
        self, args: dict[str, Any], text: str, extra: dict[str, Any], refused: bool
    ) -> Iterator[Event]:
        key = str(args.get("taskId", "")).lstrip("#")
        if refused or (_NOT_FOUND.search(text) and not extra.get("success")):
            yield TaskIssue(issue="task_not_found", key=key)
            return
        change = as_dict(extra.get("statusChange"))
        if key not in self.tasks:
            # a task made before this log or by a teammate: known from here on, as it was
            yield TaskIssue(issue="unknown_task", key=key, calls=0)
            before = str(change.get("from") or args.get("status") or "pending")
            self.tasks[key] = Item(key=key, text=f"#{key}", status=before)
            yield self.state(TASKS.reads[1], calls=0)  # known as it was, before this call
        status = args.get("status")
        if status == "deleted":
            del self.tasks[key]
        else:
            update = {"text": args.get("subject"), "status": status}
            self.tasks[key] = self.tasks[key].model_copy(
                update={k: str(v) for k, v in update.items() if isinstance(v, str) and v}
            )
        yield self.state(TASKS.update)

    def _sync_list(self, extra: dict[str, Any], text: str) -> None:
        listed = extra.get("tasks")
        entries: list[tuple[str, str, str]] = []
        if isinstance(listed, list):
            for task in map(as_dict, listed):
                if task.get("id") is not None:
                    entries.append(
                        (str(task["id"]), str(task.get("subject", "")), str(task.get("status", "")))
                    )
        else:
            for line in text.splitlines():
                found = TASK_LINE.match(line.strip())
                if found:
                    key, status, subject = found.groups()
                    entries.append((key, subject, status))
        # a list may leave out finished tasks: it adds and corrects, it does not remove
        for key, subject, status in entries:
            self.tasks[key] = Item(key=key, text=subject, status=status or "pending")

    def _sync_one(self, extra: dict[str, Any], text: str) -> None:
        task = as_dict(extra.get("task"))
        if task.get("id") is not None:
            key, subject, status = str(task["id"]), str(task.get("subject", "")), task.get("status")
        else:
            got = _GOT.match(text.splitlines()[0] if text else "")
            if got is None:
                return
            key, subject = got.groups()
            found = _GOT_STATUS.search(text)
            status = found.group(1) if found else None
        old = self.tasks.get(key)
        self.tasks[key] = Item(
            key=key, text=subject, status=str(status or (old.status if old else "pending"))
        )


def _events(path: Path) -> Iterator[Event | Quiet]:
    replay = _TaskReplay()
    notes: list[str] = []
    for record in lines(path, notes):
        kind = record.get("type")
        message = as_dict(record.get("message"))
        if kind == "system" and record.get("subtype") == "compact_boundary":
            yield Compaction()
            continue
        if kind == "user":
            if record.get("isCompactSummary"):
                yield Compaction()
                continue
            if record.get("isMeta"):
                continue
            content = message.get("content")
            text = _user_text(content)
            if text is not None:
                yield UserMessage(text=text)
            elif isinstance(content, list):
                yield Quiet()
                results = [
                    b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"
                ]
                extra = as_dict(record.get("toolUseResult")) if len(results) == 1 else {}
                for block in results:
                    yield from replay.answer(block, extra)
            continue
        if kind != "assistant":
            continue
        for block in message.get("content") or []:
            if not isinstance(block, dict) or block.get("type") != "tool_use":
                continue
            name, args = block.get("name"), as_dict(block.get("input"))
            if name == TODOWRITE.tool:
                yield TodoState(
                    tool=TODOWRITE.tool, items=items(args.get(TODOWRITE.key), TODOWRITE.text)
                )
            elif name in TASKS.names:
                replay.call(block)
    yield from replay.unanswered()
    yield from (Note(text=note) for note in notes)


def final_text(record: dict[str, Any]) -> str | None:
    """The agent's text in one session line, if it is an assistant line with text."""
    if record.get("type") != "assistant":
        return None
    blocks = as_dict(record.get("message")).get("content")
    texts = [
        str(as_dict(b).get("text", "")) for b in blocks or [] if as_dict(b).get("type") == "text"
    ]
    return "\n".join(t for t in texts if t.strip()) or None


# -- how the board runs it (inspect-swe's agent; harness/products/cli_runner.py) -----------------


def _agent(product: CliProduct, common: Common, home: Path) -> Agent:
    from inspect_swe import claude_code

    return claude_code(**common)


#: `claude_code()`; its session JSONL under `$HOME/.claude/projects/`, which also records each
#: compaction (a `compact_boundary` line)
RUNNER = CliRunner(
    agent=_agent, inspect_agent="claude_code", record=home_calls, compactions=compactions
)
