"""OpenCode (npm `opencode-ai`): its full-list tool `todowrite`, its file tools and shell, the
folder it keeps, its own store (the SQLite `opencode.db` in its data folder; a session export is
JSON) and the one parser of each, and its plugins."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from harness.products.cli_runner import CliRunner, Common, config_tree
from harness.products.list_backend import ListBackend, Refused, Taken, entry_field
from harness.products.product import OFFLINE, CliProduct, Extension, FileTools, ListDialect, Shell
from harness.products.reading import as_dict, items, lines
from harness.products.session_record import (
    CallRecord,
    Compaction,
    Event,
    Note,
    TodoState,
    UserMessage,
)

if TYPE_CHECKING:
    from inspect_ai.agent import Agent

CLI = "opencode"
PACKAGE = "opencode-ai"
VERSION = "1.18.33"
TODOWRITE = ListDialect(
    tool="todowrite", key="todos", text="content", fixed=(("priority", "medium"),)
)
FILE_TOOLS = FileTools(write="write", read="read", edits=("edit",), path="filePath")
#: its `bash` takes no description: its schema allows no other property
SHELL = Shell(tool="bash", command="command")
OWN_FOLDER = ".opencode/"
#: its own store under its XDG data folder
STORE = "opencode/opencode.db"
#: the package OpenCode installs from npm into each of its config folders when it starts (the
#: SDK of its plugins), unless the folder's lockfile already lists it
PLUGIN_SDK = "@opencode-ai/plugin"

#: what a user should know once a plugin is installed in a project (1.18.33: plugins load when
#: it starts; at each start it installs the SDK into every config folder it reads, a project's
#: `.opencode/` among them, unless the folder's lockfile lists it)
PLUGIN_NOTICE = (
    "OpenCode loads plugins when it starts: start a new session in the project (OpenCode itself "
    f"then installs its plugin SDK, {PLUGIN_SDK}, from npm into .opencode/ unless it is there)"
)

#: what the OpenCode row sets, each by OpenCode's own documented switch: no update check, no
#: models.dev catalog download (its binary carries a catalog), no language-server download, no
#: default plugins (environment flags); no update check, no session sharing, no web tools
#: (config keys, values in JSON; the machines have no network but the bridge). Its headless run
#: offers `todowrite` without a switch
ENV: dict[str, str] = {
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
}
CONFIG: dict[str, str] = {
    "autoupdate": "false",
    "share": '"disabled"',
    "permission.webfetch": '"deny"',
    "permission.websearch": '"deny"',
}

WHY = {
    "OPENCODE_DISABLE_AUTOUPDATE": OFFLINE,
    "OPENCODE_DISABLE_MODELS_FETCH": OFFLINE + "; its binary carries a model catalog",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": OFFLINE,
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": OFFLINE + "; its default plugins install from npm",
    "autoupdate": OFFLINE,
    "share": OFFLINE + "; a session is never shared",
    "permission.webfetch": OFFLINE,
    "permission.websearch": OFFLINE,
}


#: the statuses its schema names (it takes any string; another one is refused by the design:
#: in a CLI episode an episode error, `RecordMismatch`, never a silent difference)
STATUSES = ("pending", "in_progress", "completed", "cancelled")
#: its fourth status: the item stays in the product's list, off the work
CANCELLED = "cancelled"


class OpenCodeTodo(BaseModel):
    """One item as todowrite takes it."""

    content: str
    status: str
    priority: str


async def _todowrite(todos: list[OpenCodeTodo]) -> str:
    raise NotImplementedError


def _take_todos(params: dict[str, Any]) -> Taken:
    """todowrite: the whole list of `{content, status, priority}` with no ids replaces the
    stored one; the product answers with the list it stored, as JSON. A `cancelled` item is one
    the model took off the work: it leaves the list the harness holds (the product keeps showing
    it), and the detectors read a removal, sanctioned where the user cancelled that subtask, a
    dropped item where not."""
    raw = params[TODOWRITE.key]
    if not isinstance(raw, list):
        raise Refused("`todos` must be a list of {content, status, priority}.")
    rows = [
        (entry_field(e, "content"), entry_field(e, "status").lower(), entry_field(e, "priority"))
        for e in raw
    ]
    for position, (content, status, _) in enumerate(rows, start=1):
        if not content:
            raise Refused(f"Item {position}: content is required.")
        if status not in STATUSES:
            raise Refused(
                f"Item {position}: status must be pending, in_progress, completed or cancelled."
            )
    stored = [{"content": c, "status": s, "priority": p} for c, s, p in rows]
    work = [(content, status) for content, status, _ in rows if status != CANCELLED]
    return work, json.dumps(stored, indent=2, ensure_ascii=False)


TODOWRITE_BACKEND = ListBackend(
    design="opencode-todowrite",
    product="OpenCode todowrite",
    tool=TODOWRITE.tool,
    description="Write your todo list for this session: send the complete list every time, each "
    "item with `content` (what to do), `status` (pending, in_progress or completed) and "
    "`priority` (high, medium or low). Keep one item in_progress while you work and mark an "
    "item completed as soon as it is done.",
    params={"todos": "The complete, updated list."},
    signature=_todowrite,
    take=_take_todos,
)


#: the designs built from this module (harness/todo/full_list.py)
LIST_BACKENDS = (TODOWRITE_BACKEND,)

ROWS = (
    CliProduct(
        name="cli/opencode",
        title="OpenCode, todowrite (full-list rewrite)",
        cli=CLI,
        design=TODOWRITE_BACKEND.design,
        package=PACKAGE,
        version=VERSION,
        binary="node_modules/opencode-linux-x64/bin/opencode",
        env=ENV,
        config=CONFIG,
        why=WHY,
        config_label="OPENCODE_CONFIG_CONTENT {key}",
        todo_tools=(TODOWRITE.tool,),
        dialect=TODOWRITE,
        file_tools=FILE_TOOLS,
        shell=SHELL,
        own_folders=(OWN_FOLDER,),
        record=f"$XDG_DATA_HOME/{STORE} (SQLite: a `part` row per piece of a message)",
        extension=Extension(
            kind="plugin",
            config=".opencode/plugins/",
            note="loads `.opencode/{plugin,plugins}/*.{ts,js}`; in `opencode run` (probed: "
            "scripts/probe_opencode_plugin.py) tool.execute.before (a throw is the call's "
            "result), tool.execute.after (its output editable), chat.message, "
            "experimental.text.complete (awaited: a stop is refused there), "
            "experimental.session.compacting; session.idle comes after the run's exit",
            notice=PLUGIN_NOTICE,
        ),
        # through its plugin: the checks of todowrite (`tool.execute.before`), the injection
        # (`tool.execute.after`: appended to the call's output) and the gates (a refusal sent
        # at `experimental.text.complete`, taken back if the step calls a tool: plugin.py)
        hook_switches=("textlock", "whitelist", "inject", "gate", "heuristic"),
        # both its forms: a first summary, and one that updates the last
        summary_request=("Here is the conversation so far:", "<conversation>"),
        no_compaction="its headless `opencode run`, as inspect-swe runs it, has no compaction "
        "command (tried with 1.18.33: `/compact` as the prompt of a continued session reached "
        "the model as a message)",
        model_config_id="anthropic/claude-sonnet-4-5",
        # inspect-swe runs OpenCode with node and ripgrep beside it
        requires={"node": "nodejs", "rg": "ripgrep"},
    ),
)


def dirs(home: Path) -> dict[str, str]:
    """OpenCode's XDG folders, all in the episode's HOME (never the user's own, whatever the
    host's XDG variables say): its config, its session store, its state and caches."""
    return {
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
    }


def config_folder(home: Path) -> Path:
    """Its config folder in the episode's HOME."""
    return Path(dirs(home)["XDG_CONFIG_HOME"]) / CLI


def store(data_home: Path) -> Path | None:
    """OpenCode's store under an XDG data folder, if it wrote one."""
    db = data_home / STORE
    return db if db.is_file() else None


def calls(db: Path) -> list[CallRecord]:
    """Every tool call of OpenCode's own store (its SQLite `opencode.db`: one `part` row per
    piece of a message, a tool call's part holding its `callID`, `tool` and `state` with the
    input and the output or error), in the order made; sub-agents' sessions left out."""
    # imported here: the docker sandbox's image imports this wing (its hook command) from a
    # Python built without the sqlite3 library, and reads no store
    import sqlite3

    with contextlib.closing(sqlite3.connect(db)) as connection:
        rows = connection.execute(
            "SELECT part.data FROM part JOIN session ON part.session_id = session.id "
            "WHERE session.parent_id IS NULL ORDER BY part.id"
        ).fetchall()
    made: list[CallRecord] = []
    for (data,) in rows:
        part = as_dict(json.loads(data))
        if part.get("type") != "tool":
            continue
        state = as_dict(part.get("state"))
        failed = state.get("status") == "error"
        answer = state.get("error" if failed else "output")
        made.append(
            CallRecord(
                id=str(part.get("callID", "")),
                tool=str(part.get("tool", "")),
                args=as_dict(state.get("input")),
                result=None if answer is None else str(answer),
                error=failed,
            )
        )
    return made


def home_calls(home: Path) -> list[CallRecord]:
    """Every call of the store under an episode's HOME."""
    db = store(Path(dirs(home)["XDG_DATA_HOME"]))
    return calls(db) if db is not None else []


# -- the audit's reading: a session export --------------------------------------------------


def recognises_export(data: Any) -> bool:
    """A session export as one JSON document."""
    return isinstance(data, dict) and isinstance(data.get("messages"), list)


def recognises(record: dict[str, Any]) -> bool:
    """The first line of an export saved one object per line (its `info`)."""
    return isinstance(record.get("info"), dict) and "type" not in record


def _messages(path: Path, notes: list[str]) -> Iterable[Any]:
    if path.suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
        messages: list[Any] = data.get("messages", [])
        return messages
    return (r for r in lines(path, notes) if "parts" in r)


def events(path: Path) -> Iterator[Event]:
    """An OpenCode export: one JSON document, or one object per line (`info`, then each
    message)."""
    notes: list[str] = []
    for message in _messages(path, notes):
        if not isinstance(message, dict):
            continue
        info = as_dict(message.get("info"))
        parts = [p for p in message.get("parts") or [] if isinstance(p, dict)]
        if info.get("summary") is True or any(p.get("type") == "compaction" for p in parts):
            yield Compaction()
            continue
        if info.get("role") == "user":
            # what the person typed; an attachment (`@file`) adds synthetic parts beside it
            text = "\n".join(
                str(p.get("text", ""))
                for p in parts
                if p.get("type") == "text" and not p.get("synthetic")
            )
            if text.strip():
                yield UserMessage(text=text.strip())
            continue
        for part in parts:
            if part.get("type") != "tool" or part.get("tool") != TODOWRITE.tool:
                continue
            todos = as_dict(as_dict(part.get("state")).get("input")).get(TODOWRITE.key)
            yield TodoState(tool=TODOWRITE.tool, items=items(todos, TODOWRITE.text))
    yield from (Note(text=note) for note in notes)


def final_records(path: Path) -> Iterable[Any]:
    """The messages of an export, for the final reply."""
    return _messages(path, [])


def final_text(record: dict[str, Any]) -> str | None:
    """The agent's text in one exported message, if it is an assistant message with text."""
    if as_dict(record.get("info")).get("role") != "assistant":
        return None
    parts = [as_dict(p) for p in record.get("parts") or []]
    return (
        "\n".join(str(p.get("text", "")) for p in parts if p.get("type") == "text").strip() or None
    )


# -- how the board runs it (inspect-swe's agent; harness/products/cli_runner.py) -----------------


def seed_plugin_sdk(folder: Path, product: CliProduct) -> None:
    """An OpenCode config folder (its HOME's, a project's `.opencode/`) with its plugin SDK
    already listed as installed: OpenCode has no switch for that install, which otherwise
    tries the npm registry at every start."""
    (folder / "node_modules").mkdir(parents=True, exist_ok=True)
    wanted = {PLUGIN_SDK: product.version}
    (folder / "package.json").write_text(json.dumps({"dependencies": wanted}), encoding="utf-8")
    lock = {"packages": {"": {"dependencies": wanted}}}
    (folder / "package-lock.json").write_text(json.dumps(lock), encoding="utf-8")


def _agent(product: CliProduct, common: Common, home: Path) -> Agent:
    from inspect_swe import opencode

    args = {k: v for k, v in common.items() if k not in ("model_config", "env")}
    env = {
        **common["env"],
        **dirs(home),
        # the row's config keys, as OpenCode's inline config (merged over inspect-swe's file)
        "OPENCODE_CONFIG_CONTENT": json.dumps(config_tree(product.config)),
    }
    return opencode(opencode_model=product.model_config_id, env=env, **args)


#: `opencode()` with its XDG folders in the episode's HOME, the row's config keys as its inline
#: config; its own store, the SQLite `opencode.db` in its data folder. Its config folder is
#: prepared so that it does not install its plugin SDK from npm at start (the episode loads no
#: plugin).
RUNNER = CliRunner(
    agent=_agent,
    inspect_agent="opencode",
    record=home_calls,
    prepare=lambda product, home: seed_plugin_sdk(config_folder(home), product),
)
