"""The loop's switches as policies: each variant switch (declared in
`harness/todo/variants.py` SWITCHES) installs small objects the agent loop calls at its steps, so
a new switch is its declaration and its policy (`@installed_by`), not a new branch in the loop
(inspect's `react()` takes `on_continue`, `attempts` and `compaction` the same way). Every
hook's default does nothing.

The steps: `system_text` (the prompt of each turn, asked once per model call), `before_turns`
(once, before the first), `extend` (a spent budget), `after_todo_update` (an accepted todo
call), `continue_instead` (a final message: go on instead of judging it) and `review` (a final
message judged: a refusal or None).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, Protocol, TypeVar

from inspect_ai.model import ChatMessageUser

from harness.episode import prompts
from harness.episode.ending import Ending
from harness.episode.gate import verdict as gate
from harness.episode.ledger import ExtensionEvent, InjectionEvent, NudgeEvent
from harness.todo import render
from harness.todo.variants import SWITCHES, Variant
from harness.tokens import text_tokens

if TYPE_CHECKING:
    from inspect_ai.model import ChatMessage, Model

    from harness.episode.gate.heuristic import HeuristicTracker
    from harness.episode.ledger import Ledger
    from harness.episode.tools import Episode
    from harness.suite.scenario import Scenario

#: CompletionLoop: answers refused for doing nothing, at most, per episode
MAX_NUDGES = 3
#: LoopController: at most this many extensions, each max(MIN_EXTENSION, max_turns / 4) turns
MAX_EXTENSIONS = 3
MIN_EXTENSION = 5


class Loop(Protocol):
    """What a policy reads and calls of the agent loop (`harness/episode/loop.py`), named here
    so the loop imports its policies and not the other way round."""

    episode: Episode
    scenario: Scenario
    history: list[ChatMessage]
    #: the deployable gate's tracker, once a plan is deployed
    deployed: HeuristicTracker | None
    #: tools that have succeeded
    called: set[str]
    tool_names: list[str]

    @property
    def ledger(self) -> Ledger: ...

    async def plan_intent(self, model: Model) -> None: ...

    def deploy(
        self, turn: int, texts: list[str], source: Literal["todo_list", "planner"]
    ) -> None: ...


class Policy:
    """A switch of the agent loop (see the module docstring)."""

    def system_text(self, loop: Loop, text: str) -> str:
        return text

    async def before_turns(self, loop: Loop, model: Model) -> None:
        return None

    def extend(self, loop: Loop, turn: int, budget: int, progress: int) -> tuple[int, int]:
        return budget, progress

    def after_todo_update(self, loop: Loop, turn: int) -> None:
        return None

    def continue_instead(self, loop: Loop, turn: int) -> bool:
        return False

    def review(self, loop: Loop, text: str, ending: Ending) -> gate.Refusal | None:
        return None


P = TypeVar("P", bound=type[Policy])

#: each switch's policies, in the order the loop consults them: the order of their classes here
INSTALLED: list[tuple[str, type[Policy]]] = []


def installed_by(switch: str) -> Callable[[P], P]:
    """The policy class the decorator is on is installed by this switch (ValueError for a name
    SWITCHES does not declare)."""
    if switch not in SWITCHES:
        raise ValueError(f"no variant switch '{switch}' is declared (harness/todo/variants.py)")

    def install(policy: P) -> P:
        INSTALLED.append((switch, policy))
        return policy

    return install


@installed_by("inject")
class InjectList(Policy):
    """L4: the rendered list in the system prompt before every model call."""

    def system_text(self, loop: Loop, text: str) -> str:
        block = prompts.INJECTED_LIST.format(rendered=render(loop.episode.store.items))
        loop.ledger.events.append(
            InjectionEvent(
                turn=loop.episode.turn, source="prompt", chars=len(block), tokens=text_tokens(block)
            )
        )
        return text + "\n\n" + block


@installed_by("planner")
class IntentPlanner(Policy):
    """+planner: one structured-output call plans the request before the first turn."""

    async def before_turns(self, loop: Loop, model: Model) -> None:
        await loop.plan_intent(model)


@installed_by("loop-controller")
class LoopController(Policy):
    """+loop-controller: a spent budget grows by a bounded step while the deployed tracker (the
    heuristic one, else the oracle's) has ticked more since the last look."""

    def extend(self, loop: Loop, turn: int, budget: int, progress: int) -> tuple[int, int]:
        ticked = (
            loop.deployed.snapshot()["done"]
            if loop.deployed is not None
            else len(loop.episode.tracker.done)
        )
        extensions = len(loop.ledger.of(ExtensionEvent))
        if ticked <= progress or extensions >= MAX_EXTENSIONS:
            return budget, progress
        budget += max(MIN_EXTENSION, loop.scenario.max_turns // 4)
        loop.ledger.events.append(ExtensionEvent(turn=turn - 1, budget=budget))
        return budget, ticked


@installed_by("heuristic")
class DeployFirstList(Policy):
    """+heuristic: without a planner's plan, the agent's first non-empty todo list becomes the
    deployed plan."""

    def after_todo_update(self, loop: Loop, turn: int) -> None:
        if loop.deployed is not None:
            return
        texts = [item.text for item in loop.episode.store.items]
        if texts:
            loop.deploy(turn, texts, "todo_list")


@installed_by("completion-loop")
class CompletionLoop(Policy):
    """+completion-loop: an answer before any tool has succeeded does not end the run."""

    def continue_instead(self, loop: Loop, turn: int) -> bool:
        if loop.called or len(loop.ledger.of(NudgeEvent)) >= MAX_NUDGES:
            return False
        loop.ledger.events.append(NudgeEvent(turn=turn))
        loop.history.append(ChatMessageUser(content=prompts.NOTHING_DONE))
        return True


@installed_by("gate")
class OracleGate(Policy):
    """+gate: a claim of "done" is refused while a subtask the scenario names is not ticked."""

    def review(self, loop: Loop, text: str, ending: Ending) -> gate.Refusal | None:
        return gate.review(text, ending, loop.episode.tracker, loop.tool_names)


@installed_by("heuristic")
class HeuristicGate(Policy):
    """+heuristic: the same refusal, over the deployed plan."""

    def review(self, loop: Loop, text: str, ending: Ending) -> gate.Refusal | None:
        return gate.review(text, ending, loop.deployed, loop.tool_names)


def policies_for(variant: Variant) -> list[Policy]:
    """A variant's switches as policies, in the order the loop consults them (one gate
    reviews: `Variant` refuses +gate with +heuristic)."""
    return [policy() for switch, policy in INSTALLED if variant.has(switch)]
