"""A scenario's compaction through a shipping CLI's own command (harness/agents/cli_episode.py):
at the scenario's turn the CLI is interrupted (`CompactNow`), the product's compaction request
goes to the model uncounted as a `compaction` event, and a product that passes the command to
the model as a message ends the episode (`NotCompacted`). Driven through the episode's bridge
filter with a scripted model, no CLI; which rows take a compaction is in
tests/suite/test_agent_ready.py, the real Claude Code compacting in test_real_cli.py."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig, Model, ModelOutput
from inspect_ai.tool import ToolInfo

from harness.agents.cli_episode import CliEpisode, CompactNow, NotCompacted
from harness.agents.solver import _compactions_disagree
from harness.episode.ledger import CompactionEvent
from harness.products.catalog import PRODUCTS
from harness.suite.scenario import Compaction, Scenario, load_scenarios, select
from harness.suite.workspace import Workspace

TOOLS = [ToolInfo(name="TodoWrite", description="the product's todo tool")]
ASKED = "Summarise the conversation in <analysis> and <summary> tags."


class _Model:
    """The eval's model as the filter uses it: counts what it was asked."""

    def __init__(self) -> None:
        self.asked = 0

    async def generate(self, *args: Any) -> ModelOutput:
        self.asked += 1
        return ModelOutput.from_content("scripted", "working")


@pytest.fixture
def made() -> Iterator[list[Workspace]]:
    workspaces: list[Workspace] = []
    yield workspaces
    for workspace in workspaces:
        workspace.cleanup()


def _episode(made: list[Workspace], tmp_path: Path, at_turn: int = 2) -> CliEpisode:
    scenario: Scenario = select(load_scenarios(), "main_and_test")[0].model_copy(
        update={"compaction": Compaction(at_turn=at_turn, keep_last=2)}
    )
    workspace = Workspace.create(scenario)
    made.append(workspace)
    product = PRODUCTS["cli/claude-code-todowrite"]
    return CliEpisode(product, scenario, workspace, tmp_path / "journal.jsonl")


def _request(episode: CliEpisode, model: _Model, last: str = "the task") -> None:
    messages: list[ChatMessage] = [ChatMessageUser(content="the task")]
    if last != "the task":
        messages.append(ChatMessageUser(content=last))
    asyncio.run(episode.filter(cast(Model, model), messages, TOOLS, None, GenerateConfig()))


def test_the_cli_is_interrupted_after_the_scenario_s_turn_and_its_compaction_is_no_turn(
    made: list[Workspace], tmp_path: Path
) -> None:
    episode, model = _episode(made, tmp_path), _Model()
    for _ in range(2):
        _request(episode, model)
    with pytest.raises(CompactNow):
        _request(episode, model)
    assert (episode.turn, model.asked) == (2, 2)  # the interrupted request was no turn
    episode.start_compaction()
    _request(episode, model, ASKED)
    _request(episode, model, ASKED)  # asked again (an answer without the tags): one event
    episode.end_compaction()
    assert model.asked == 4 and episode.turn == 2
    (event,) = [s for s in episode.slots if isinstance(s, CompactionEvent)]
    assert (event.turn, event.dropped_messages) == (2, 1)
    _request(episode, model)  # the task goes on; the compaction is not due again
    assert episode.turn == 3 and episode.compactions_done() == 1
    assert _compactions_disagree(1, episode) == []


def test_without_a_compaction_due_the_cli_is_never_interrupted(
    made: list[Workspace], tmp_path: Path
) -> None:
    episode, model = _episode(made, tmp_path, at_turn=9), _Model()
    for _ in range(5):
        _request(episode, model)
    assert episode.turn == 5 and episode.compactions_done() == 0


def test_a_command_passed_to_the_model_as_a_message_is_no_compaction(
    made: list[Workspace], tmp_path: Path
) -> None:
    episode, model = _episode(made, tmp_path), _Model()
    episode.start_compaction()
    with pytest.raises(NotCompacted, match="sent its compaction command '/compact' to the model"):
        _request(episode, model, "/compact")
    assert model.asked == 0 and episode.compactions_done() == 0


