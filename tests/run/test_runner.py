"""The runner's start-up saving: a sim-only variant skips inspect's per-sample provider state
(and with it the openai / anthropic imports); any other model keeps it; the flags come back."""

from __future__ import annotations

import subprocess
import sys

import pytest
from inspect_ai.model import _assistant_internal as internal

from harness.run.runner import _without_provider_state


def test_only_a_sim_model_skips_the_provider_state() -> None:
    before = (internal._HAS_OPENAI, internal._HAS_ANTHROPIC)
    assert before == (True, True)  # both SDKs are installed (dev extras)
    with _without_provider_state("sim/sloppy"):
        assert (internal._HAS_OPENAI, internal._HAS_ANTHROPIC) == (False, False)
    assert before == (internal._HAS_OPENAI, internal._HAS_ANTHROPIC)
    with _without_provider_state("openai-api/local/qwen"):
        assert before == (internal._HAS_OPENAI, internal._HAS_ANTHROPIC)


@pytest.mark.slow
def test_a_sim_run_imports_no_provider_sdk(tmp_path: object) -> None:
    code = (
        "import sys; from harness.cli import main; "
        f"main(['run', '--model', 'sim/oracle', '--variants', 'L0-rewrite', '--scenarios', "
        f"'excel_export', '--epochs', '1', '--out', r'{tmp_path}', '--display', 'none', "
        "'--workers', '1']); print(sorted(m for m in ('openai', 'anthropic') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"
