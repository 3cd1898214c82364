"""Calibrate the simulated agent's token estimate against a real tokenizer and chat template.

    SERVE_ONLY=1 bash scripts/local_model.sh &      # llama.cpp's server with the local model
    .venv/bin/python scripts/token_calibration.py --sim-logs RUN/logs [RUN/logs ...]

For every model call in the given simulated-agent logs, the exact prompt the local model would
read is rendered by the server's own chat template (`/apply-template`, tools included) and
counted by its tokenizer (`/tokenize`); the reply is counted as what it adds to the rendered
conversation. Checked first on the committed real-model logs, where the same rendering must give
the prompt tokens the server reported. Then the estimate of `harness/models/sim/billing.py` is
fitted by
least squares (statsmodels) on its parts - characters of message text, of tool-call JSON, of
tool schemas, messages, tools - fitted on half of the scenarios and tested on the other half,
and refitted on all for the coefficients to paste into `harness/models/sim/billing.py` (the text
rate, PER_TEXT_CHAR, into `harness/tokens.py`). Writes
`results/token-calibration/calibration.md` and `.json`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from inspect_ai.log import read_eval_log
from inspect_ai.model import ChatMessage, ChatMessageUser
from inspect_ai.model._openai import openai_chat_message, openai_chat_tools
from inspect_ai.tool import ToolInfo
from statsmodels.regression.linear_model import OLS
from tabulate import tabulate

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harness.models.sim import billing  # noqa: E402

PROMPT = ["text_chars", "call_chars", "schema_chars", "messages", "tools"]
REPLY = ["text_chars", "call_chars", "calls"]
REAL_LOGS = "results/runs/qwen2.5-coder-0.5b-seed-stack/logs"
REPLY_HEADER = 3


def post(server: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        server + path, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return dict(json.load(response))


def count(server: str, body: dict[str, Any]) -> int:
    prompt = post(server, "/apply-template", body)["prompt"]
    tokenized = post(server, "/tokenize", {"content": prompt, "parse_special": True})
    return len(tokenized["tokens"])


async def body(messages: list[ChatMessage], tools: list[ToolInfo]) -> dict[str, Any]:
    return {
        "messages": [await openai_chat_message(m) for m in messages],
        "tools": openai_chat_tools(tools),
    }


def events(log_dir: str, per_log: int = 0) -> list[tuple[str, Any]]:
    """Model calls of every log under `log_dir`; with `per_log`, an even spread of at most
    that many per log."""
    out = []
    for path in sorted(Path(log_dir).rglob("*.eval")):
        log = read_eval_log(str(path), resolve_attachments=True)
        found = [
            (str(sample.id), e)
            for sample in log.samples or []
            for e in sample.events
            if e.event == "model" and e.output
        ]
        stride = -(-len(found) // per_log) if per_log else 1
        out += found[::stride]
    return out


def real_rows(server: str | None) -> pd.DataFrame:
    """The committed real-model runs' prompts: the tokens the server reported, this estimate's,
    and (with a server) the count of the same prompt rendered here, which must equal the
    reported one for the rendering to be trusted."""
    rows = []
    for _, event in events(REAL_LOGS):
        usage = event.output.usage
        if usage is None or event.call is None:
            continue
        request = dict(event.call.request)
        counted = None
        if server is not None:
            # a recovered call whose arguments are not JSON cannot be re-rendered
            with contextlib.suppress(urllib.error.HTTPError):
                body_ = {"messages": request["messages"], "tools": request["tools"]}
                counted = count(server, body_)
        rows.append(
            {
                "reported": usage.input_tokens + (usage.input_tokens_cache_read or 0),
                "rendered": counted,
                "estimate": billing.prompt_tokens(
                    billing.prompt_parts(list(event.input), list(event.tools))
                ),
            }
        )
    return pd.DataFrame(rows)


def tokenized(server: str, text: str) -> int:
    return len(post(server, "/tokenize", {"content": text})["tokens"]) if text else 0


async def sim_rows(server: str, log_dirs: list[str], per_log: int) -> pd.DataFrame:
    rows = []
    for log_dir in log_dirs:
        for scenario, event in events(log_dir, per_log):
            messages, tools = list(event.input), list(event.tools)
            reply = event.output.message
            exact = count(server, await body(messages, tools))
            # the reply as what it adds to the conversation (a user turn after it, because the
            # server refuses to render a conversation that ends in tool calls)
            nudge = ChatMessageUser(content=".")
            before = count(server, await body([*messages, nudge], tools))
            after = count(server, await body([*messages, reply, nudge], tools))
            p, r = billing.prompt_parts(messages, tools), billing.reply_parts(reply)
            texts, calls, schemas = billing.part_texts(messages, tools)
            rows.append(
                {
                    "scenario": scenario,
                    "exact_in": exact,
                    # less the reply's header (`<|im_start|>assistant\n`), which the prompt
                    # already holds and a model does not generate
                    "exact_out": after - before - REPLY_HEADER,
                    "old_in": event.output.usage.input_tokens,
                    # each part alone, through the tokenizer: its tokens per character
                    "tok_text": tokenized(server, texts),
                    "tok_call": tokenized(server, calls),
                    "tok_schema": tokenized(server, schemas),
                    **{f"in_{k}": getattr(p, k) for k in PROMPT},
                    **{f"out_{k}": getattr(r, k) for k in REPLY},
                }
            )
    return pd.DataFrame(rows)


class Fit:
    """Prompts: tokens per character of each part (the ratio of sums over the calls, each part
    tokenized alone), then the template's framing as OLS of what is left on messages, a tool
    block and a constant. Replies (short, mostly JSON): OLS on their text and call characters,
    calls and a constant."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.text = frame["tok_text"].sum() / frame["in_text_chars"].sum()
        self.call = frame["tok_call"].sum() / frame["in_call_chars"].sum()
        self.schema = frame["tok_schema"].sum() / frame["in_schema_chars"].sum()
        left = frame["exact_in"] - self._content(frame)
        self.prompt = OLS(left.to_numpy(float), self._framing(frame)).fit().params
        self.reply = OLS(frame["exact_out"].to_numpy(float), self._reply_parts(frame)).fit().params

    def _content(self, frame: pd.DataFrame) -> pd.Series:
        return (
            self.text * frame["in_text_chars"]
            + self.call * frame["in_call_chars"]
            + self.schema * frame["in_schema_chars"]
        )

    @staticmethod
    def _framing(frame: pd.DataFrame) -> np.ndarray:
        block = (frame["in_tools"] > 0).astype(float)
        return np.column_stack([frame["in_messages"], block, np.ones(len(frame))])

    @staticmethod
    def _reply_parts(frame: pd.DataFrame) -> np.ndarray:
        columns = ["out_text_chars", "out_call_chars", "out_calls"]
        return np.column_stack([*(frame[c] for c in columns), np.ones(len(frame))])

    def prompts(self, frame: pd.DataFrame) -> np.ndarray:
        return np.asarray(self._content(frame) + self._framing(frame) @ self.prompt)

    def replies(self, frame: pd.DataFrame) -> np.ndarray:
        return np.asarray(self._reply_parts(frame) @ self.reply)

    def coefficients(self) -> dict[str, float]:
        return {
            "PER_TEXT_CHAR": self.text,
            "PER_CALL_CHAR": self.call,
            "PER_SCHEMA_CHAR": self.schema,
            "PER_MESSAGE": self.prompt[0],
            "TOOL_BLOCK": self.prompt[1],
            "FIXED": self.prompt[2],
            "REPLY_PER_TEXT_CHAR": self.reply[0],
            "REPLY_PER_CALL_CHAR": self.reply[1],
            "REPLY_PER_CALL": self.reply[2],
            "REPLY_FIXED": self.reply[3],
        }


