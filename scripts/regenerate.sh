#!/usr/bin/env bash
# Regenerate every committed simulated-agent result with the code as it stands: after a change
# that bumps the task or sim version (harness/versions.py, CHANGELOG.md), the committed summaries
# carry the old one and tests/results/test_committed_results.py says so. 25-30 minutes on 2 cores.
# Every run below keeps its episodes beside its summary, so `--rescore` can rebuild them later.
set -euo pipefail
cd "$(dirname "$0")/.."
make install >/dev/null
TB=.venv/bin/todo-bench
RUN=(--model sim/sloppy --seed 0 --display none)

# `scripts/regenerate.sh --rescore`: a change of scoring alone (detectors, checks, metrics), where
# no episode would run differently: every committed board that keeps its episodes
# (episodes.json.gz) is rebuilt from them with today's scorer, in minutes, with no rerun; then
# the tables derived from those summaries. A change of the episode itself (a sim version, or a
# task version that changes what an episode does) needs the reruns below.
if [ "${1:-}" = "--rescore" ]; then
  for kept in $(git ls-files 'results/*episodes.json.gz'); do
    $TB rescore "$(dirname "$kept")"
  done
  for board in seed-stack seed-stack-hard seed-stack-own-words seed-factorial; do
    $TB gate-accuracy "results/$board" > "results/$board/gate-accuracy.md"
  done
  for board in seed-stack seed-stack-own-words; do
    $TB gate-accuracy "results/$board" --by-scenario > "results/$board/gate-accuracy-by-scenario.md"
  done
  $TB factorial results/seed-factorial > results/seed-factorial/factorial.md
  cp results/latest/summary.json results/baseline/summary.json
  # make bench's own run folder keeps its summary and board committed: a clone's `make bench`
  # then finds them as it writes them (git status stays clean)
  for f in summary.json leaderboard.md; do cp "results/latest/$f" results/runs/sim_sloppy-s0-e3-*/; done
  echo "rescored; the boards without kept episodes (git ls-files above) need the reruns"
  exit 0
fi

rm -rf results/runs/sim_sloppy-s0-e3-*
$TB run "${RUN[@]}" --variants headline --epochs 3 --publish results/latest >/dev/null  # make bench
cp results/latest/summary.json results/baseline/summary.json          # the regression baseline
# the example repository's gate baseline: the inputs of examples/gate_repo's workflow
gate=$(mktemp -d)
(cd examples/gate_repo && "../../$TB" run "${RUN[@]}" --design keepdone_todos:KeepDoneStore \
  --variants keep-done --scenarios short,user-turn --epochs 2 --out "$gate" --fresh >/dev/null)
cp "$gate/summary.json" examples/gate_repo/todo-bench/baseline.json && rm -rf "$gate"
$TB report results/latest  # rendered again even where the numbers stand (publish code changes)
# (`report` renders every format and retakes leaderboard.png where chromium is installed)
$TB run "${RUN[@]}" --variants products --epochs 3 --out results/products --fresh >/dev/null
$TB report results/products
hard=headline,$(for v in L0-rewrite L1-textlock L2-whitelist L3-granular L4-inject L4-inject+gate; do
  printf '%s+uncapped,' "$v"; done)
$TB run "${RUN[@]}" --variants "${hard%,}" --scenarios hard --epochs 2 --out results/hard --fresh >/dev/null
$TB report results/hard
# the worked example of a sequential run (docs/statistics.md; its batch folders are not committed)
$TB run "${RUN[@]}" --until-decided --variants L0-rewrite,L2-whitelist,L4-inject+gate --epochs 2 \
  --pairs L0-rewrite:L2-whitelist,L0-rewrite:L4-inject+gate --metrics task_success,dropped_todos \
  --max-episodes 400 --out results/sequential-example --fresh >/dev/null
$TB run "${RUN[@]}" --variants seed-stack --epochs 3 --out results/seed-stack --fresh >/dev/null
$TB report results/seed-stack >/dev/null
$TB gate-accuracy results/seed-stack > results/seed-stack/gate-accuracy.md
$TB gate-accuracy results/seed-stack --by-scenario > results/seed-stack/gate-accuracy-by-scenario.md
$TB run "${RUN[@]}" --variants seed-stack --scenarios hard --epochs 2 --out results/seed-stack-hard \
  --fresh >/dev/null
$TB report results/seed-stack-hard >/dev/null
$TB gate-accuracy results/seed-stack-hard > results/seed-stack-hard/gate-accuracy.md
# the same stack with an agent that plans in its own words (paraphrased, merged, partial plans)
OWN=(--model sim/own-words --seed 0 --display none)
$TB run "${OWN[@]}" --variants seed-stack --epochs 3 --out results/seed-stack-own-words --fresh \
  >/dev/null
$TB report results/seed-stack-own-words >/dev/null
$TB gate-accuracy results/seed-stack-own-words > results/seed-stack-own-words/gate-accuracy.md
$TB gate-accuracy results/seed-stack-own-words --by-scenario \
  > results/seed-stack-own-words/gate-accuracy-by-scenario.md
$TB run "${OWN[@]}" --variants seed-factorial --epochs 3 --out results/seed-factorial --fresh \
  >/dev/null
$TB report results/seed-factorial >/dev/null
$TB factorial results/seed-factorial > results/seed-factorial/factorial.md
$TB gate-accuracy results/seed-factorial > results/seed-factorial/gate-accuracy.md
.venv/bin/python scripts/scaling.py >/dev/null
# the same curves for agents that slip: the sloppy profile and the field-rate one
.venv/bin/python scripts/scaling.py --model sim/sloppy --out results/scaling/sloppy >/dev/null
.venv/bin/python scripts/scaling.py --model sim/field --out results/scaling/field >/dev/null
# the simulated agent at field rates (headline and products), and how design differences fare there
$TB run --model sim/field --seed 0 --display none --variants headline,products --epochs 3 \
  --out results/field/run --fresh >/dev/null
$TB report results/field/run
if [ -d ../shared/realtraces ]; then  # the real-session corpus: rates and the replay table
  .venv/bin/python scripts/fit_field.py >/dev/null
  $TB replay ../shared/realtraces --out results/field/replay.md >/dev/null
  $TB replay ../shared/realtraces --format json --out results/field/replay.json >/dev/null
fi
.venv/bin/python scripts/field_designs.py >/dev/null
# the field-rate power suite (pilot, planned run, board) and the simulation study (issue #42)
make --no-print-directory field-suite >/dev/null
.venv/bin/python scripts/power_study.py >/dev/null
.venv/bin/python scripts/field_suite.py >/dev/null  # again: the board shows the study's power
# the boards through the real CLIs (results/agents, results/agents-hooks) need `make agents`
# and ~35 minutes; their commands are in docs/agents.md and docs/hooks.md
if command -v pdflatex >/dev/null && command -v pdftoppm >/dev/null; then
  .venv/bin/python scripts/paper.py >/dev/null  # the report reads the boards written above
fi
echo "regenerated; now paste results/latest/leaderboard.md into the README's leaderboard block"