def test_a_compaction_run_that_asked_nothing_is_no_compaction(
    made: list[Workspace], tmp_path: Path
) -> None:
    episode = _episode(made, tmp_path)
    episode.start_compaction()
    with pytest.raises(NotCompacted, match="made no compaction request"):
        episode.end_compaction()


def test_the_product_s_record_of_its_compactions_must_agree(
    made: list[Workspace], tmp_path: Path
) -> None:
    episode = _episode(made, tmp_path)
    assert _compactions_disagree(1, episode) == [
        "the product's record holds 1 compactions, the episode saw 0"
    ]
    assert _compactions_disagree(0, episode) == []


def test_a_compaction_the_product_makes_on_its_own_is_an_event_and_no_turn(
    made: list[Workspace], tmp_path: Path
) -> None:
    """Claude Code compacts by itself at its context threshold (a real model's long episode):
    its request for a summary, asked again or not, is one compaction event, counted as no turn,
    and the product's record of it then agrees."""
    episode, model = _episode(made, tmp_path, at_turn=9), _Model()
    _request(episode, model)
    _request(episode, model, ASKED)
    _request(episode, model, ASKED)  # asked again: the same compaction
    _request(episode, model)
    _request(episode, model, ASKED)  # a second one, after a turn
    assert episode.turn == 2 and model.asked == 5
    events = [s for s in episode.slots if isinstance(s, CompactionEvent)]
    assert [e.turn for e in events] == [1, 2]
    assert _compactions_disagree(2, episode) == []


def test_a_request_that_only_mentions_a_summary_is_a_turn(
    made: list[Workspace], tmp_path: Path
) -> None:
    episode, model = _episode(made, tmp_path, at_turn=9), _Model()
    _request(episode, model, "Write the <summary> section of the README.")
    assert episode.turn == 1 and episode.compactions_done() == 0


#: Codex CLI's, OpenCode's and Gemini CLI's own compaction requests, as the pinned binaries word
#: them: one
#: user message, no tools offered (tests/agents/test_binaries.py finds the words in the binaries)
OWN_REQUESTS = {
    "cli/codex": "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary "
    "for another LLM that will resume the task.",
    "cli/opencode": "Here is the conversation so far:\n\n<conversation>\n[User]: the task\n"
    "</conversation>\n\nCreate a new anchored summary from the conversation history in the "
    "<conversation> tags above so another coding agent can continue the work.",
    # its summary request; the verification after it (which asks for the snapshot again, not
    # in these words) is a side request
    "cli/gemini-cli": "Generate a new <state_snapshot> based on the provided history.\n\n"
    "First, reason in your scratchpad. Then, generate the updated <state_snapshot>.",
}


@pytest.mark.parametrize("name", list(OWN_REQUESTS))
def test_a_tool_less_compaction_in_the_product_s_words_is_an_event_and_no_turn(
    name: str, made: list[Workspace], tmp_path: Path
) -> None:
    scenario = select(load_scenarios(), "main_and_test")[0]
    workspace = Workspace.create(scenario)
    made.append(workspace)
    product = PRODUCTS[name]
    episode, model = CliEpisode(product, scenario, workspace, tmp_path / "j.jsonl"), _Model()
    tools = [ToolInfo(name=product.todo_tools[0], description="the product's todo tool")]

    def ask(messages: list[ChatMessage], offered: list[ToolInfo]) -> ModelOutput | None:
        return asyncio.run(
            episode.filter(cast(Model, model), messages, offered, None, GenerateConfig())
        )

    assert ask([ChatMessageUser(content="the task")], tools) is not None
    assert ask([ChatMessageUser(content=OWN_REQUESTS[name])], []) is not None
    # a tool-less request in other words (a title, a check) is the product's business
    assert ask([ChatMessageUser(content="Write a title for this conversation.")], []) is None
    assert ask([ChatMessageUser(content="the task")], tools) is not None
    assert (episode.turn, model.asked, episode.compactions_done()) == (2, 3, 1)
