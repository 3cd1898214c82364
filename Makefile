# todo-bench: `make bench` runs the default benchmark offline, `make test` runs every check.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: agents agents-lock agents-image install inspect-newest lock bench test test-slow test-fast lint perf perf-instructions perf-agents perf-agents-concurrency scaling cluster-scaling real-model clean regress baseline report paper site site-screenshots field-suite power-study

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]' -c constraints.txt
	$(BIN)/python -m compileall -q harness evals
	touch $(STAMP)

install: $(STAMP)

# re-pin constraints.txt to the newest versions pyproject.toml allows (then run make test)
lock:
	rm -rf .lock-venv && $(PYTHON) -m venv .lock-venv
	.lock-venv/bin/python -m pip install --quiet --upgrade pip
	.lock-venv/bin/python -m pip install --quiet -e '.[dev]'
	{ sed -n '/^#/p' constraints.txt; .lock-venv/bin/pip freeze --exclude-editable; } > constraints.new
	mv constraints.new constraints.txt && rm -rf .lock-venv

# whether todo-bench holds on the newest inspect-ai and inspect-swe the registry serves:
# pyproject.toml allows only the releases its private reaches were checked on; where a newer one
# is out, a venv of its own (.inspect-newest/) gets it and runs the reach check and the fast tests
inspect-newest: $(STAMP)
	$(BIN)/python scripts/inspect_newest.py

# the run goes to results/runs/<run-id>; --publish writes results/latest as a whole set (summary,
# every leaderboard format; left as it is when its summary.json is already this one)
bench: $(STAMP)
	$(BIN)/todo-bench run --model sim/sloppy --variants headline --epochs 3 --seed 0 \
		--publish results/latest

# the CI regression gate: rerun the default suite on the simulated agent and compare it with the
# committed baseline (exact: the simulated agent is deterministic, so any change fails)
regress: $(STAMP)
	$(BIN)/todo-bench run --model sim/sloppy --epochs 3 --seed 0 --out results/regress --fresh --display none
	$(BIN)/todo-bench report results/regress
	$(BIN)/todo-bench compare results/baseline results/regress --format md \
		--junit results/regress/junit.xml > results/regress/compare.md; status=$$?; \
		cat results/regress/compare.md; exit $$status

# accept the current numbers as the new baseline (after a deliberate change; say why in the commit)
baseline: $(STAMP)
	$(BIN)/todo-bench run --model sim/sloppy --epochs 3 --seed 0 --out results/regress --fresh --display none
	mkdir -p results/baseline && cp results/regress/summary.json results/baseline/summary.json

lint: $(STAMP)
	$(BIN)/ruff check harness evals tests scripts examples
	$(BIN)/ruff format --check harness evals tests scripts examples
	$(BIN)/mypy

# every check but the heavy suites and the real-model test
# `scenarios check` (mostly file I/O) runs beside ruff and mypy (one core each), then pytest
test: $(STAMP)
	$(BIN)/todo-bench scenarios check & checks=$$!; \
	  $(MAKE) --no-print-directory lint; lint=$$?; \
	  wait $$checks; scenarios=$$?; \
	  test $$lint -eq 0 && test $$scenarios -eq 0
	$(BIN)/pytest -m "not realmodel and not heavy" -q -n 2 --dist loadfile

# the minutes-long suites: 1,000 fuzzed calls per tool, kill-and-resume, the wheel in a fresh
# venv, the browser and LaTeX checks, the longest sim truth tests (.ci/run runs it after make test)
test-slow: $(STAMP)
	$(BIN)/pytest -m "heavy" -q -n 2 --dist loadgroup --durations=40

test-fast: $(STAMP)
	$(BIN)/pytest -q

# byte-compiled first: pip compiles what it installs, but not an editable install's own source,
# and where PYTHONDONTWRITEBYTECODE is set every run would compile the harness afresh
perf: $(STAMP)
	$(BIN)/python -m compileall -q harness evals
	$(BIN)/python scripts/perf.py

# a shipping CLI through the harness against bare inspect-swe, and the CLI's start-up (make agents
# first; about 3 minutes)
perf-agents: $(STAMP)
	$(BIN)/python scripts/agents_perf.py

# CLI episodes side by side: 1, 2, 4 and 8 at once with the simulated agent taking 5 s a request
perf-agents-concurrency: $(STAMP)
	$(BIN)/python scripts/agents_concurrency.py

# the same comparison in instructions executed (valgrind's callgrind): deterministic where CPU
# time on a shared machine is not; valgrind is installed from Debian if missing
perf-instructions: $(STAMP)
	command -v valgrind >/dev/null 2>&1 || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind; }
	$(BIN)/python -m compileall -q harness evals
	$(BIN)/python scripts/perf.py --instructions

# cost against list length (n = 5 ... 100) per design, capped and uncapped: results/scaling/
scaling: $(STAMP)
	$(BIN)/python scripts/scaling.py

# the field-rate power suite (--scenarios field) at sim/field: a pilot, the size it plans, a run of
# that size and its board (results/field-suite/; a few minutes on one core; issue #42 item 3)
FIELD_SUITE := --model sim/field --scenarios field --workers 1 --display none --fresh \
	--variants L0-rewrite,L2-whitelist,L4-inject,L4-inject+gate
field-suite: $(STAMP)
	$(BIN)/todo-bench run $(FIELD_SUITE) --epochs 2 --seed 100 --out results/field-suite/pilot
	$(BIN)/todo-bench run $(FIELD_SUITE) --seed 0 --out results/field-suite/run \
		--epochs $$($(BIN)/python scripts/field_suite.py --plan)
	$(BIN)/todo-bench report results/field-suite/run
	$(BIN)/python scripts/field_suite.py

