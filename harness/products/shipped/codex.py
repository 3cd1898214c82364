"""Codex CLI (npm `@openai/codex`): its full-plan tool `update_plan`, its shell `exec_command`
(no file tools of its own), the folder it keeps, its rollout record (JSONL under
`CODEX_HOME/sessions/`) and the one parser of it, and its hooks (`.codex/hooks.json`; what
fires, probed from the pinned binary: `scripts/probe_codex_hooks.py`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from pydantic import BaseModel

from harness.products.cli_runner import CliRunner, Common
from harness.products.list_backend import ListBackend, Refused, Taken, entry_field
from harness.products.product import OFFLINE, CliProduct, Extension, ListDialect, Shell
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

CLI = "codex"
PACKAGE = "@openai/codex"
VERSION = "0.171.0"
PLAN = ListDialect(tool="update_plan", key="plan", text="step")
SHELL = Shell(tool="exec_command", command="cmd")
OWN_FOLDER = ".codex/"
#: its rollouts under its CODEX_HOME
RECORDS = "sessions/**/rollout-*.jsonl"
#: Codex CLI's answer to an `update_plan` it took; its rollout marks no answer as an error, and
#: any other answer to that tool is a refusal (arguments it could not parse)
PLAN_TAKEN = "Plan updated"
#: the statuses update_plan takes
STATUSES = ("pending", "in_progress", "completed")


class PlanStep(BaseModel):
    """One step as update_plan takes it."""

    step: str
    status: str


async def _update_plan(plan: list[PlanStep], explanation: str | None = None) -> str:
    raise NotImplementedError


def _take_plan(params: dict[str, Any]) -> Taken:
    """update_plan: `plan: [{step, status}]` (and an optional explanation) replaces the stored
    plan; at most one step may be in progress; no ids, no cap."""
    raw = params[PLAN.key]
    if not isinstance(raw, list):
        raise Refused("`plan` must be a list of {step, status}.")
    steps = [(entry_field(e, "step"), entry_field(e, "status").lower()) for e in raw]
    for position, (step, status) in enumerate(steps, start=1):
        if not step:
            raise Refused(f"Step {position}: text required.")
        if status not in STATUSES:
            raise Refused(f"Step {position}: status must be pending, in_progress or completed.")
    if sum(status == "in_progress" for _, status in steps) > 1:
        raise Refused("At most one step can be in_progress.")
    return steps, PLAN_TAKEN


PLAN_BACKEND = ListBackend(
    design="codex-plan",
    product="Codex CLI update_plan",
    tool=PLAN.tool,
    description="Record your plan for the task as short steps, each with a status: pending, "
    "in_progress or completed. Send the whole plan each time it changes; at most one step may "
    "be in_progress. Add an explanation when the plan changes course.",
    params={"plan": "Every step, in order.", "explanation": "Why the plan changed (optional)."},
    signature=_update_plan,
    take=_take_plan,
)

#: what the Codex row sets, each by Codex's own config key: `update_plan` is hidden from a
#: headless run unless asked for; no analytics or OpenTelemetry metrics, no update check, no
#: feedback upload, no curated-plugins sync from GitHub, no web search (the machines have no
#: network but the bridge); its goal tools off, so `update_plan` is its one way to keep a list;
#: its shell not a login shell (a login shell's profile resets PATH, on which the episode puts
#: the helper command, `todo-bench-tool`)
CONFIG = {
    f"tools.{PLAN.tool}.enabled": "true",
    "allow_login_shell": "false",
    "analytics.enabled": "false",
    "check_for_update_on_startup": "false",
    "feedback.enabled": "false",
    "features.plugins": "false",
    "web_search": '"disabled"',
    "features.goals": "false",
}

WHY = {
    f"tools.{PLAN.tool}.enabled": f"`{PLAN.tool}` offered: a headless run hides it unless "
    "asked for",
    "allow_login_shell": "its shell not a login shell: a login shell's profile resets PATH, on "
    "which the episode puts its helper command (`todo-bench-tool`)",
    "analytics.enabled": OFFLINE,
    "check_for_update_on_startup": OFFLINE,
    "feedback.enabled": OFFLINE,
    "features.plugins": OFFLINE + "; its curated plugins sync from GitHub",
    "web_search": OFFLINE,
    "features.goals": f"its goal tools off, so `{PLAN.tool}` is its one way to keep a list",
}

#: what a user must do before Codex runs a project's hooks (0.171.0, probed: with neither, no
#: hook of `.codex/hooks.json` or `$CODEX_HOME/hooks.json` fired, `--trust` alone neither)
HOOKS_TRUST = (
    "Codex CLI runs a project's hooks only in a trusted project and only once you trust the "
    "hooks: start `codex` in the project and trust the folder and the hooks it lists "
    "(headless: `codex exec --trust --dangerously-bypass-hook-trust`)"
)

#: the `codex exec` flag that runs hooks nobody reviewed, for this invocation only (the board's
#: episodes pass it: their hooks are the harness's own)
HOOKS_TRUST_FLAG = "--dangerously-bypass-hook-trust"

#: the designs built from this module (harness/todo/full_list.py)
LIST_BACKENDS = (PLAN_BACKEND,)

ROWS = (
    CliProduct(
        name="cli/codex",
        title="Codex CLI, update_plan (full-plan rewrite)",
        cli=CLI,
        design=PLAN_BACKEND.design,
        package=PACKAGE,
        version=VERSION,
        binary="node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
        env={},
        config=CONFIG,
        why=WHY,
        todo_tools=(PLAN.tool,),
        dialect=PLAN,
        shell=SHELL,
        own_folders=(OWN_FOLDER,),
        record=f"$CODEX_HOME/{RECORDS} (JSONL; a `compacted` line at each compaction)",
        extension=Extension(
            kind="hooks",
            config=".codex/hooks.json",
            note="on by default, Claude Code's wire: PreToolUse/PostToolUse (update_plan as "
            "itself), Stop, UserPromptSubmit, SessionStart (compact too), Pre/PostCompact; "
            "run if project and hooks trusted (scripts/probe_codex_hooks.py)",
            notice=HOOKS_TRUST,
        ),
        # the checks of update_plan (`PreToolUse`), the injection (`PostToolUse`: a developer
        # message, which inspect's bridge hands the model as a system message, read as the
        # loop's L4 is: tests/models/sim/test_hook_messages.py) and the gates (`Stop`); the
        # heuristic gate's keyword table reads the helper command's calls, not Codex's own
        # shell commands (docs/hooks.md)
        hook_switches=("textlock", "whitelist", "inject", "gate", "heuristic"),
        summary_request=("CONTEXT CHECKPOINT COMPACTION",),
        no_compaction="its headless `codex exec` has no compaction command (tried with "
        "0.171.0: `/compact` as the prompt of a resumed session reached the model as a "
        "message)",
        # a slug in Codex's own catalog that is not in its code mode (where the model writes
        # JavaScript instead of calling tools): exec_command, update_plan, ...
        model_config_id="gpt-5.4",
    ),
)


def home(episode_home: Path) -> Path:
    """The CODEX_HOME an episode gives it: its config, AGENTS.md and rollouts, in the
    episode's HOME, never the workspace."""
    return episode_home / OWN_FOLDER.rstrip("/")


