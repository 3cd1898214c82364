"""The fixes through OpenCode's host (`todo-bench-hook --product opencode`, the events its
plugin sends): the same rule code judges todowrite's `todos: [{content, status, priority}]`.
Each fix fires on its fault with the fix's reason and lets every other call through; `hooks
install --product opencode` writes its plugin beside the user's own, never over one, and
uninstall leaves the project as it was; the generated plugin, run by node against the real hook
program, throws a denial, appends the list to a tool's result, to a user's message and to the
compaction request, and sends a refused stop's reason as a user message."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from harness.commands import main
from harness.episode.prompts import GATE_BLOCKED
from harness.hooks.hosts import HOSTS
from harness.hooks.plugin import MARKER, plugin_text
from harness.hooks.protocol import STOP_WITHDRAWN
from harness.products.shipped import opencode
from tests.helpers import DOCS
from tests.hooks.conftest import Hooks, denial

PLAN = ("List the files", "Write main.py", "Write test.py")
CURRENT = (
    "Current list:\n[ ] #1: List the files\n[ ] #2: Write main.py\n[ ] #3: Write test.py\n"
    "(0/3 completed)"
)
TOOL = opencode.TODOWRITE.tool
HOST = HOSTS[opencode.CLI]


def items(*texts: str, done: tuple[str, ...] = ()) -> list[dict[str, str]]:
    """A todowrite list: the texts, those in `done` completed, the rest pending."""
    rows = [(t, "completed" if t in done else "pending") for t in texts]
    return opencode.TODOWRITE.entries(rows)[opencode.TODOWRITE.key]


@pytest.fixture
def oc(tmp_path: Path) -> Hooks:
    return Hooks(tmp_path, product=opencode.CLI)


def _todo(hooks: Hooks, event: str, todos: list[dict[str, str]], **fields: Any) -> dict[str, Any]:
    # as the plugin sends it: no transcript, the call's id from OpenCode
    return hooks.event(event, tool_name=TOOL, tool_input={"todos": todos}, tool_use_id="call_1",
                       **fields)  # fmt: skip


def _planned(hooks: Hooks, fixes: str) -> None:
    reply = hooks.run(fixes, _todo(hooks, "PostToolUse", items(*PLAN), tool_response="[]"))
    assert (reply.code, reply.answer) == (0, None), reply.stderr


def test_whitelist_denies_a_todowrite_that_drops_an_item(oc: Hooks) -> None:
    _planned(oc, "whitelist")
    reply = oc.run("whitelist", _todo(oc, "PreToolUse", items(*PLAN[:2], done=PLAN[:1])))
    reason = (
        "Update rejected: the list must contain exactly the stored ids (keep every stored item "
        "and mark finished ones completed; new items may be added). missing ids: #3 "
        "'Write test.py'.\n" + CURRENT
    )
    assert (reply.code, reply.answer) == (0, denial(reason))
    (record,) = oc.journal()
    assert (record.action, record.event, record.tool) == ("denied", "PreToolUse", TOOL)


def test_textlock_denies_a_reworded_item_naming_todowrite(oc: Hooks) -> None:
    _planned(oc, "textlock")
    sent = items("List the files", "Write the main.py file", "Write test.py")
    reply = oc.run("textlock", _todo(oc, "PreToolUse", sent))
    reason = (
        f"Update rejected: todo text cannot change in a rewrite ({TOOL} cannot rename an item: "
        "keep each stored item's text exactly). #2 must keep its text 'Write main.py'.\n" + CURRENT
    )
    assert reply.answer == denial(reason)


def test_a_kept_list_a_first_list_and_other_tools_go_through(oc: Hooks) -> None:
    first = oc.run("textlock,whitelist", _todo(oc, "PreToolUse", items(*PLAN)))
    assert (first.code, first.answer) == (0, None)  # nothing stored yet: the list defines it
    _planned(oc, "textlock,whitelist")
    for sent in (items(*PLAN, done=PLAN[:2]), items(*reversed(PLAN)), items(*PLAN, "Run it")):
        reply = oc.run("textlock,whitelist", _todo(oc, "PreToolUse", sent))
        assert (reply.code, reply.answer) == (0, None), sent
    shell = oc.event("PreToolUse", tool_name=opencode.SHELL.tool, tool_input={"command": "ls"})
    assert oc.run("textlock,whitelist", shell).answer is None
    claude = oc.event("PreToolUse", tool_name="TodoWrite", tool_input={"todos": []})
    assert oc.run("whitelist", claude).answer is None  # not OpenCode's todo tool
    assert oc.journal() == []


def test_inject_adds_the_list_after_each_successful_call(oc: Hooks) -> None:
    read = oc.event("PostToolUse", tool_name=opencode.FILE_TOOLS.read, tool_input={})
    assert oc.run("inject", read).answer is None  # no list yet
    reply = oc.run("inject", _todo(oc, "PostToolUse", items(*PLAN, done=PLAN[:1])))
    text = (
        "Current todo list (kept by the system, always up to date):\n[x] #1: List the files\n"
        "[ ] #2: Write main.py\n[ ] #3: Write test.py\n(1/3 completed)"
    )
    assert reply.answer == {
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": text}
    }
    assert oc.run("inject", read).answer == reply.answer
    compacting = oc.run("inject", oc.event("SessionStart", source="compact"))
    assert compacting.answer == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}
    }
    assert oc.run("textlock", read).answer is None  # only `inject` adds it


def test_gate_open_blocks_a_claim_while_an_item_is_open(oc: Hooks) -> None:
    oc.run("gate-open", _todo(oc, "PostToolUse", items(*PLAN[:2], done=PLAN[:1])))
    stop = oc.event("Stop", stop_hook_active=False, last_assistant_message="All done.")
    state = "[x] #1: List the files\n[ ] #2: Write main.py\n(1/2 completed)"
    blocked = oc.run("gate-open", stop)
    assert blocked.answer == {"decision": "block", "reason": GATE_BLOCKED.format(state=state)}
    admitted = oc.event("Stop", stop_hook_active=False, last_assistant_message="I could not "
                        "write main.py: the folder is read-only.")  # fmt: skip
    assert oc.run("gate-open", admitted).answer is None
    oc.run("gate-open", _todo(oc, "PostToolUse", items(*PLAN[:2], done=PLAN[:2])))
    assert oc.run("gate-open", stop).answer is None
    assert [r.action for r in oc.journal()] == ["blocked"]


def test_a_withdrawn_block_no_longer_counts_against_the_bound(oc: Hooks) -> None:
    """A block whose text preceded tool calls is taken back (`StopWithdrawn`): with a bound of
    one refusal in a row, the next stop of the chain is refused again, not let through; with
    nothing to take back, the event does nothing."""
    bound = {"TODO_BENCH_HOOK_MAX_BLOCKS": "1"}
    oc.run("gate-open", _todo(oc, "PostToolUse", items(*PLAN)))
    assert oc.run("gate-open", oc.event(STOP_WITHDRAWN), **bound).answer is None
    assert oc.run("gate-open", _stop(oc), **bound).answer is not None
    assert oc.run("gate-open", oc.event(STOP_WITHDRAWN), **bound).answer is None
    again = oc.event("Stop", stop_hook_active=True, last_assistant_message="All done.")
    assert oc.run("gate-open", again, **bound).answer is not None  # the withdrawn one is uncounted
    assert oc.run("gate-open", again, **bound).answer is None  # now the bound is spent
    assert [r.action for r in oc.journal()] == ["blocked", "withdrawn", "blocked", "let_through"]


def _stop(hooks: Hooks, text: str = "All done.") -> dict[str, Any]:
    return hooks.event("Stop", stop_hook_active=False, last_assistant_message=text)


def _wrote(hooks: Hooks, name: str) -> dict[str, Any]:
    """OpenCode's `write` of a file in the session's folder, as the plugin sends it."""
    (hooks.tmp / name).write_text("x", encoding="utf-8")
    files = opencode.FILE_TOOLS
    args = {files.path: str(hooks.tmp / name), "content": "x"}
    return hooks.event("PostToolUse", tool_name=files.write, tool_input=args)


def test_the_heuristic_gate_reads_opencodes_write(oc: Hooks) -> None:
    """The plan is the first todowrite; OpenCode's `write` (`filePath`) ticks its items."""
    oc.run("gate-heuristic", _todo(oc, "PostToolUse", items("Write main.py", "Write test.py")))
    oc.run("gate-heuristic", _wrote(oc, "main.py"))
    state = "- [x] Write main.py\n- [ ] Write test.py\n(1/2 done)"
    blocked = oc.run("gate-heuristic", _stop(oc))
    assert blocked.answer == {"decision": "block", "reason": GATE_BLOCKED.format(state=state)}
    oc.run("gate-heuristic", _wrote(oc, "test.py"))
    assert oc.run("gate-heuristic", _stop(oc)).answer is None