def _parts(row: pd.Series, side: str) -> billing.Parts:
    names = ["text_chars", "call_chars", "schema_chars", "messages", "tools", "calls"]
    return billing.Parts(**{n: int(row[f"{side}_{n}"]) for n in names if f"{side}_{n}" in row})


def error_row(name: str, predicted: np.ndarray, exact: np.ndarray) -> list[str]:
    relative = (predicted - exact) / exact
    return [
        name,
        str(len(exact)),
        f"{np.median(relative):+.1%}",
        f"{np.mean(np.abs(relative)):.1%}",
        f"{np.max(np.abs(relative)):.1%}",
        f"{np.mean(np.abs(relative) <= 0.15):.0%}",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="http://127.0.0.1:8765")
    parser.add_argument("--sim-logs", nargs="*", default=[])
    parser.add_argument("--per-log", type=int, default=12, help="model calls sampled per log")
    parser.add_argument(
        "--from-calls",
        help="analyse a calls.csv written before (no server; the rendering check "
        "is then read from the calibration.json beside it)",
    )
    parser.add_argument("--out", default="results/token-calibration")
    args = parser.parse_args()
    out = Path(args.out)

    if args.from_calls:
        frame = pd.read_csv(args.from_calls)
        old = json.loads(Path(args.from_calls).with_name("calibration.json").read_text())
        same, total = old["real_logs_reproduced"]
        real = real_rows(None)
    else:
        if not args.sim_logs:
            parser.error("--sim-logs or --from-calls is needed")
        real = real_rows(args.server)
        rendered = real.dropna(subset=["rendered"])
        same, total = int((rendered["rendered"] == rendered["reported"]).sum()), len(rendered)
        frame = asyncio.run(sim_rows(args.server, args.sim_logs, args.per_log))
    scenarios = sorted(frame["scenario"].unique())
    train = frame[frame["scenario"].isin(scenarios[::2])]
    test = frame[~frame["scenario"].isin(scenarios[::2])]
    held, final = Fit(train), Fit(frame)
    exact_in, exact_out = frame["exact_in"].to_numpy(float), frame["exact_out"].to_numpy(float)
    headers = ["estimate", "calls", "median error", "mean |error|", "max |error|", "within 15%"]
    table = [
        error_row("chars / 4 (as logged), sim prompts", frame["old_in"].to_numpy(float), exact_in),
        error_row(
            "fitted on half the scenarios, sim prompts of the other half",
            held.prompts(test),
            test["exact_in"].to_numpy(float),
        ),
        error_row(
            "fitted on half the scenarios, sim replies of the other half",
            held.replies(test),
            test["exact_out"].to_numpy(float),
        ),
        error_row(
            "harness/models/sim/billing.py as it stands, sim prompts",
            np.asarray([billing.prompt_tokens(_parts(r, "in")) for _, r in frame.iterrows()]),
            exact_in,
        ),
        error_row(
            "harness/models/sim/billing.py as it stands, sim replies",
            np.asarray([billing.reply_tokens(_parts(r, "out")) for _, r in frame.iterrows()]),
            exact_out,
        ),
        error_row(
            "harness/models/sim/billing.py as it stands, the committed real-model run's prompts",
            real["estimate"].to_numpy(float),
            real["reported"].to_numpy(float),
        ),
    ]
    coefficients = {k: round(float(v), 4) for k, v in final.coefficients().items()}
    out.mkdir(parents=True, exist_ok=True)
    if not args.from_calls:
        frame.to_csv(out / "calls.csv", index=False)
    summary = {
        "real_logs_reproduced": [same, total],
        "model_calls": len(frame),
        "scenarios": scenarios,
        "coefficients": coefficients,
    }
    (out / "calibration.json").write_text(json.dumps(summary, indent=2) + "\n")
    text = "\n".join(
        [
            f"Rendering check on the committed real-model logs ({REAL_LOGS}): {same} of {total} "
            "prompts, rendered by the server's chat template and counted by its tokenizer, give "
            "exactly the prompt tokens the server reported.",
            "",
            f"{len(frame)} model calls of the simulated agent ({len(scenarios)} scenarios); "
            "error = (estimate - exact) / exact.",
            "",
            tabulate(table, headers=headers, tablefmt="github"),
            "",
            "Fitted on all calls: " + ", ".join(f"{k} {v}" for k, v in coefficients.items()),
        ]
    )
    (out / "calibration.md").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
