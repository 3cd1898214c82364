"""Gemini CLI (npm `@google/gemini-cli`): its full-list tool `write_todos`, its file tools and
shell, the folder it keeps, its chat record (JSONL under `$HOME/.gemini/tmp/`) and the one parser
of it, and its hooks (a project's `.gemini/settings.json`)."""

from __future__ import annotations

import hashlib
import json
import os
import pwd
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from harness.products.cli_runner import CliRunner, Common, config_tree
from harness.products.list_backend import ListBackend, Refused, Taken
from harness.products.product import (
    OFFLINE,
    CliProduct,
    ContextTags,
    Extension,
    FileTools,
    ListDialect,
    Shell,
)
from harness.products.reading import as_dict, items, lines
from harness.products.session_record import CallRecord, Event, Note, TodoState, UserMessage

if TYPE_CHECKING:
    from inspect_ai.agent import Agent

CLI = "gemini-cli"
PACKAGE = "@google/gemini-cli"
VERSION = "0.61.0"
WRITE_TODOS = ListDialect(tool="write_todos", key="todos", text="description")
#: its statuses, as its schema and its handler name them (case-sensitive)
STATUSES = ("pending", "in_progress", "completed", "cancelled", "blocked")
FILE_TOOLS = FileTools(write="write_file", read="read_file", edits=("replace",), path="file_path")
SHELL = Shell(tool="run_shell_command", command="command")
#: the project folder it keeps for itself (its settings, its hooks)
OWN_FOLDER = ".gemini/"
#: its chat records under a HOME: one folder per project, one file per session
RECORDS = ".gemini/tmp/*/chats/session-*.jsonl"
#: the folder of the row's switches, under the user's own cache: Gemini CLI's system settings
#: file, which overrides the user settings file inspect-swe writes (`~/.gemini/settings.json`),
#: is skipped (with a warning only) where the file or any folder above it is writable by others,
#: as /tmp, where the episodes' HOMEs are, is
SETTINGS_FOLDER = ".cache/todo-bench/gemini-cli"
#: Gemini CLI's web tools, which the row excludes
WEB_TOOLS = ("google_web_search", "web_fetch")

#: its hook events where the fixes act, by Claude Code's names for them (0.61.0, probed:
#: `scripts/probe_gemini_hooks.py`): before and after a tool call, with each prompt (and with
#: the text an AfterAgent refusal sends back), and when the agent's turn ends. It has no
#: SessionStart after its compression (sources startup, resume, clear; its PreCompress is
#: advisory, before every model request, and can add nothing)
HOOK_EVENTS = {
    "PreToolUse": "BeforeTool",
    "PostToolUse": "AfterTool",
    "UserPromptSubmit": "BeforeAgent",
    "Stop": "AfterAgent",
}
#: keys of its settings' `hooks` section that are switches, not events (older releases' place
#: for what `hooksConfig` holds now; 0.61.0 still skips them there)
HOOKS_CONFIG_FIELDS = ("enabled", "disabled", "notifications")
#: a hook's `timeout` in its settings is in milliseconds (default 60000)
HOOK_TIMEOUT_PER_SECOND = 1000
#: what a user must do before Gemini CLI runs a project's hooks (0.61.0, probed: in a folder
#: it does not trust, `gemini -p` refuses to run at all, so no hook fires)
HOOKS_TRUST = (
    "Gemini CLI runs a project's hooks only in a trusted folder: start `gemini` in the project "
    "and trust it (headless: `gemini --skip-trust -p ...` or GEMINI_CLI_TRUST_WORKSPACE=true); "
    "it warns once about hooks it has not seen before, then runs them"
)

#: what the Gemini CLI row sets, each by Gemini CLI's own settings key (its system settings
#: file, values in JSON; the machines have no network but the bridge): no update check or
#: update notice, no usage statistics (Clearcut; inspect-swe sets it too, in the user
#: settings), no telemetry, no web tools. Its `write_todos` is offered without a switch to a
#: Gemini 2.x model that is not a preview (inspect-swe's `gemini-2.5-pro`)
CONFIG: dict[str, str] = {
    "general.enableAutoUpdate": "false",
    "general.enableAutoUpdateNotification": "false",
    "privacy.usageStatisticsEnabled": "false",
    "telemetry.enabled": "false",
    "tools.exclude": json.dumps(list(WEB_TOOLS)),
}
#: the environment variable naming its system settings file
SETTINGS_ENV = "GEMINI_CLI_SYSTEM_SETTINGS_PATH"

WHY = {
    "general.enableAutoUpdate": OFFLINE,
    "general.enableAutoUpdateNotification": OFFLINE,
    "privacy.usageStatisticsEnabled": OFFLINE + "; no usage statistics (inspect-swe sets it "
    "too, in the user settings)",
    "telemetry.enabled": OFFLINE,
    "tools.exclude": OFFLINE + f"; its web tools ({', '.join(WEB_TOOLS)}) left out",
}