def test_the_oracle_gate_judges_opencodes_calls(oc: Hooks) -> None:
    scenario = oc.tmp / "docs.json"
    scenario.write_text(DOCS.model_dump_json(), encoding="utf-8")
    env = {"TODO_BENCH_HOOK_SCENARIO": str(scenario)}
    oc.run("gate-oracle", _wrote(oc, "a.md"), **env)
    assert oc.run("gate-oracle", _stop(oc), **env).answer is not None
    for name in ("b.md", "c.md", "README.md"):
        oc.run("gate-oracle", _wrote(oc, name), **env)
    assert oc.run("gate-oracle", _stop(oc), **env).answer is None
    assert [r.action for r in oc.journal()] == ["blocked"]


def test_the_whitelist_refuses_a_cancelled_item_as_removed(oc: Hooks) -> None:
    """OpenCode's own `cancelled` status: the item leaves the list the rules hold (the
    opencode-todowrite design), which the whitelist reads as the item removed."""
    _planned(oc, "whitelist")
    sent = [{**row, "status": "cancelled"} if row["content"] == PLAN[2] else row
            for row in items(*PLAN)]  # fmt: skip
    reply = oc.run("whitelist", _todo(oc, "PreToolUse", sent))
    assert reply.answer is not None and "missing ids: #3 'Write test.py'" in json.dumps(
        reply.answer
    )


