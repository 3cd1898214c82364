"""The simulated agent: perfect when faultless, faults accounted exactly, blind to the variant."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, EvalSample

from harness.episode.record import EpisodeRecord
from harness.metrics import COST_METRICS
from harness.models.sim.profiles import ProfileError, load_profile
from harness.run.task import build_task
from harness.todo.variants import HEADLINE, products
from tests.helpers import ROOT

SIM_DIR = ROOT / "harness" / "models" / "sim"
FAULT_METRICS = (
    "dropped_todos",
    "lost_history",
    "mutated_text",
    "id_churn",
    "invented_todos",
    "false_todo_completions",
    "fake_tool_calls",
)


def run_all(
    model: str,
    tmp_path: Path,
    variants: tuple[str, ...] = HEADLINE,
    epochs: int = 1,
    **model_args: object,
) -> list[EvalLog]:
    logs = eval(
        [build_task(v) for v in variants],
        model=model,
        model_args=model_args,
        epochs=epochs,
        display="none",
        log_dir=str(tmp_path),
        max_tasks=len(variants),
    )
    assert all(log.status == "success" for log in logs)
    return logs


@pytest.mark.heavy
@pytest.mark.parametrize("variants", [HEADLINE, products()], ids=["headline", "products"])
def test_oracle_is_perfect_on_every_variant_and_scenario(
    tmp_path: Path, variants: tuple[str, ...]
) -> None:
    for log in run_all("sim/oracle", tmp_path, variants=variants):
        for sample in log.samples or []:
            value = sample.scores["todo_scorer"].value  # type: ignore[index]
            assert isinstance(value, dict)
            faults = {
                k: v
                for k, v in value.items()
                if v and k != "task_success" and k not in COST_METRICS
            }
            assert value["task_success"] == 1, (log.eval.metadata, sample.id)
            assert faults == {}, (log.eval.metadata, sample.id, faults)


def store_unsure(sample: EvalSample) -> bool:
    """Whether the simulated agent marked a turn's fault record as resting on a guess: a write
    with faults whose result compaction hid (so it cannot know whether a design refused it)."""
    return any(
        (event.output.message.metadata or {}).get("sim_store_unsure")
        for event in sample.events
        if isinstance(event, ModelEvent)
    )


def injected_faults(sample: EvalSample) -> tuple[Counter[str], Counter[str]]:
    """(faults that reached an accepted state, what the scorer counted) for one episode.

    Faults are read from the model events, which keep every turn; the sample's messages lose
    the turns that compaction removed.
    """
    score = sample.scores["todo_scorer"]  # type: ignore[index]
    assert isinstance(score.value, dict) and score.metadata
    accepted = {
        e["call_id"]
        for e in sample.store_as(EpisodeRecord).ledger_data()["events"]
        if e["kind"] == "todo" and e["accepted"]
    }
    injected: Counter[str] = Counter()
    for event in sample.events:
        if not isinstance(event, ModelEvent):
            continue
        for fault in (event.output.message.metadata or {}).get("sim_faults", []):
            metric = fault["metric"]
            if metric == "fake_tool_calls" or (metric and fault["call_id"] in accepted):
                injected[metric] += 1
    scored = Counter({m: int(score.value[m]) for m in FAULT_METRICS if score.value[m]})
    return injected, scored


def check_fault_record(
    logs: list[EvalLog], where: str, unsure_share: float = 0.1
) -> tuple[Counter[str], int]:
    """Every episode's fault record equals what the scorer counted, except in an episode the
    sim marked unsure (see `store_unsure`); returns the scored totals and the unsure count."""
    totals: Counter[str] = Counter()
    unsure = episodes = 0
    for log in logs:
        label = (log.eval.metadata or {})["variant"]
        for sample in log.samples or []:
            episodes += 1
            injected, scored = injected_faults(sample)
            totals += scored
            if store_unsure(sample):
                unsure += 1
                continue
            assert injected == scored, (where, label, sample.id, sample.epoch)
    # a record that is often "unsure" would prove little (a whole suite: at most 1 in 10)
    assert unsure <= unsure_share * episodes, (where, unsure, episodes)
    return totals, unsure


#: the profiles and seeds the fault record is checked on (one test each, so xdist spreads them
#: over cores), each run the whole suite under every headline design (about 30 s): the seeds
#: where the record once failed (sloppy 1 and 3, careful 3), one of the profile that slips
#: most, one of the agent in its own words. 16 runs (five and three seeds) were a third of
#: make test-slow's time; the seeds left out all held on 2026-12-05 (chaotic 2 and sloppy 0
#: again on 2026-12-06, then left out for CI's 30 minutes; chaotic 1 held in every CI run until
#: it was left out for the four concurrent CLI episodes' test). The oracle injects nothing:
#: test_oracle_is_perfect_on_every_variant_and_scenario holds it to zero faults on every
#: scenario and every design, which is this check for it.
FAULT_RECORD_RUNS = [
    ("chaotic", 0),
    *(("sloppy", seed) for seed in (1, 3)),
    ("careful", 3),
    ("own-words", 0),
]


@pytest.mark.heavy
@pytest.mark.parametrize(("profile", "seed"), FAULT_RECORD_RUNS)
def test_scorers_count_exactly_the_injected_faults_that_reached_the_store(
    tmp_path: Path, profile: str, seed: int
) -> None:
    """Per episode, for every shipped scenario x every headline variant, on one profile and
    seed (FAULT_RECORD_RUNS in make test-slow)."""
    totals, _ = check_fault_record(
        run_all(f"sim/{profile}", tmp_path, seed=seed), f"{profile} seed {seed}"
    )
    if profile == "chaotic":
        # its run must exercise every detector, or the equality proves little (each of seeds
        # 0-4 fires every one at least once)
        assert all(totals[m] > 0 for m in FAULT_METRICS), totals


@pytest.mark.slow
@pytest.mark.parametrize(("profile", "seed"), [("sloppy", 3)])
def test_the_fault_record_holds_where_it_once_failed(
    tmp_path: Path, profile: str, seed: int
) -> None:
    """The fast slice for make test: compaction (a stale memory: a completed item lost, a
    second tick, texts written back from before a hidden write) and config_migration (a wrong
    result that breaks the subtasks after it), where sim/sloppy's record was wrong (seeds 1
    and 3, and careful's 3; make test-slow runs all three on the whole suite)."""
    logs = eval(
        [build_task(v, scenarios="compaction,config_migration") for v in HEADLINE],
        model=f"sim/{profile}",
        model_args={"seed": seed},
        display="none",
        log_dir=str(tmp_path),
        max_tasks=len(HEADLINE),
    )
    assert all(log.status == "success" for log in logs)
    # compaction is where a hidden result makes the record unsure: at most its 6 episodes
    check_fault_record(logs, f"{profile} seed {seed}", unsure_share=0.5)


