"""The versions that decide whether two results are comparable.

Results are versioned by meaning, not by code bytes (inspect_evals' task version "N"): a comment,
a refactor or a rename changes no number, so it changes no version, forces no regeneration and
blocks no resume. A change that can move a number bumps one of these and adds a line to
CHANGELOG.md; committed summaries then carry their version, and the leaderboard shows it.
"""

from __future__ import annotations

#: What an episode is and how it is scored: the task, prompts, tools, detectors, checks, the
#: completion gate and the matcher. 4: semantic versions replace the code hash. 5: the
#: injected_tokens metric. 6: cc-tasks answers in the pinned Claude Code's own words.
TASK_VERSION = 6

#: How the simulated agent behaves (profiles, policy, wording, dialects, token counts): the same
#: seed gives the same episodes only under the same sim version. 4: it reads a Claude Code hook's
#: list and a Stop hook's refusal where the product shows them.
SIM_VERSION = 4
