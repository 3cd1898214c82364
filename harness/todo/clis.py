"""The shipping coding agents the board runs as variants (`cli/...`): each is a vendor's CLI with
its own todo tool, driven through inspect-swe, and names the harness design that replays its
todo calls into the ledger (`cc-todowrite`, `cc-tasks`, `codex-plan`), so every detector applies
unchanged.

Pure data: how each is installed, found, switched and named. Running one is `harness/agents`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

#: where a CLI runs: this host (inspect's local sandbox) or a container (its docker sandbox);
#: `harness/agents/sandboxes.py`
SandboxKind = Literal["docker", "local"]


class CliProduct(BaseModel):
    """One shipping agent under one configuration of its todo tool."""

    model_config = ConfigDict(frozen=True)

    #: the variant's name on the board
    name: str
    title: str
    #: which CLI (one inspect-swe agent per CLI)
    cli: str
    #: the registered harness design that replays this product's todo calls
    design: str
    #: the npm package (pinned in scripts/agents/package.json) and where its platform binary is
    package: str
    #: the pinned version (scripts/agents/package.json); another one installed is refused
    version: str
    binary: str
    #: the product's own switches, set in the CLI's environment; recorded in run.json
    env: dict[str, str]
    #: the product's own config keys (Codex's `-c key=value`, values in TOML; OpenCode's config
    #: file keys, values in JSON); recorded in run.json beside `env` as `config_label` names them
    config: dict[str, str] = {}
    #: how run.json and the board name a config key (`{key}` is the key)
    config_label: str = "-c {key}"
    #: the product's todo tools, as it offers them to the model
    todo_tools: tuple[str, ...]
    #: the model id the CLI is told it talks to: an id it knows, so it offers its full tool set
    #: (the bridge answers with the eval's model whatever the id)
    model_config_id: str = "claude-sonnet-4-5"
    #: the seed's fixes installed as the product's hooks (`harness/hooks/`), by fix name
    hooks: tuple[str, ...] = ()
    #: commands the CLI needs on the host's PATH besides its binary (inspect-swe downloads a
    #: missing one, which an offline machine cannot), with the Debian package that has each
    requires: dict[str, str] = {}
    #: the product's own command that compacts its session, sent as the prompt of the resumed
    #: session at a scenario's compaction; None where its headless mode has none (`no_compaction`
    #: says why, and a scenario with a compaction is left out of the row with that reason)
    compact_command: str | None = None
    no_compaction: str = ""
    #: the words of the product's compaction request (its compaction command's, or its own at
    #: its context threshold), as the pinned binary writes them: a request whose last user
    #: message holds them all asks for the summary, and is no turn
    summary_request: tuple[str, ...]

    @property
    def switches(self) -> dict[str, str]:
        """Every switch the row sets, as run.json and the board show them."""
        labelled = {self.config_label.format(key=key): v for key, v in self.config.items()}
        return {**self.env, **labelled}

    @property
    def base(self) -> str:
        """The shipped product's row name, without hook switches."""
        return self.name.split("+")[0]


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
_CLAUDE = {
    "cli": "claude-code",
    "package": "@anthropic-ai/claude-code",
    "version": "2.1.332",
    "binary": "node_modules/@anthropic-ai/claude-code-linux-x64/claude",
    # its `/compact`, as the prompt of a resumed print-mode session (scripts/probe_compact.py)
    "compact_command": "/compact",
    "summary_request": ("<analysis>", "<summary>"),
}

#: what the Codex row sets, each by Codex's own config key: `update_plan` is hidden from a
#: headless run unless asked for; no analytics or OpenTelemetry metrics, no update check, no
#: feedback upload, no curated-plugins sync from GitHub, no web search (the machines have no
#: network but the bridge); its goal tools off, so `update_plan` is its one way to keep a list;
#: its shell not a login shell (a login shell's profile resets PATH, on which the episode puts
#: the helper command, `todo-bench-tool`)
_CODEX_CONFIG = {
    "tools.update_plan.enabled": "true",
    "allow_login_shell": "false",
    "analytics.enabled": "false",
    "check_for_update_on_startup": "false",
    "feedback.enabled": "false",
    "features.plugins": "false",
    "web_search": '"disabled"',
    "features.goals": "false",
}

#: what the OpenCode row sets, each by OpenCode's own documented switch: no update check, no
#: models.dev catalog download (its binary carries a catalog), no language-server download, no
#: default plugins (environment flags); no update check, no session sharing, no web tools
#: (config keys, values in JSON; the machines have no network but the bridge). Its headless run
#: offers `todowrite` without a switch
_OPENCODE_ENV: dict[str, str] = {
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
}
_OPENCODE_CONFIG: dict[str, str] = {
    "autoupdate": "false",
    "share": '"disabled"',
    "permission.webfetch": '"deny"',
    "permission.websearch": '"deny"',
}