# the simulation study of todo-bench power's plans and the sequential gate at sim/field:
# results/power/study.md and study.json (pools cached in build/power-study/; issue #42 item 4)
power-study: $(STAMP)
	$(BIN)/python scripts/power_study.py

# one process vs two local workers vs a two-node Ray cluster started here: results/cluster-scaling/
cluster-scaling: $(STAMP)
	$(BIN)/python scripts/cluster_scaling.py

# the shipping agents' CLIs (Claude Code, Codex CLI, OpenCode, Gemini CLI) at the versions their
# modules declare (harness/products/shipped/; package.json written from them) and
# scripts/agents/package-lock.json locks, into .agents/ (ignored): `npm ci` checks every package's
# sha512 against the lock (npm ci refuses a lock without the other platforms' optional packages, so
# npm install, which keeps the locked versions and checks them too); and the commands they need
# beside them that PyPI ships into .agents/tools/bin (scripts/agents/tools.txt: rg; node with npm
# where the machine has no node 20+ with npm: scripts/agents/node.py). Not needed by make bench
# or make test
agents: $(STAMP)
	mkdir -p .agents
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --only-binary=:all: \
		--no-deps --prefix .agents/tools -r scripts/agents/tools.txt
	$(BIN)/python scripts/agents/node.py .agents/tools
	$(BIN)/python -m harness.products.npm > .agents/package.json
	cp scripts/agents/package-lock.json .agents/
	cd .agents && PATH="$(CURDIR)/.agents/tools/bin:$$PATH" \
		npm install --no-audit --no-fund --silent --no-save 2>&1 | grep -v EBADENGINE || true
	@ls .agents/node_modules/@anthropic-ai/claude-code-linux-x64/claude \
		.agents/node_modules/@openai/codex-linux-x64/vendor/*/bin/codex \
		.agents/node_modules/opencode-linux-x64/bin/opencode 2>/dev/null || true

# renew scripts/agents/package-lock.json after a product's pin changed in its module (or a product
# was added): npm resolves the new pins against the registry and keeps every other locked
agents-lock: $(STAMP)
	rm -rf .agents-lock && mkdir .agents-lock
	$(BIN)/python -m harness.products.npm > .agents-lock/package.json
	cp scripts/agents/package-lock.json .agents-lock/
	cd .agents-lock && npm install --package-lock-only --no-audit --no-fund --silent
	cp .agents-lock/package-lock.json scripts/agents/package-lock.json && rm -rf .agents-lock

# the docker sandbox of the CLI rows for a real model (docs/agents.md): the pinned CLIs from
# make agents, this checkout's todo-bench and its pinned dependencies, on AGENTS_BASE (a
# Debian-like image with Python 3.11.5 or newer; scripts/agents_base_debian.sh builds one where
# Docker Hub cannot be reached), tagged todo-bench-agents:<version>
AGENTS_BASE ?= python:3.11-slim-bookworm
agents-image: agents $(STAMP)
	$(BIN)/python scripts/agents_image.py --base $(AGENTS_BASE)

# the technical report from the committed results: docs/paper/todo-bench.pdf and its pages as PNG
# (pdflatex and pdftoppm: Debian's texlive-latex-recommended and poppler-utils)
paper: $(STAMP)
	$(BIN)/python scripts/paper.py

# the example leaderboard site: every committed result of the suite (the scaling study's
# generated scenarios aside: tests/publishing/test_site.py NOT_SUBMITTABLE) as
# submissions (no logs: they keep none), each dated by its summary's last commit (now, outside
# a git checkout), then the site in build/site/ with its screenshots at 1280 px beside it (where
# chromium is installed). The screenshots in docs/site/ change only by `make site-screenshots`:
# their bytes differ from one Chromium build to the next, so a plain `make site` leaves the
# checkout as it was
SITE_RESULTS := latest products agents agents-hooks hard seed-stack seed-stack-hard \
	seed-stack-own-words seed-factorial sequential-example field/run field-suite/pilot field-suite/run
SITE_PAGES := index:index submission:submissions/latest
site: $(STAMP)
	rm -rf build/submissions && mkdir -p build/submissions
	for run in $(SITE_RESULTS); do \
		when=$$(git log -1 --format=%cI -- results/$$run/summary.json); \
		$(BIN)/todo-bench submit results/$$run --out build/submissions/$$(echo $$run | tr / -) \
			--who "todo-bench maintainers" $${when:+--when $$when} || exit 1; \
	done
	$(BIN)/todo-bench site build/submissions --out build/site --field results/field \
		--methods docs/metrics.md docs/statistics.md docs/publishing.md
	@browser=$$(command -v chromium || command -v chromium-browser); \
	if [ -n "$$browser" ]; then for page in $(SITE_PAGES); do \
		$$browser --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,1000 \
			--screenshot=build/site/$${page%%:*}.png "file://$$PWD/build/site/$${page#*:}.html" \
			>/dev/null 2>&1; done; echo "build/site/index.png, build/site/submission.png"; \
	else echo "no chromium: the site is built, its screenshots are not"; fi

# the site's screenshots as docs/publishing.md shows them (refresh on purpose, and commit)
site-screenshots: site
	for page in $(SITE_PAGES); do cp build/site/$${page%%:*}.png docs/site/; done

real-model: $(STAMP)
	bash scripts/local_model.sh

# committed summaries stay, only logs go; .local-llm keeps its 11-minute server build
clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache results/runs/*/logs
