"""todo-bench: how LLM agents corrupt their own task lists, measured from state.

The package is grouped into wings (see docs/extending.md): `suite` (scenarios), `todo` (designs),
`episode` (the agent loop and its gate), `scoring`, `models` (the simulated agent, providers),
`results` (the published summary and its renderings), `run` (tasks, runner, `run_benchmark`),
`audit` (real sessions) and `cli`.
"""

from pathlib import Path

#: the package's own folder (`harness/` in a checkout, in site-packages when installed)
PACKAGE_DIR = Path(__file__).resolve().parent