# -- hooks install --product opencode ----------------------------------------------------------

PROGRAM = "/opt/venv/bin/todo-bench-hook"
USERS_PLUGIN = "export const Mine = async () => ({});\n"


def _plugin(folder: Path) -> Path:
    return folder / HOST.config


def _install(folder: Path, fixes: str = "whitelist,inject,gate-open") -> int:
    return main(["hooks", "install", "--product", "opencode", "--fix", fixes, "--command",
                 PROGRAM, str(folder)])  # fmt: skip


def test_the_plugin_names_the_program_the_product_and_the_events() -> None:
    text = plugin_text(("whitelist", "gate-open"), PROGRAM, HOST)
    assert text.startswith(MARKER)
    command = [PROGRAM, "--product", "opencode", "whitelist,gate-open"]
    assert f"const COMMAND = {json.dumps(command)};" in text
    events = {"PreToolUse": [TOOL], "PostToolUse": [TOOL], "Stop": [""]}
    assert f"const EVENTS = {json.dumps(events)};" in text


def test_install_writes_beside_the_users_plugins_and_uninstall_leaves_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = tmp_path / opencode.ROWS[0].extension.config / "mine.js"
    mine.parent.mkdir(parents=True)
    mine.write_text(USERS_PLUGIN, encoding="utf-8")
    assert _install(tmp_path) == 0
    out = capsys.readouterr().out
    assert "installed whitelist,inject,gate-open" in out and opencode.PLUGIN_NOTICE in out
    written = _plugin(tmp_path).read_bytes()
    assert written.decode() == plugin_text(("whitelist", "inject", "gate-open"), PROGRAM, HOST)
    assert _install(tmp_path) == 0  # idempotent
    assert "already installed" in capsys.readouterr().out
    assert _plugin(tmp_path).read_bytes() == written
    assert _install(tmp_path, "textlock") == 0  # other fixes: ours replaced
    assert "textlock" in _plugin(tmp_path).read_text("utf-8").splitlines()[0]
    assert main(["hooks", "uninstall", "--product", "opencode", str(tmp_path)]) == 0
    assert sorted(p.name for p in mine.parent.iterdir()) == ["mine.js"]
    assert mine.read_text("utf-8") == USERS_PLUGIN


def test_a_fresh_project_is_left_as_it_was(tmp_path: Path) -> None:
    assert _install(tmp_path) == 0
    assert main(["hooks", "uninstall", "--product", "opencode", str(tmp_path)]) == 0
    assert list(tmp_path.iterdir()) == []
    assert main(["hooks", "uninstall", "--product", "opencode", str(tmp_path)]) == 0


def test_a_users_own_file_at_the_plugins_path_is_never_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _plugin(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(USERS_PLUGIN, encoding="utf-8")
    for command in (["install", "--command", PROGRAM], ["uninstall"]):
        assert main(["hooks", command[0], "--product", "opencode", *command[1:],
                     str(tmp_path)]) == 2  # fmt: skip
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "left untouched" in err and str(path) in err
    assert path.read_text("utf-8") == USERS_PLUGIN
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


def test_an_opencode_folder_that_is_a_file_gets_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".opencode").write_text("x", encoding="utf-8")
    assert _install(tmp_path) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a folder" in err
    assert (tmp_path / ".opencode").read_text("utf-8") == "x"