#: the product's statuses the harness's list does not hold: off the work, and waiting
CANCELLED, BLOCKED = "cancelled", "blocked"
_FIELDS = (WRITE_TODOS.text, "status")


class GeminiTodo(BaseModel):
    """One item as write_todos takes it."""

    description: str
    status: str


async def _write_todos(todos: list[GeminiTodo]) -> str:
    raise NotImplementedError


def _entry(entry: Any) -> Any:
    """An entry as the product receives it: a JSON object (inspect may pass a model)."""
    return entry.model_dump() if isinstance(entry, BaseModel) else entry


def refusal(params: dict[str, Any]) -> str | None:
    """The product's reason for refusing a call's arguments, None if it takes them: its
    schema's first error (ajv's words, `params` the arguments), then its handler's checks
    (`validateToolParamValues`), as Gemini CLI 0.61.0 makes them: `todos` an array of objects
    with exactly `description` and `status`; a status one of STATUSES, as written (no case
    folding); a description with more than blanks; at most one item in_progress. No cap, no
    check against the stored list."""
    if WRITE_TODOS.key not in params:
        return f"params must have required property '{WRITE_TODOS.key}'"
    if any(name != WRITE_TODOS.key for name in params):
        return "params must NOT have additional properties"
    raw = params[WRITE_TODOS.key]
    if not isinstance(raw, list):
        return "params/todos must be array"
    entries = [_entry(e) for e in raw]
    for position, entry in enumerate(entries):
        where = f"params/todos/{position}"
        if not isinstance(entry, dict):
            return f"{where} must be object"
        for name in _FIELDS:
            if name not in entry:
                return f"{where} must have required property '{name}'"
        if any(name not in _FIELDS for name in entry):
            return f"{where} must NOT have additional properties"
        for name in _FIELDS:
            if not isinstance(entry[name], str):
                return f"{where}/{name} must be string"
        if entry["status"] not in STATUSES:
            return f"{where}/status must be equal to one of the allowed values"
    for entry in entries:
        if not entry[WRITE_TODOS.text].strip():
            return "Each todo must have a non-empty description string"
    if sum(entry["status"] == "in_progress" for entry in entries) > 1:
        return 'Invalid parameters: Only one task can be "in_progress" at a time.'
    return None


def answer(entries: list[dict[str, str]]) -> str:
    """The product's answer to a list it took."""
    if not entries:
        return "Successfully cleared the todo list."
    listed = "\n".join(
        f"{n}. [{e['status']}] {e[WRITE_TODOS.text]}" for n, e in enumerate(entries, start=1)
    )
    return f"Successfully updated the todo list. The current list is now:\n{listed}"


def _take_todos(params: dict[str, Any]) -> Taken:
    """write_todos: the whole list of `{description, status}` with no ids replaces the stored
    one; the product answers with the list it stored, numbered. The harness's list holds
    pending, in_progress and completed items: a `cancelled` item is one the model took off the
    work (it leaves the list the harness holds; the product keeps showing it, and the detectors
    read a removal, sanctioned where the user cancelled that subtask, a dropped item where not);
    a `blocked` item is still work to do, held as pending."""
    reason = refusal(params)
    if reason is not None:
        raise Refused(reason)
    entries = [_entry(e) for e in params[WRITE_TODOS.key]]
    work = [
        (e[WRITE_TODOS.text].strip(), "pending" if e["status"] == BLOCKED else e["status"])
        for e in entries
        if e["status"] != CANCELLED
    ]
    return work, answer(entries)


WRITE_TODOS_BACKEND = ListBackend(
    design="gemini-writetodos",
    product="Gemini CLI write_todos",
    tool=WRITE_TODOS.tool,
    description="Write the subtasks of the user's request as your todo list: send the complete "
    "list every time, each item with `description` and `status` (pending, in_progress, "
    "completed, cancelled or blocked). At most one item may be in_progress; mark an item "
    "completed as soon as it is done.",
    params={"todos": "The complete list; it replaces the existing one."},
    signature=_write_todos,
    take=_take_todos,
)


#: the designs built from this module (harness/todo/full_list.py)
LIST_BACKENDS = (WRITE_TODOS_BACKEND,)