def sessions(codex_home: Path) -> Iterator[Path]:
    """The rollout files Codex CLI wrote under a CODEX_HOME, oldest first."""
    yield from sorted(codex_home.glob(RECORDS))


def _arguments(payload: dict[str, Any]) -> dict[str, Any]:
    raw = payload.get("arguments")
    if isinstance(raw, dict):
        return raw
    try:
        parsed = json.loads(str(raw or "{}"))
    except json.JSONDecodeError:
        return {"_raw": str(raw)}
    return parsed if isinstance(parsed, dict) else {"_raw": str(raw)}


def calls(path: Path) -> list[CallRecord]:
    """Every function call of one Codex CLI rollout JSONL, in the order made, with its answer
    (arguments Codex recorded that are not a JSON object are kept as `{"_raw": text}`)."""
    made: dict[str, CallRecord] = {}
    for record in lines(path):
        payload = as_dict(record.get("payload"))
        if record.get("type") != "response_item":
            continue
        call_id = str(payload.get("call_id", ""))
        if payload.get("type") == "function_call":
            made.setdefault(
                call_id,
                CallRecord(id=call_id, tool=str(payload.get("name", "")), args=_arguments(payload)),
            )
        elif payload.get("type") == "function_call_output" and call_id in made:
            call = made[call_id]
            output = payload.get("output")
            call.result = output if isinstance(output, str) else json.dumps(output)
            call.error = call.tool == PLAN.tool and call.result != PLAN_TAKEN
    return list(made.values())


