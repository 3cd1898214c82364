"""What a shipping coding agent is, as the board runs it: the shape every product module fills.

A product module (`claude_code.py`, `codex.py`, `opencode.py`, ...) declares each fact once:
its npm package and binary, its todo tools and their dialect (and a full-list tool's backend,
`list_backend.py`), its file tools and shell, the folders it keeps for itself, where its own
session record lives (and its parser, beside it), its compaction words and command, its
extension mechanism and its switches, and how the board runs it (`cli_runner.py`). Everything
else (the agents runner, the designs, the session readers, the audit, the simulated agent's
dialects, `hooks install`, the docs' tables) reads them from here.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

#: the reason for every switch that keeps a product off the network
OFFLINE = "no network but the model's (the machines reach only inspect's bridge)"

#: where a CLI runs: this host (inspect's local sandbox) or a container (its docker sandbox);
#: `harness/agents/sandboxes.py`
SandboxKind = Literal["docker", "local"]


class ListDialect(BaseModel):
    """A product's full-list todo tool: the model sends the whole list, items without ids."""

    model_config = ConfigDict(frozen=True)

    #: the tool's name as the product offers it
    tool: str
    #: the argument that holds the list
    key: str
    #: the field of an entry that holds the item's text
    text: str
    #: further fields an entry must carry, filled with the item's text (Claude Code's
    #: `activeForm`, the step phrased as ongoing work)
    copies: tuple[str, ...] = ()
    #: further fields an entry must carry with a value of the writer's choosing, and the value
    #: the harness's writers (the simulated agent) give them (OpenCode's `priority`)
    fixed: tuple[tuple[str, str], ...] = ()

    def entries(self, items: list[tuple[str, str]]) -> dict[str, list[dict[str, str]]]:
        """The tool's arguments for a list of (text, status) items."""
        return {
            self.key: [
                {
                    self.text: text,
                    "status": status,
                    **{name: text for name in self.copies},
                    **dict(self.fixed),
                }
                for text, status in items
            ]
        }