ROWS = (
    CliProduct(
        name="cli/gemini-cli",
        title="Gemini CLI, write_todos (full-list rewrite)",
        cli=CLI,
        design=WRITE_TODOS_BACKEND.design,
        package=PACKAGE,
        version=VERSION,
        binary="node_modules/@google/gemini-cli/bundle/gemini.js",
        env={},
        config=CONFIG,
        why=WHY,
        config_label=f"{SETTINGS_ENV} {{key}}",
        todo_tools=(WRITE_TODOS.tool,),
        dialect=WRITE_TODOS,
        file_tools=FILE_TOOLS,
        shell=SHELL,
        own_folders=(OWN_FOLDER,),
        record=f"$HOME/{RECORDS} (JSONL: a line per message, `$set` lines for its metadata)",
        extension=Extension(
            kind="hooks",
            config=".gemini/settings.json",
            note="its own wire: BeforeTool (`decision: deny`, the reason the call's error), "
            "AfterTool (context after the result), BeforeAgent, AfterAgent (deny: the reason "
            "is the next prompt), SessionStart (none after compression), PreCompress "
            "(advisory); run in a trusted folder (scripts/probe_gemini_hooks.py)",
            notice=HOOKS_TRUST,
            events=HOOK_EVENTS,
            timeout_per_second=HOOK_TIMEOUT_PER_SECOND,
            regex_matchers=True,
            flat_deny=True,
            config_fields=HOOKS_CONFIG_FIELDS,
            # its `<` and `>` escaped inside (the in-progress marker `[>]` reads `[&gt;]`), the
            # tags around it not (tests/hooks/test_real_gemini_cli.py)
            context=ContextTags(open="<hook_context>", close="</hook_context>", escaped=True),
        ),
        # every fix: the checks of write_todos (`BeforeTool`), the injection (`AfterTool`, read
        # by the simulated agent in its escaped `<hook_context>`) and the gates (`AfterAgent`,
        # each stop judged by the text it added to the prompt's response) (docs/hooks.md)
        hook_switches=("textlock", "whitelist", "inject", "gate", "heuristic"),
        # its compression request (the verification that follows it, which asks for the
        # snapshot again, is a side request: no tools offered)
        summary_request=("<state_snapshot>", "First, reason in your scratchpad"),
        no_compaction="its headless mode starts `/compress` (alias `/compact`) in the "
        "background and sends the command's own text to the model as the prompt at the same "
        "time (0.61.0's non-interactive slash commands: the command returns no prompt)",
        model_config_id="gemini-2.5-pro",
        names_calls=True,
        no_container="the image does not link its gemini.js where inspect-swe looks for an "
        "installed Gemini CLI, and its settings file is in the host user's cache, which the "
        "container does not see",
        # inspect-swe runs Gemini CLI with node (it would download one otherwise)
        requires={"node": "nodejs"},
    ),
)


def settings(content: str) -> Path:
    """The system settings file holding `content`, in the user's own cache (the account's
    home, whatever HOME an episode sets), named by its content: rows with other settings never
    share one."""
    digest = hashlib.sha256(content.encode()).hexdigest()[:12]
    return Path(pwd.getpwuid(os.getuid()).pw_dir) / SETTINGS_FOLDER / f"system-{digest}.json"


def writable_by_others(path: Path) -> Path | None:
    """The first of `path` and the folders above it that a group or others may write to (Gemini
    CLI then skips a system settings file there), None if none."""
    for place in (path, *path.parents):
        if place.exists() and place.stat().st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return place
    return None


def sessions(home: Path) -> Iterator[Path]:
    """The chat records Gemini CLI wrote under an episode's HOME, oldest first (a file's name
    carries the minute its session started or was resumed in)."""
    yield from sorted(home.glob(RECORDS), key=lambda p: (p.name, str(p)))


def _messages(path: Path, notes: list[str] | None = None) -> Iterator[dict[str, Any]]:
    """The messages of one chat record, in order, each in its last version. A message is a line
    of its own, written again when its tool calls are done. A `$set` line sets the session's
    fields, `messages` among them: at a session's opening, and when a session is resumed (into
    the same file when that is within the minute its name carries), where it lists the history
    rebuilt without the tool calls: a message already read keeps its own version."""
    latest: dict[str, dict[str, Any]] = {}
    for record in lines(path, notes):
        listed = as_dict(record.get("$set")).get("messages")
        if isinstance(listed, list):
            for message in listed:
                key = str(as_dict(message).get("id", ""))
                if isinstance(message, dict) and key not in latest:
                    latest[key] = message
        elif "type" in record:
            key = str(record.get("id", len(latest)))
            latest.pop(key, None)  # a message written again takes its new place
            latest[key] = record
    yield from latest.values()


def _call(entry: dict[str, Any]) -> CallRecord:
    """One tool call of a chat record, with its answer (its `functionResponse`: `output`, or
    `error` for a call the product refused or that failed)."""
    results = [as_dict(as_dict(r).get("functionResponse")) for r in entry.get("result") or []]
    response = as_dict(results[0].get("response")) if results else {}
    failed = entry.get("status") not in (None, "success") or "error" in response
    answer = response.get("error" if "error" in response else "output")
    return CallRecord(
        id=str(entry.get("id", "")),
        tool=str(entry.get("name", "")),
        args=as_dict(entry.get("args")),
        result=None if answer is None else str(answer),
        error=failed,
    )