def test_the_simulated_agent_never_sees_the_variant() -> None:
    source = "\n".join(p.read_text() for p in SIM_DIR.glob("*.py"))
    for module in ("harness.episode.loop", "harness.episode.tools", "harness.todo.variants"):
        assert module not in source, module
    words = re.sub(r"\bharness(\.\w+)+", "", source)  # module paths (`episode.gate.planner`)
    for word in (
        "variant",
        "Variant",
        "inject",
        "gate",
        "LEVELS",
        "label",
        "L0",
        "L1",
        "L2",
        "L3",
        "L4",
    ):
        assert not re.search(rf"\b{re.escape(word)}\b", words), word


def test_profiles_and_overrides() -> None:
    assert load_profile("oracle").drop == 0
    assert load_profile("sloppy", {"drop": 0.5, "seed": 7}).drop == 0.5
    with pytest.raises(ProfileError, match="unknown sim profile 'nope'"):
        load_profile("nope")
    with pytest.raises(ProfileError, match="field 'drop'"):
        load_profile("sloppy", {"drop": 3})
    with pytest.raises(ProfileError, match="field 'dropp'"):
        load_profile("sloppy", {"dropp": 0.1})


def test_profile_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text("drop: 0.25\nmutate: 0.1\n")
    profile = load_profile(f"file:{path}")
    assert (profile.name, profile.drop, profile.mutate) == ("mine", 0.25, 0.1)


