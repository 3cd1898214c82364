"""Prompt text, kept as named constants so a change shows in diffs; a change that reaches a
model is a task version bump (`harness/versions.py`), which every result records."""

SYSTEM = """You are a coding agent working in a sandboxed workspace directory.
Use the workspace tools to do the task; every path is relative to the workspace.
Plan the task as a todo list with the todo tools before you start, keep it up to date as you
work (exactly one item in_progress at a time), and mark an item completed only after its work
is really done. When everything is done, reply with a short final answer and no tool call."""

INJECTED_LIST = "Current todo list (kept by the system, always up to date):\n{rendered}"

REMINDER = "<reminder>Update your todos.</reminder>"

COMPACTED = "[Earlier conversation was compacted to save context; {count} messages were removed.]"

GATE_BLOCKED = (
    "Completion blocked: not every subtask is done yet. {state}\n"
    "Continue working on the unchecked subtasks."
)

NO_PLAN_BLOCKED = (
    "Completion blocked: there is no plan to check the work against. Write your plan as a "
    "todo list, then do each item with the tools."
)

PLANNER = (
    "You plan work for a coding agent. Split the user's request into the concrete subtasks "
    "needed to finish it, in order, one short imperative line each. Do not do the work. Reply "
    'with JSON only: {"subtasks": ["first subtask", "second subtask"]}'
)

NOTHING_DONE = (
    "You have not used any tool yet, so nothing has been done. Do the task with the tools "
    "before you answer."
)

FAKE_CALL_BLOCKED = (
    "You wrote a tool call as text instead of calling the tool. Nothing was executed. "
    "Call the tool for real."
)
