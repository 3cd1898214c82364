"""Tokens of a text, estimated from its characters.

The rate was measured with the real tokenizer of the committed local model (Qwen2.5) on the
simulated agent's own conversations (`scripts/token_calibration.py`,
results/token-calibration/). The simulated agent bills its prompts with it
(`harness.models.sim.billing`), and the board's `injected_tokens` prices the list context a
design adds to the prompt with it, for the harness's rows and the CLI rows alike, since a CLI's
prompt cannot be split by the tokens its provider bills.
"""

from __future__ import annotations

#: tokens per character of message text
PER_TEXT_CHAR = 0.4152


def text_tokens(text: str) -> int:
    """The estimated tokens of `text` as prompt text."""
    return round(len(text) * PER_TEXT_CHAR)