def home_calls(episode_home: Path) -> list[CallRecord]:
    """Every call of every rollout under an episode's HOME."""
    return [call for path in sessions(home(episode_home)) for call in calls(path)]


# -- the audit's reading -------------------------------------------------------------------

_KINDS = ("session_meta", "response_item", "event_msg", "turn_context", "compacted")


def recognises(record: dict[str, Any]) -> bool:
    """A line of a Codex CLI rollout."""
    return "payload" in record and record.get("type") in _KINDS


def events(path: Path) -> Iterator[Event]:
    last_user = None
    notes: list[str] = []
    for record in lines(path, notes):
        kind, payload = record.get("type"), record.get("payload")
        if kind == "compacted" or (
            isinstance(payload, dict) and payload.get("type") == "context_compacted"
        ):
            yield Compaction()
            continue
        if not isinstance(payload, dict):
            continue
        text = None
        if kind == "event_msg" and payload.get("type") == "user_message":
            text = str(payload.get("message", "")).strip()
        elif payload.get("type") == "message" and payload.get("role") == "user":
            parts = payload.get("content") or []
            text = "\n".join(str(p.get("text", "")) for p in parts if isinstance(p, dict)).strip()
            if text.startswith("<"):  # environment context and instructions, not typed
                text = None
        if text:
            if text != last_user:  # a rollout records a typed message twice
                yield UserMessage(text=text)
            last_user = text
            continue
        if payload.get("type") == "function_call" and payload.get("name") == PLAN.tool:
            raw = payload.get("arguments")
            try:
                arguments = raw if isinstance(raw, dict) else json.loads(str(raw or "{}"))
            except json.JSONDecodeError:
                continue  # the product refused it too: no list was recorded
            plan = arguments.get(PLAN.key) if isinstance(arguments, dict) else None
            yield TodoState(tool=PLAN.tool, items=items(plan, PLAN.text))
            last_user = None
    yield from (Note(text=note) for note in notes)


def final_text(record: dict[str, Any]) -> str | None:
    """The agent's text in one rollout line, if it is an assistant message with text."""
    payload = as_dict(record.get("payload"))
    if payload.get("type") == "message" and payload.get("role") == "assistant":
        parts = payload.get("content") or []
        return "\n".join(str(as_dict(p).get("text", "")) for p in parts).strip() or None
    return None


# -- how the board runs it (inspect-swe's agent; harness/products/cli_runner.py) -----------------

#: the Codex config keys inspect-swe's `codex_cli()` writes itself from its own arguments
#: (after every override), so they are passed as those arguments
_OWN_ARGS = ("web_search", "features.goals")


def _agent(product: CliProduct, common: Common, episode_home: Path) -> Agent:
    from inspect_swe import codex_cli

    config = product.config
    search = cast(Literal["live", "cached", "disabled"], config["web_search"].strip('"'))
    return codex_cli(
        home_dir=str(home(episode_home)),
        web_search=search,
        goals=config["features.goals"] == "true",
        config_overrides={k: v for k, v in config.items() if k not in _OWN_ARGS},
        **common,
    )


def _seed_catalog(product: CliProduct) -> None:
    # imported here: the products wing is read by the hook program, which loads no inspect
    from harness._inspect_private import seed_codex_catalog

    seed_codex_catalog(product.version)


#: `codex_cli()` with `CODEX_HOME` in the episode's HOME (its config, AGENTS.md and rollouts,
#: never the workspace), the row's config keys as `-c` overrides; its rollout JSONL under
#: `CODEX_HOME/sessions/`. inspect-swe's model-catalog download is answered from its own bundled
#: snapshot (`seed_codex_catalog`), so a run tries no connection but the bridge.
RUNNER = CliRunner(
    agent=_agent,
    inspect_agent="codex_cli",
    record=home_calls,
    prepare=lambda product, episode_home: _seed_catalog(product),
)
