"""todo-bench: how LLM agents corrupt their own task lists, measured from state.

The package is grouped into wings (the README's "Layout" is the map) over a ground floor of
single modules (cleanup, errors, filekind, matcher, metrics, paths, ports, progress, storage,
tokens, versions, and the private _face and _inspect_private): `products` (each shipping coding
agent declared once: its tools, folders, record and its parser, extension point, switches), `suite`
(scenarios), `todo` (designs), `episode` (the agent loop and its gate), `sessions` (which
product a session record is, and todo-bench's own logs), `hooks` (the seed's fixes as Claude
Code hooks), `scoring`,
`models` (the simulated agent, providers), `audit` (real sessions), `results` (the published
summary, pure data), `stats` (the statistics of runs), `publishing` (the leaderboard's formats,
the site, submissions), `agents` (the shipping CLIs run as variants), `run` (tasks, runner,
`run_benchmark`) and `commands` (the `todo-bench` command line; "CLI" elsewhere in the package
means a shipping agent's).
"""

from __future__ import annotations

#: typing's own flag costs the import of typing (and re): mypy reads this one the same way
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def __getattr__(name: str) -> Path:
    """`PACKAGE_DIR`, the package's own folder (`harness/` in a checkout, in site-packages when
    installed), made on first use: importing pathlib costs every hook call about 15 ms, and the
    hook program's warm path (`hooks/warm.py`) needs none of it."""
    if name != "PACKAGE_DIR":
        raise AttributeError(f"module 'harness' has no attribute {name!r}")
    from pathlib import Path

    globals()[name] = found = Path(__file__).resolve().parent
    return found