def test_claude_codes_and_opencodes_installs_are_apart(tmp_path: Path) -> None:
    assert main(["hooks", "install", "--command", PROGRAM, str(tmp_path)]) == 0
    assert _install(tmp_path) == 0
    assert main(["hooks", "uninstall", "--product", "opencode", str(tmp_path)]) == 0
    assert not (tmp_path / opencode.OWN_FOLDER).exists()
    assert main(["hooks", "uninstall", str(tmp_path)]) == 0
    assert list(tmp_path.iterdir()) == []


# -- the plugin itself, run by node ------------------------------------------------------------

#: the plugin's hooks called as OpenCode 1.18.33 calls them (`scripts/probe_opencode_plugin.py`),
#: with a client that records the prompts it is asked to send
DRIVER = textwrap.dedent(
    """
    const { TodoBench } = await import(process.argv[2]);
    const sent = [];
    let parts = [{ type: "text" }];
    const client = { session: {
      get: async () => ({ data: { id: "s1" } }),
      message: async () => ({ data: { info: {}, parts } }),
      prompt: async (request) => { sent.push(request); return { data: {} }; },
    } };
    const hooks = await TodoBench({ client, directory: process.argv[3] });
    const call = (tool, args) => ({ tool, sessionID: "s1", callID: "c1", args });
    const plan = (...rows) => ({ todos: rows.map(([content, status]) =>
      ({ content, status, priority: "medium" })) });
    const out = {};
    const planned = plan(["Write a.md", "in_progress"], ["Write b.md", "pending"]);
    await hooks["tool.execute.before"](call("todowrite"), { args: planned });
    const after = { title: "", output: "[]", metadata: {} };
    await hooks["tool.execute.after"](call("todowrite", planned), after);
    out.after = after.output;
    try {
      const dropped = plan(["Write a.md", "completed"]);
      await hooks["tool.execute.before"](call("todowrite"), { args: dropped });
      out.denied = null;
    } catch (error) { out.denied = error.message; }
    const request = { messages: [{ info: { sessionID: "s1" }, parts: [] }] };
    await hooks["experimental.chat.messages.transform"]({}, request); // the next model request
    const text = { sessionID: "s1", messageID: "m1", partID: "p1" };
    parts = [{ type: "text" }, { type: "tool" }]; // a text with a call: no stop, not judged
    await hooks["experimental.text.complete"](text, { text: "All done." });
    parts = [{ type: "text" }];
    await hooks["experimental.text.complete"](text, { text: "All done." });
    out.sent = sent;
    // the gate's own refusal comes back through chat.message: no list is added to it
    const part = (text) => ({ id: "prt_1", sessionID: "s1", messageID: "m2", type: "text", text });
    const refusal = { message: {}, parts: [part(sent[0].body.parts[0].text)] };
    await hooks["chat.message"]({ sessionID: "s1" }, refusal);
    out.refusalParts = refusal.parts.length;
    const typed = { message: {}, parts: [part("Also write c.md")] };
    await hooks["chat.message"]({ sessionID: "s1" }, typed);
    out.typed = typed.parts.slice(1);
    const compacting = { context: [], prompt: undefined };
    await hooks["experimental.session.compacting"]({ sessionID: "s1" }, compacting);
    out.compacting = compacting.context;
    console.log(JSON.stringify(out));
    """
)


#: a refused text followed by a call of its own step (Anthropic's API ends a text block before
#: the tool calls), the call started while the text is judged: the refusal is taken back; a text
#: after a call of its step: not judged; a refused final answer, then a new request: it stands,
#: and a call after it takes nothing back
WITHDRAWING = textwrap.dedent(
    """
    const { TodoBench } = await import(process.argv[2]);
    const sent = [], patched = [];
    let made = 0;
    const client = {
      session: {
        get: async () => ({ data: { id: "s1" } }),
        message: async () => ({ data: { info: {}, parts: [{ type: "text" }] } }),
        prompt: async (request) => {
          sent.push(request);
          made += 1;
          const part = { id: `prt_${made}`, sessionID: "s1", messageID: `msg_${made}`,
                         type: "text", text: request.body.parts[0].text };
          return { data: { info: { id: part.messageID }, parts: [part] } };
        },
      },
      _client: { patch: async (request) => { patched.push(request); return { data: {} }; } },
    };
    const hooks = await TodoBench({ client, directory: process.argv[3] });
    const call = (tool, args) => ({ tool, sessionID: "s1", callID: "c1", args });
    const planned = { todos: [{ content: "Write a.md", status: "pending", priority: "high" }] };
    await hooks["tool.execute.after"](call("todowrite", planned), { output: "[]" });
    const text = { sessionID: "s1", messageID: "m1", partID: "p1" };
    const request = { messages: [{ info: { sessionID: "s1" }, parts: [] }] };
    await hooks["experimental.chat.messages.transform"]({}, request);
    // two texts before a call (each refused), the AI SDK starting the call while the second
    // is being judged: both are taken back
    await hooks["experimental.text.complete"](text, { text: "All done." });
    const judged = hooks["experimental.text.complete"](text, { text: "All done." });
    await hooks["tool.execute.before"](call("read"), { args: { filePath: "a.md" } });
    await judged;
    // a text after a call of its own step is not judged at all
    await hooks["experimental.text.complete"](text, { text: "All done." });
    await hooks["experimental.chat.messages.transform"]({}, request);
    await hooks["experimental.text.complete"](text, { text: "All done." });
    await hooks["experimental.chat.messages.transform"]({}, request);
    await hooks["tool.execute.before"](call("read"), { args: { filePath: "a.md" } });
    console.log(JSON.stringify({ sent: sent.length, patched }));
    """
)


