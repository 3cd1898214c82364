"""What todo-bench adds to inspect (its extensions): importing this registers the `sim` and
`recover` model providers and the scorer (the inspect entry point, `todo_bench.todo_bench`,
imports it)."""

from harness._inspect_private import alias_registered
from harness.models.recover import RecoverModel
from harness.models.sim.provider import SimModel
from harness.scoring.scorer import todo_scorer

# A log records its scorer by its unqualified name ("todo_scorer"), and `inspect score` looks it
# up by that name alone; installed from a wheel, the scorer registers as "harness/todo_scorer",
# so re-scoring a log could not find it. The alias makes both names resolve. (inspect's registry
# offers no public call for an alias; tests/test_packaging.py re-scores a log from the wheel.)
alias_registered("scorer", "todo_scorer", todo_scorer)

__all__ = ["RecoverModel", "SimModel", "todo_scorer"]