def calls(path: Path) -> list[CallRecord]:
    """Every tool call of one chat record, in the order made, with its answer."""
    return [
        _call(as_dict(entry))
        for message in _messages(path)
        if message.get("type") == "gemini"
        for entry in message.get("toolCalls") or []
    ]


def home_calls(home: Path) -> list[CallRecord]:
    """Every call of every chat record under an episode's HOME, each once (a resumed session
    may repeat its history's calls), in the order made."""
    made: dict[str, CallRecord] = {}
    for path in sessions(home):
        for call in calls(path):
            made.pop(call.id, None)
            made[call.id] = call
    return list(made.values())


# -- the audit's reading -------------------------------------------------------------------

#: the fields of a chat record's first line (the session's own)
_OPENING = ("sessionId", "projectHash", "startTime")


def recognises(record: dict[str, Any]) -> bool:
    """A line of a Gemini CLI chat record: its opening, a `$set`, or a message."""
    if all(key in record for key in _OPENING) or "$set" in record:
        return True
    return record.get("type") in ("user", "gemini") and "timestamp" in record and "id" in record


def _typed(message: dict[str, Any]) -> str | None:
    """What the person typed in a user message (not its tool answers nor the CLI's own
    session context)."""
    parts = (
        [as_dict(p) for p in message.get("content") or []]
        if isinstance(message.get("content"), list)
        else [{"text": message.get("content")}]
    )
    text = "\n".join(str(p["text"]) for p in parts if isinstance(p.get("text"), str)).strip()
    if not text or text.startswith("<session_context>"):
        return None
    return text


def events(path: Path) -> Iterator[Event]:
    notes: list[str] = []
    for message in _messages(path, notes):
        kind = message.get("type")
        if kind == "user":
            text = _typed(message)
            if text:
                yield UserMessage(text=text)
            continue
        if kind != "gemini":
            continue
        for entry in message.get("toolCalls") or []:
            call = _call(as_dict(entry))
            if call.tool != WRITE_TODOS.tool or call.refused:
                continue  # a refused list changed nothing
            todos = call.args.get(WRITE_TODOS.key)
            yield TodoState(tool=WRITE_TODOS.tool, items=items(todos, WRITE_TODOS.text))
    yield from (Note(text=note) for note in notes)


def final_text(record: dict[str, Any]) -> str | None:
    """The agent's text in one chat record line, if it is a Gemini message with text."""
    if record.get("type") != "gemini":
        return None
    content = record.get("content")
    return content.strip() or None if isinstance(content, str) else None


# -- how the board runs it (inspect-swe's agent; harness/products/cli_runner.py) -----------------

#: where inspect-swe looks for an installed Gemini CLI in its install folder
INSTALL_LINK = "gemini-cli/node_modules/.bin/gemini"


def _settings_file(product: CliProduct) -> Path:
    """The row's settings keys as Gemini CLI's system settings file (written once per
    content); RuntimeError where Gemini CLI would skip it."""
    content = json.dumps(config_tree(product.config), indent=2, sort_keys=True)
    path = settings(content)
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
        fresh = path.with_name(f".{path.name}.{os.getpid()}")
        fresh.write_text(content, encoding="utf-8")
        fresh.chmod(0o644)
        fresh.replace(path)
    open_to_others = writable_by_others(path)
    if open_to_others is not None:
        raise RuntimeError(
            f"{product.name}: Gemini CLI skips its settings file {path}: {open_to_others} is "
            "writable by others (its switches, no update check and no telemetry, would be off)"
        )
    return path


def _prepare(product: CliProduct, home: Path) -> None:
    """The row's settings file, before the CLI starts."""
    _settings_file(product)


def _agent(product: CliProduct, common: Common, home: Path) -> Agent:
    from inspect_swe import gemini_cli

    args = {k: v for k, v in common.items() if k not in ("model_config", "env", "version")}
    env = {**common["env"], SETTINGS_ENV: str(_settings_file(product))}
    return gemini_cli(
        gemini_model=product.model_config_id,
        version=product.version,
        web_search=False,
        env=env,
        **args,
    )


#: `gemini_cli()` at the pinned version, whose binary is linked where inspect-swe looks for an
#: installed one (so nothing is downloaded); the row's settings keys as its system settings file
#: (it overrides the user settings inspect-swe writes; in the user's own cache, since Gemini CLI
#: skips one under a folder others may write to, as /tmp); its chat JSONL under
#: `$HOME/.gemini/tmp/`.
RUNNER = CliRunner(
    agent=_agent,
    inspect_agent="gemini_cli",
    record=home_calls,
    prepare=_prepare,
    install_link=INSTALL_LINK,
)
