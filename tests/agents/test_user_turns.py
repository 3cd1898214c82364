"""A scripted user speaks to a shipping CLI through the product's own channel
(harness/agents/cli_episode.py): a turn due while the CLI works interrupts it at that moment
(`UserSpeaks`, then the session is resumed with the message); one left when it yields is sent
as a follow-up. Driven through the episode's bridge filter with a scripted model, no CLI."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig, Model, ModelOutput
from inspect_ai.tool import ToolInfo

from harness.agents.cli_episode import BudgetSpent, CliEpisode, UserSpeaks
from harness.episode.ledger import ClaimEvent, UserTurnEvent
from harness.products.catalog import PRODUCTS
from harness.suite.scenario import Scenario, load_scenarios, select
from harness.suite.workspace import Workspace

PRODUCT = PRODUCTS["cli/claude-code-todowrite"]
TOOLS = [ToolInfo(name="TodoWrite", description="the product's todo tool")]


def _scenario(name: str, **update: object) -> Scenario:
    return select(load_scenarios(), name)[0].model_copy(update=update)


@pytest.fixture
def workspaces() -> Iterator[list[Workspace]]:
    made: list[Workspace] = []
    yield made
    for workspace in made:
        workspace.cleanup()


def _episode(scenario: Scenario, tmp_path: Path, made: list[Workspace]) -> CliEpisode:
    workspace = Workspace.create(scenario)
    made.append(workspace)
    return CliEpisode(PRODUCT, scenario, workspace, tmp_path / "journal.jsonl")


class _Model:
    """The eval's model as the filter uses it: says `replies` in turn."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = replies

    async def generate(self, *args: Any) -> ModelOutput:
        return ModelOutput.from_content("scripted", self.replies.pop(0))


def _request(episode: CliEpisode, replies: list[str]) -> None:
    """One request of the CLI's main loop, answered by a model that says `replies` in turn."""
    model = cast(Model, _Model(replies))
    messages: list[ChatMessage] = [ChatMessageUser(content="the task")]
    asyncio.run(episode.filter(model, messages, TOOLS, None, GenerateConfig()))


def test_a_user_turn_due_while_the_cli_works_interrupts_it_after_its_turn(
    tmp_path: Path, workspaces: list[Workspace]
) -> None:
    # user_cancels: "Skip the README" after turn 2
    episode = _episode(_scenario("user_cancels"), tmp_path, workspaces)
    for _ in range(2):
        _request(episode, ["working"])
    assert not any(isinstance(s, UserTurnEvent) for s in episode.slots)
    with pytest.raises(UserSpeaks) as speaks:
        _request(episode, ["never asked"])
    assert speaks.value.message == "Skip the README, we don't need it any more."
    (event,) = [s for s in episode.slots if isinstance(s, UserTurnEvent)]
    assert (event.turn, event.action, event.subtask) == (2, "cancel", "readme")
    assert "readme" not in {s.id for s in episode.tracker.active}
    assert episode.turn == 2  # the interrupted request was no turn
    _request(episode, ["working"])  # the resumed session goes on; the user said it once
    assert episode.turn == 3 and episode.follow_up() is None


def test_at_the_turn_budget_the_user_turn_is_recorded_and_the_budget_ends_the_episode(
    tmp_path: Path, workspaces: list[Workspace]
) -> None:
    episode = _episode(_scenario("user_cancels", max_turns=2), tmp_path, workspaces)
    for _ in range(2):
        _request(episode, ["working"])
    with pytest.raises(BudgetSpent):
        _request(episode, ["never asked"])
    assert [s.turn for s in episode.slots if isinstance(s, UserTurnEvent)] == [2]


def test_a_user_turn_left_when_the_cli_yields_is_its_follow_up(
    tmp_path: Path, workspaces: list[Workspace]
) -> None:
    # user_adds_csv speaks after turn 2; the CLI answers at turn 1 without a tool call
    episode = _episode(_scenario("user_adds_csv"), tmp_path, workspaces)
    _request(episode, ["All tasks are complete."])
    message = episode.follow_up()
    assert message is not None and message.startswith("Also export an index of the docs")
    claim, user = episode.slots[-2:]
    assert isinstance(claim, ClaimEvent) and claim.continued and not claim.blocked
    assert isinstance(user, UserTurnEvent) and (user.turn, user.action) == (1, "add")
    assert "index" in {s.id for s in episode.tracker.active}
    assert episode.follow_up() is None  # the answer was taken; nothing more to say


def test_without_user_turns_the_cli_is_never_interrupted(
    tmp_path: Path, workspaces: list[Workspace]
) -> None:
    episode = _episode(_scenario("main_and_test"), tmp_path, workspaces)
    for _ in range(3):
        _request(episode, ["working"])
    _request(episode, ["All tasks are complete."])
    assert episode.follow_up() is None
    assert not any(isinstance(s, UserTurnEvent) for s in episode.slots)
