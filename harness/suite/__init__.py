"""The scenario suite: the scenario format (pydantic models, loader, selection) and the
generated families. It knows no runtime."""

from typing import TYPE_CHECKING

from harness._face import lazy

if TYPE_CHECKING:
    from harness.suite.scenario import SCENARIO_DIR, Scenario, ScenarioError, load_scenarios, select

__getattr__ = lazy(
    __name__,
    {
        "SCENARIO_DIR": "harness.suite.scenario",
        "Scenario": "harness.suite.scenario",
        "ScenarioError": "harness.suite.scenario",
        "load_scenarios": "harness.suite.scenario",
        "select": "harness.suite.scenario",
    },
)

__all__ = [
    "SCENARIO_DIR",
    "Scenario",
    "ScenarioError",
    "load_scenarios",
    "select",
]