class TaskTools(BaseModel):
    """A product's id-based todo tools (one item a call; ids from the backend)."""

    model_config = ConfigDict(frozen=True)

    create: str
    update: str
    #: the tools that only read the list
    reads: tuple[str, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return (self.create, self.update, *self.reads)


class FileTools(BaseModel):
    """A product's own file tools and the argument that names the file."""

    model_config = ConfigDict(frozen=True)

    write: str
    read: str
    edits: tuple[str, ...]
    path: str


class Shell(BaseModel):
    """A product's shell tool: its name, the argument holding the command line, and whether its
    schema asks for a description of the command."""

    model_config = ConfigDict(frozen=True)

    tool: str
    command: str
    described: bool = False


class ContextTags(BaseModel):
    """How the model reads what a hook adds (a refusal, the injected list): the tags the product
    puts around it and whether it escapes `<` and `>` inside."""

    model_config = ConfigDict(frozen=True)

    open: str
    close: str
    #: escaped inside (then the tags sit right around the hook's text); not escaped, the tags
    #: may hold the product's own words beside it (a reminder)
    escaped: bool = False


class Extension(BaseModel):
    """How a user extends the product (where todo-bench's fixes go), and what it can do."""

    model_config = ConfigDict(frozen=True)

    #: "hooks" (commands the product runs at its events) or "plugin" (code it loads)
    kind: Literal["hooks", "plugin"]
    #: the project file that declares them, relative to the project folder
    config: str
    #: what the product documents for it, in one line
    note: str
    #: what a user must do before the product runs what `hooks install` wrote ("" for nothing)
    notice: str = ""
    #: the product's names for the fixes' hook events (Claude Code's PreToolUse, PostToolUse,
    #: UserPromptSubmit, SessionStart, Stop), where it has its own (`harness/hooks/protocol.py`
    #: `Wire`); None: Claude Code's wire, names and answers
    events: dict[str, str] | None = None
    #: a hook's timeout in the hooks file, in units per second (1: seconds)
    timeout_per_second: int = 1
    #: a tool matcher is a regular expression searched in the tool's name (not a name)
    regex_matchers: bool = False
    #: a denial is the top-level `decision: deny` (not Claude Code's `permissionDecision`)
    flat_deny: bool = False
    #: keys of the hooks file's `hooks` section that are switches, not events
    config_fields: tuple[str, ...] = ()
    #: how the model reads a hook's added context (None: as the hook sent it)
    context: ContextTags | None = None


class CliProduct(BaseModel):
    """One shipping agent under one configuration of its todo tool (a row of the board)."""

    model_config = ConfigDict(frozen=True)

    #: the variant's name on the board
    name: str
    title: str
    #: which CLI (one inspect-swe agent per CLI)
    cli: str
    #: the registered harness design that replays this product's todo calls
    design: str
    #: the npm package (make agents installs it; scripts/agents/package-lock.json locks it) and
    #: where its platform binary is
    package: str
    #: the pinned version (`make agents-lock` renews the lock after a change); another one
    #: installed is refused
    version: str
    binary: str
    #: the product's own switches, set in the CLI's environment; recorded in run.json
    env: dict[str, str]
    #: the product's own config keys (Codex's `-c key=value`, values in TOML; OpenCode's config
    #: file keys, values in JSON); recorded in run.json beside `env` as `config_label` names them
    config: dict[str, str] = {}
    #: how run.json and the board name a config key (`{key}` is the key)
    config_label: str = "-c {key}"
    #: why the row departs from the product's default at each switch it sets (a key of `env`
    #: or `config`): a row runs the product as its users run it but where this says otherwise
    why: dict[str, str] = {}
    #: the product's todo tools, as it offers them to the model
    todo_tools: tuple[str, ...]
    #: the full-list tool's dialect, where the row's todo tool is one
    dialect: ListDialect | None = None
    #: the id-based tools, where the row's todo tools are those
    tasks: TaskTools | None = None
    #: the product's own file tools (None: it edits files through its shell) and its shell
    file_tools: FileTools | None = None
    shell: Shell
    #: the folders the product keeps for itself in a project (not the task's work)
    own_folders: tuple[str, ...]
    #: where it keeps its session record under the episode's HOME (a glob), in one line
    record: str
    #: how it is extended, and so where todo-bench's fixes go
    extension: Extension
    #: the model id the CLI is told it talks to: an id it knows, so it offers its full tool set
    #: (the bridge answers with the eval's model whatever the id)
    model_config_id: str = "claude-sonnet-4-5"
    #: the seed's fixes installed as the product's hooks (`harness/hooks/`), by fix name
    hooks: tuple[str, ...] = ()
    #: the board's hook switches the row takes (`catalog.HOOK_SWITCHES`' names: `+textlock`
    #: ...), each one measured to do in the product what it does in the loop (docs/hooks.md)
    hook_switches: tuple[str, ...] = ()
    #: commands the CLI needs on the host's PATH besides its binary (inspect-swe downloads a
    #: missing one, which an offline machine cannot), with the Debian package that has each
    requires: dict[str, str] = {}
    #: the product's own command that compacts its session, sent as the prompt of the resumed
    #: session at a scenario's compaction; None where its headless mode has none (`no_compaction`
    #: says why, and a scenario with a compaction is left out of the row with that reason)
    compact_command: str | None = None
    no_compaction: str = ""
    #: the product names each tool call itself, and the bridge names it another way (Gemini
    #: CLI: the Gemini API carries no call ids, so the bridge derives one from the call and the
    #: product makes its own): the episode pairs the model's calls, the bridge's and the
    #: product's record in the order made, each pair checked by its tool and arguments
    names_calls: bool = False
    #: why the row cannot run in the docker sandbox yet ("" where it can): a run that would put
    #: it there stops before it starts, saying so
    no_container: str = ""
    #: the words of the product's compaction request (its compaction command's, or its own at
    #: its context threshold), as the pinned binary writes them: a request whose last user
    #: message holds them all asks for the summary, and is no turn
    summary_request: tuple[str, ...]

    @model_validator(mode="after")
    def _every_switch_says_why(self) -> CliProduct:
        """A switch without its reason, or a reason for no switch, is a declaration error."""
        unsaid = sorted({*self.env, *self.config} - set(self.why))
        stale = sorted(set(self.why) - {*self.env, *self.config})
        if unsaid or stale:
            raise ValueError(
                f"{self.name}: every switch says why it departs from the product's default "
                f"(without a reason: {', '.join(unsaid) or 'none'}; reasons for no switch: "
                f"{', '.join(stale) or 'none'})"
            )
        return self

    @property
    def switches(self) -> dict[str, str]:
        """Every switch the row sets, as run.json and the board show them."""
        labelled = {self.config_label.format(key=key): v for key, v in self.config.items()}
        return {**self.env, **labelled}

    @property
    def base(self) -> str:
        """The shipped product's row name, without hook switches."""
        return self.name.split("+")[0]
