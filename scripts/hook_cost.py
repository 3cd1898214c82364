"""What the Claude Code hooks cost per turn (docs/hooks.md): the wall time of one hook process
for each event with a realistic payload (a session with an eight-item list; the program by its
console script, as the settings name it), answered cold (`TODO_BENCH_HOOK_WARM=0`: the rules
imported by every call) and by the warm server (harness/hooks/warm.py), against a bare
`python -c pass`; and the tokens of the
context and refusals they add, by the harness's per-character estimate (`harness/tokens.py`,
calibrated on a real tokenizer; the board's `injected_tokens` uses it too).

`python scripts/hook_cost.py [--runs N] [--items N]` (default 20 runs per event, the eight-item
list; about 30 s on 2 cores). `--items N` makes the session's list N items long (generated
texts), for the cost's growth with the list.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness.episode.prompts import INJECTED_LIST
from harness.hooks import warm
from harness.hooks.hosts import DEFAULT, HOSTS
from harness.hooks.listlock import refusal
from harness.hooks.state import HookState, apply_list
from harness.todo.base import render
from harness.tokens import text_tokens

PLAN = [
    "List the files in the workspace",
    "Read config/settings.ini",
    "Write src/main.py with the parser",
    "Write tests/test_main.py",
    "Export the summary to exports/report.xlsx",
    "Rename notes.txt to notes.md",
    "Update README.md with the usage",
    "Verify the tests pass",
]
FIXES = "textlock,whitelist,inject,gate-heuristic"


def _todos(done: int) -> list[dict[str, str]]:
    return [
        {"content": t, "status": "completed" if i < done else "pending", "activeForm": t}
        for i, t in enumerate(PLAN)
    ]


def _long_plan(items: int) -> list[str]:
    return [f"Write section {i} of the quarterly report for region {i % 7}" for i in range(items)]


def _payloads(cwd: str) -> dict[str, dict[str, Any]]:
    base = {"session_id": "cost", "transcript_path": "", "cwd": cwd}
    todo = {"tool_name": "TodoWrite", "tool_input": {"todos": _todos(3)}}
    write = {"file_path": f"{cwd}/src/main.py", "content": "print(1)\n"}
    return {
        "PreToolUse TodoWrite (L1+L2 check)": base | {"hook_event_name": "PreToolUse"} | todo,
        "PostToolUse Write (inject + gate tick)": base
        | {"hook_event_name": "PostToolUse", "tool_name": "Write", "tool_input": write},
        "Stop (heuristic gate)": base
        | {"hook_event_name": "Stop", "stop_hook_active": False, "last_assistant_message": "Done."},
    }


def _time(command: list[str], payload: str, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, input=payload, capture_output=True, text=True, env=env, check=True)
    return (time.perf_counter() - start) * 1000


def _cell(times: list[float]) -> str:
    return f"{statistics.median(times):.0f} ({statistics.quantiles(times, n=10)[-1]:.0f})"


def _warm_up(program: str, env: dict[str, str], folder: Path) -> None:
    """One call starts the warm server; wait until it listens."""
    probe = {"session_id": "warm-up", "hook_event_name": "UserPromptSubmit", "prompt": "hi"}
    subprocess.run([program, FIXES], input=json.dumps(probe), text=True, env=env,
                   check=True, capture_output=True)  # fmt: skip
    end = time.monotonic() + 30
    while not any(folder.glob("*.sock")):
        if time.monotonic() > end:
            raise SystemExit("the warm server did not start within 30 s")
        time.sleep(0.1)
    time.sleep(1)  # its preload done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--items", type=int, default=None, help="a list of N generated items")
    options = parser.parse_args()
    runs = options.runs
    if options.items is not None:
        PLAN[:] = _long_plan(options.items)
    program = str(Path(sys.executable).parent / "todo-bench-hook")
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as sockets:
        env = {**os.environ, "TODO_BENCH_HOOK_STATE": tmp, "TODO_BENCH_HOOK_MAX_BLOCKS": "1000"}
        cold = {**env, warm.WARM: "0"}
        hot = {**env, warm.WARM_DIR: sockets}
        seed = _payloads(tmp)["PreToolUse TodoWrite (L1+L2 check)"] | {
            "hook_event_name": "PostToolUse"
        }
        subprocess.run([program, FIXES], input=json.dumps(seed), text=True, env=cold,
                       check=True, capture_output=True)  # fmt: skip
        _warm_up(program, hot, Path(sockets))
        print(f"| event | cold: median ms (p90) | warm: median ms (p90) |  (hook program: "
              f"{FIXES}; {runs} runs each, cold and warm alternating)")  # fmt: skip
        print("|---|---|---|")
        bare = [_time([sys.executable, "-c", "pass"], "", env) for _ in range(runs)]
        print(f"| bare `python -c pass` | {_cell(bare)} | |")
        for name, payload in _payloads(tmp).items():
            times: dict[str, list[float]] = {"cold": [], "warm": []}
            for _ in range(runs):
                times["cold"].append(_time([program, FIXES], json.dumps(payload), cold))
                times["warm"].append(_time([program, FIXES], json.dumps(payload), hot))
            print(f"| {name} | {_cell(times['cold'])} | {_cell(times['warm'])} |")
    state = HookState(session_id="cost")
    apply_list(state, HOSTS[DEFAULT], _todos(3))
    injected = INJECTED_LIST.format(rendered=render(state.items))
    dropped = refusal(state, ("whitelist",), HOSTS[DEFAULT], _todos(3)[:-1]) or ""
    print(
        f"\ninjected context, {len(PLAN)} items: {len(injected)} chars,"
        f" ~{text_tokens(injected)} tokens"
    )
    print(f"whitelist refusal (one item dropped): ~{text_tokens(dropped)} tokens")
    per_item = (text_tokens(injected) - text_tokens(INJECTED_LIST.format(rendered=""))) / len(PLAN)
    print(f"per item of the list: ~{per_item:.0f} tokens")


if __name__ == "__main__":
    main()