def one_generated_episode(
    tmp_path: Path, variant: str, family: str, model: str, **model_args: object
) -> EvalSample:
    """One episode of a generated scenario family (`family`: its YAML body) under a variant."""
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "family.yaml").write_text(family, encoding="utf-8")
    (log,) = eval(
        build_task(variant, scenario_dir=str(suite)),
        model=model,
        model_args={"seed": 0, "scenario_dir": str(suite), **model_args},
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    (sample,) = log.samples or []
    return sample


def test_a_refusal_that_shows_the_list_gets_a_resend_copied_from_it(tmp_path: Path) -> None:
    """Under L1 a 50-item rewrite from memory slips and is refused (must fire); the repair that
    follows copies the list the refusal showed, so it is accepted: no two refused rewrites in a
    row, where the agent once resent a fresh slip every turn until its turns ran out."""
    sample = one_generated_episode(
        tmp_path, "L1-textlock+uncapped", "family: per_file\nsizes: [50]\n", "sim/sloppy",
        repair=1.0,
    )  # fmt: skip
    outcomes = [
        message.error is None
        for message in sample.messages
        if message.role == "tool" and message.function == "todo"
    ]
    refused = outcomes.count(False)
    assert refused >= 3, outcomes  # long lists written from memory do slip
    assert all(a or b for a, b in zip(outcomes, outcomes[1:], strict=False)), outcomes


@pytest.mark.parametrize("variant", ["L0-rewrite", "L3-granular"])
def test_a_refusal_that_names_the_cap_is_heeded(variant: str, tmp_path: Path) -> None:
    """A 30-item plan under the 20-item cap is refused (must fire: the agent does not know the
    cap beforehand); after the refusal names the cap, no update exceeds it again and the agent
    works on, where it once re-added every unlisted item each turn (L3/L4, over a hundred
    refusals per episode) or forgot its refused plan and claimed done (L0-L2)."""
    family = "family: per_file\nsizes: [30]\nuser_changes: 1\n"
    sample = one_generated_episode(tmp_path, variant, family, "sim/oracle")
    capped = [
        message.error is not None and "todos allowed" in message.error.message
        for message in sample.messages
        if message.role == "tool" and message.function in ("todo", "add_todo")
    ]
    first_refusal = capped.index(True)
    # one refused plan (a rewrite), or the plan's adds past 20 in its own turn (granular)
    expected = 1 if variant == "L0-rewrite" else 30 - 20
    assert sum(capped) == expected, capped
    assert not any(capped[first_refusal + expected :]), capped
    value = sample.scores["todo_scorer"].value if sample.scores else None
    assert isinstance(value, dict) and value["task_success"] == 1.0


def test_a_refusal_that_asks_for_add_todo_is_heeded(tmp_path: Path) -> None:
    """L2 refuses a rewrite that brings a new id ("use add_todo"). A 20-item list is full when
    the user asks for a 21st file, so the agent does it without an item; after a cancellation
    frees a place, its next rewrite carries the new item and is refused (must fire). From then
    on it adds with add_todo, where it once re-sent the new row with every rewrite."""
    family = "family: per_file\nsizes: [20]\nuser_changes: 2\n"
    sample = one_generated_episode(tmp_path, "L2-whitelist", family, "sim/oracle")
    todo = [m for m in sample.messages if m.role == "tool" and m.function in ("todo", "add_todo")]
    unknown = [
        i for i, m in enumerate(todo) if m.error is not None and "unknown ids" in m.error.message
    ]
    assert len(unknown) == 1, [m.error.message[:80] for m in todo if m.error]
    later_adds = [m for m in todo[unknown[0] :] if m.function == "add_todo" and m.error is None]
    assert later_adds


@pytest.mark.parametrize(
    ("error", "believed"),
    [
        ("Only one task can be in_progress at a time (got #2, #1).", "in_progress"),  # fires
        ("No todo with id #9 (existing ids: #1, #2, #3).", "pending"),  # must not
    ],
)
def test_a_start_refused_for_another_active_item_teaches_which(
    error: str, believed: str, tmp_path: Path
) -> None:
    """The store had #2 in progress unbeknown to the agent; the refusal of its start of #1
    names #2, so the agent now believes #2 is in progress (and will settle it before starting
    #1 again) instead of re-sending the same start every turn. Other refusals teach nothing."""
    import random

    from inspect_ai.model import (
        ChatMessage,
        ChatMessageAssistant,
        ChatMessageTool,
        ChatMessageUser,
    )
    from inspect_ai.tool import ToolCall, ToolCallError

    from harness.models.sim.memory import Memory
    from harness.models.sim.policy import SimPolicy
    from harness.suite.scenario import load_scenarios

    (tmp_path / "three.yaml").write_text(
        "family: per_file\nseed: 0\nsizes: [3]\n", encoding="utf-8"
    )
    (scenario,) = load_scenarios(tmp_path)
    memory = Memory(scenario=scenario)
    policy = SimPolicy(load_profile("oracle"), memory, random.Random(0))
    tools = {"add_todo", "update_todo_status", "rename_todo", "delete_todo", "list_todos"}
    history: list[ChatMessage] = [ChatMessageUser(content=scenario.prompt)]
    policy.observe(history, "", tools)
    plan = policy.decide(tools)
    calls = [ToolCall(id=f"a{i}", function=f, arguments=a) for i, (f, a) in enumerate(plan.calls)]
    history.append(ChatMessageAssistant(content="", tool_calls=calls))
    history += [
        ChatMessageTool(content=f"Added #{i + 1}: {c.arguments['text']}", tool_call_id=c.id,
                        function=c.function)
        for i, c in enumerate(calls)
    ]  # fmt: skip
    policy.observe(history, "", tools)  # the agent's next turn: it has seen the adds
    start = ToolCall(id="s", function="update_todo_status",
                     arguments={"id": "1", "status": "in_progress"})  # fmt: skip
    history.append(ChatMessageAssistant(content="", tool_calls=[start]))
    history.append(
        ChatMessageTool(content="", tool_call_id="s", function="update_todo_status",
                        error=ToolCallError(type="unknown", message=error))
    )  # fmt: skip
    policy.observe(history, "", tools)
    assert {i.id: i.status for i in memory.seen or []}["2"] == believed


@pytest.mark.parametrize(
    "design",
    ["cc-todowrite", "codex-plan", "inspect-todo_write", "opencode-todowrite", "gemini-writetodos"],
)
def test_the_fault_record_holds_on_a_product_s_id_less_list(tmp_path: Path, design: str) -> None:
    """A product's full-list tool writes no ids: the sim's renumbering cannot reach the list,
    so its record must not claim id churn there (it did, and the CLI rows' check failed)."""
    logs = eval(
        build_task(design, scenarios="long_list"),
        model="sim/sloppy",
        display="none",
        log_dir=str(tmp_path),
    )
    assert all(log.status == "success" for log in logs)
    check_fault_record(logs, design, unsure_share=0.0)
