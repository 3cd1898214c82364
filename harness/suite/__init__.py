"""The scenario suite: the scenario format (pydantic models, loader, selection), the generated
families, and the scenario's own semantics: the workspace it seeds (`workspace`), its outcome
checks (`checks`), its subtasks' completion rules judged from calls (`tracker`), and the check of
a scenario file (`scenario_check`: replay, gate, sensitivity, lint). It knows no runtime."""

from typing import TYPE_CHECKING

from harness._face import lazy

if TYPE_CHECKING:
    from harness.suite.scenario import SCENARIO_DIR, Scenario, ScenarioError, load_scenarios, select
    from harness.suite.tracker import TaskStateTracker
    from harness.suite.workspace import Workspace

__getattr__ = lazy(
    __name__,
    {
        "SCENARIO_DIR": "harness.suite.scenario",
        "Scenario": "harness.suite.scenario",
        "ScenarioError": "harness.suite.scenario",
        "TaskStateTracker": "harness.suite.tracker",
        "Workspace": "harness.suite.workspace",
        "load_scenarios": "harness.suite.scenario",
        "select": "harness.suite.scenario",
    },
)

__all__ = [
    "SCENARIO_DIR",
    "Scenario",
    "ScenarioError",
    "TaskStateTracker",
    "Workspace",
    "load_scenarios",
    "select",
]