PRODUCTS: dict[str, CliProduct] = {
    p.name: p
    for p in (
        CliProduct(
            name="cli/claude-code-todowrite",
            title="Claude Code, TodoWrite (full-list rewrite)",
            design="cc-todowrite",
            env={**_QUIET, "CLAUDE_CODE_ENABLE_TASKS": "false"},
            todo_tools=("TodoWrite",),
            **_CLAUDE,
        ),
        CliProduct(
            name="cli/claude-code-tasks",
            title="Claude Code, TaskCreate / TaskUpdate (id-based)",
            design="cc-tasks",
            env={**_QUIET, "CLAUDE_CODE_ENABLE_TASKS": "true"},
            todo_tools=("TaskCreate", "TaskUpdate", "TaskList", "TaskGet"),
            **_CLAUDE,
        ),
        CliProduct(
            name="cli/codex",
            title="Codex CLI, update_plan (full-plan rewrite)",
            cli="codex",
            design="codex-plan",
            package="@openai/codex",
            version="0.171.0",
            binary="node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
            env={},
            config=_CODEX_CONFIG,
            todo_tools=("update_plan",),
            summary_request=("CONTEXT CHECKPOINT COMPACTION",),
            no_compaction="its headless `codex exec` has no compaction command (tried with "
            "0.171.0: `/compact` as the prompt of a resumed session reached the model as a "
            "message)",
            # a slug in Codex's own catalog that is not in its code mode (where the model
            # writes JavaScript instead of calling tools): exec_command, update_plan, ...
            model_config_id="gpt-5.4",
        ),
        CliProduct(
            name="cli/opencode",
            title="OpenCode, todowrite (full-list rewrite)",
            cli="opencode",
            design="opencode-todowrite",
            package="opencode-ai",
            version="1.18.33",
            binary="node_modules/opencode-linux-x64/bin/opencode",
            env=_OPENCODE_ENV,
            config=_OPENCODE_CONFIG,
            config_label="OPENCODE_CONFIG_CONTENT {key}",
            todo_tools=("todowrite",),
            # both its forms: a first summary, and one that updates the last
            summary_request=("Here is the conversation so far:", "<conversation>"),
            no_compaction="its headless `opencode run`, as inspect-swe runs it, has no "
            "compaction command (tried with 1.18.33: `/compact` as the prompt of a continued "
            "session reached the model as a message)",
            model_config_id="anthropic/claude-sonnet-4-5",
            # inspect-swe runs OpenCode with node and ripgrep beside it
            requires={"node": "nodejs", "rg": "ripgrep"},
        ),
    )
}
#: `--variants agents`
AGENTS: tuple[str, ...] = tuple(PRODUCTS)

#: a CLI row's switch on the board -> the hook fix it installs (`harness/hooks/fixes.py`):
#: the seed's L1, L2 and L4 and the two completion gates, named as the harness's own rows name
#: the same fixes (`L1-textlock`, `L2-whitelist`, `+inject`, `+gate`, `+heuristic`)
HOOK_SWITCHES: dict[str, str] = {
    "textlock": "textlock",
    "whitelist": "whitelist",
    "inject": "inject",
    "gate": "gate-oracle",
    "heuristic": "gate-heuristic",
}
#: the fixes that read and judge the product's TodoWrite list; the oracle gate judges the
#: scenario from the calls and the workspace, so it works on any product
_TODOWRITE_ONLY = ("textlock", "whitelist", "inject", "heuristic")
#: `--variants agents-hooks`: Claude Code's TodoWrite row with each fix, and with the stack,
#: beside the harness's own loop with the same fixes
AGENTS_HOOKS: tuple[str, ...] = (
    "cli/claude-code-todowrite",
    *(f"cli/claude-code-todowrite+{s}" for s in HOOK_SWITCHES),
    "cli/claude-code-todowrite+whitelist+inject+gate",
    "cli/claude-code-tasks",
    "cli/claude-code-tasks+gate",
    "L0-rewrite",
    "L1-textlock",
    "L2-whitelist",
    "L0-rewrite+inject",
    "L0-rewrite+gate",
    "L0-rewrite+heuristic",
    "L2-whitelist+inject+gate",
)


def hook_switches(product: CliProduct) -> tuple[str, ...]:
    """The hook switches a product's row takes (the hooks are Claude Code's settings)."""
    if product.cli != "claude-code":
        return ()
    if product.todo_tools == ("TodoWrite",):
        return tuple(HOOK_SWITCHES)
    return tuple(s for s in HOOK_SWITCHES if s not in _TODOWRITE_ONLY)


def with_hooks(product: CliProduct, switches: tuple[str, ...]) -> CliProduct:
    """The product with the fixes of the board's `switches` installed (in HOOK_SWITCHES'
    order); ValueError names a switch it does not take or a second gate."""
    wrong = [s for s in switches if s not in hook_switches(product)]
    if wrong:
        takes = ", ".join("+" + s for s in hook_switches(product)) or "none"
        raise ValueError(
            f"variant '{product.name}+{'+'.join(switches)}': {product.name} takes no "
            f"+{', +'.join(wrong)} (its hook switches: {takes})"
        )
    if {"gate", "heuristic"} <= set(switches):
        raise ValueError(
            f"variant '{product.name}+{'+'.join(switches)}': +gate (oracle) and +heuristic are "
            "two gates"
        )
    ordered = tuple(s for s in HOOK_SWITCHES if s in switches)
    if not ordered:
        return product
    return product.model_copy(
        update={
            "name": product.name + "".join(f"+{s}" for s in ordered),
            "title": f"{product.title} + hooks: {', '.join(ordered)}",
            "hooks": tuple(HOOK_SWITCHES[s] for s in ordered),
        }
    )