def _node_plugin(tmp_path: Path, driver_text: str) -> tuple[dict[str, Any], Hooks]:
    """The plugin installed with whitelist, inject and gate-open, driven by `driver_text`
    under node against the real hook program: what the driver printed, and the hooks."""
    project = tmp_path / "project"
    project.mkdir()
    program = Path(sys.executable).parent / "todo-bench-hook"
    assert main(["hooks", "install", "--product", "opencode", "--fix", "whitelist,inject,"
                 "gate-open", "--command", str(program), str(project)]) == 0  # fmt: skip
    module = tmp_path / "todo-bench.mjs"  # node reads `export` from a .mjs file
    shutil.copy(_plugin(project), module)
    driver = tmp_path / "driver.mjs"
    driver.write_text(driver_text, encoding="utf-8")
    hooks = Hooks(tmp_path)
    done = subprocess.run(["node", str(driver), str(module), str(project)], env=hooks.env,
                          capture_output=True, text=True, timeout=120, check=True)  # fmt: skip
    return json.loads(done.stdout), hooks


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_plugin_takes_back_a_refusal_whose_step_calls_a_tool(tmp_path: Path) -> None:
    out, hooks = _node_plugin(tmp_path, WITHDRAWING)
    actions = [r.action for r in hooks.journal()]
    assert actions == ["injected", "blocked", "blocked", "withdrawn", "withdrawn", "blocked"]
    assert out["sent"] == 3
    # the two refusals before the call, and only they, are marked ignored: never read
    assert [p["path"] for p in out["patched"]] == [
        {"sessionID": "s1", "messageID": f"msg_{n}", "partID": f"prt_{n}"} for n in (1, 2)
    ]
    refusal = hooks.journal()[1].text.split(": ", 1)[1]
    assert all(p["body"]["ignored"] is True for p in out["patched"])
    assert out["patched"][0]["body"]["text"] == refusal


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_client_that_cannot_mark_the_refusal_fails_no_call(tmp_path: Path) -> None:
    """An OpenCode whose plugin client lacks the request client the mark goes through: the
    call goes ahead (the driver would die on a throw) and the block is still taken back."""
    assert "_client: {" in WITHDRAWING
    out, hooks = _node_plugin(tmp_path, WITHDRAWING.replace("_client: {", "other: {"))
    actions = [r.action for r in hooks.journal()]
    assert actions == ["injected", "blocked", "blocked", "withdrawn", "withdrawn", "blocked"]
    assert out["patched"] == []


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_generated_plugin_applies_the_hook_programs_answers(tmp_path: Path) -> None:
    out, hooks = _node_plugin(tmp_path, DRIVER)
    records = hooks.journal()
    assert [r.action for r in records] == ["injected", "denied", "blocked", "injected",
                                           "injected"]  # fmt: skip
    assert out["after"] == f"[]\n\n{records[0].text}"
    assert out["denied"] == records[1].text and "missing ids: #2 'Write b.md'" in out["denied"]
    (prompt,) = out["sent"]
    reply = records[2].text.split(": ", 1)[1]
    assert prompt == {
        "path": {"id": "s1"},
        "body": {"noReply": True, "parts": [{"type": "text", "text": reply}]},
    }
    # a message of the user's gets the list as a text part of its own; the compaction request
    # gets it as context
    assert out["refusalParts"] == 1
    listed = records[0].text
    assert [(r.event, r.text) for r in records[3:]] == [
        ("UserPromptSubmit", listed), ("SessionStart", listed)
    ]  # fmt: skip
    assert out["typed"] == [{"id": "prt_1z", "sessionID": "s1", "messageID": "m2",
                             "type": "text", "text": listed, "synthetic": True}]  # fmt: skip
    assert out["compacting"] == [listed]
