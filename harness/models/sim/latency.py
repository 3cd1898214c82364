"""`-M latency=S` or `-M latency=LOW-HIGH`: the simulated agent takes its time over each
request, as a hosted model does (a fixed delay, or one drawn uniformly from the range), so a
run's throughput under a hosted model's latency can be measured offline. The delay never
changes a decision: it is drawn from its own generator, and the reply is the same."""

from __future__ import annotations

import hashlib
import random

from harness.models.sim.profiles import LATENCY_ARG, ProfileError

#: the model argument's name
ARG = LATENCY_ARG

#: a delay longer than this is refused (a typo in milliseconds would stall a run for hours)
MAX_SECONDS = 600.0


def parse(value: object) -> tuple[float, float]:
    """The (low, high) seconds of `-M latency=...`; ProfileError in one line if it is not
    seconds or a LOW-HIGH range of them within 0..MAX_SECONDS."""
    text = str(value).strip()
    low, sep, high = text.partition("-")
    try:
        bounds = (float(low), float(high) if sep else float(low))
    except ValueError:
        bounds = (-1.0, -1.0)
    if not 0 <= bounds[0] <= bounds[1] <= MAX_SECONDS:
        raise ProfileError(
            f"sim: -M {ARG}={text}: give seconds per request (0.5) or a range to draw from "
            f"(0.2-1.5), within 0 and {MAX_SECONDS:g}"
        )
    return bounds


def delay(bounds: tuple[float, float], seed: int, key: str) -> float:
    """The seconds to wait before the reply to the request `key` (the same for the same key)."""
    low, high = bounds
    if low == high:
        return low
    digest = hashlib.sha256(f"{ARG}|{seed}|{key}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big")).uniform(low, high)
