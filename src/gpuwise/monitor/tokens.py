"""What a serving engine did during a recorded run, from its counters read again and again.

Counters are cumulative since the engine started, so the run's share is their increase between
readings, added up the way Prometheus' ``increase()`` does: a counter that went down means the
engine restarted, and its new value is all increase. The first reading is the baseline (tokens
served before the recording began are not the run's). The totals live in the run's options
("tokens") and are rewritten after each reading, so a killed recorder keeps what it saw.

The rates (pure, :func:`token_rates`):
- throughput: generated tokens ÷ the time between the first and last readings;
- decode per sequence: decode intervals ÷ their summed seconds (1 ÷ mean inter-token latency) —
  comparable with gpuwise's batch-1 decode estimate only when one request ran at a time, which
  ``max_running`` tells;
- prefill: prompt tokens ÷ prompt seconds, with what the engine's timer includes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

COUNTERS = (
    "prompt_tokens",
    "generated_tokens",
    "decode_seconds",
    "decode_tokens",
    "prefill_seconds",
    "prefill_tokens",
)


@dataclass
class TokenTotals:
    """The run's share of the engine's counters, and how the readings went."""

    url: str
    engine: str | None = None
    first_t: float | None = None
    last_t: float | None = None
    increases: dict[str, float] = field(default_factory=dict)
    prefill_timer: str | None = None
    max_running: float | None = None
    readings: int = 0
    failures: int = 0
    last_problem: str = ""
    previous: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        """What the run stores."""
        return asdict(self)


def _increase(before: float | None, after: float | None) -> float | None:
    if after is None:
        return None
    if before is None:
        return 0.0
    return after - before if after >= before else after


def advance(totals: TokenTotals, counters: Mapping[str, Any], t: float) -> TokenTotals:
    """Add one successful reading taken at time `t` (counters as the probe reports them)."""
    totals.readings += 1
    totals.engine = str(counters.get("engine") or totals.engine or "")
    if totals.previous is None:
        totals.first_t = t
    else:
        for key in COUNTERS:
            inc = _increase(totals.previous.get(key), counters.get(key))
            if inc is not None:
                totals.increases[key] = totals.increases.get(key, 0.0) + inc
    totals.last_t = t
    totals.prefill_timer = counters.get("prefill_timer") or totals.prefill_timer
    running = counters.get("running")
    if running is not None:
        totals.max_running = max(float(running), totals.max_running or 0.0)
    totals.previous = {k: counters.get(k) for k in COUNTERS}
    return totals


def failed(totals: TokenTotals, problem: str) -> TokenTotals:
    """Count a reading that got no counters (engine still loading, stopped, or wrong URL)."""
    totals.failures += 1
    totals.last_problem = problem[:200]
    return totals


def _ratio(num: float | None, den: float | None) -> float | None:
    return num / den if num is not None and den else None


def token_rates(stored: Mapping[str, Any]) -> dict[str, Any]:
    """The run's token figures from its stored totals (None where the engine gave no data)."""
    inc = stored.get("increases") or {}
    first, last = stored.get("first_t"), stored.get("last_t")
    span = last - first if first is not None and last is not None else None
    return {
        "engine": stored.get("engine") or None,
        "url": stored.get("url"),
        "readings": stored.get("readings", 0),
        "failures": stored.get("failures", 0),
        "last_problem": stored.get("last_problem") or None,
        "span_s": span,
        "prompt_tokens": inc.get("prompt_tokens"),
        "generated_tokens": inc.get("generated_tokens"),
        "generated_tokens_per_s": _ratio(inc.get("generated_tokens"), span),
        "decode_tokens_per_s_per_sequence": _ratio(
            inc.get("decode_tokens"), inc.get("decode_seconds")
        ),
        "prefill_tokens_per_s": _ratio(inc.get("prefill_tokens"), inc.get("prefill_seconds")),
        "prefill_timer": stored.get("prefill_timer"),
        "max_running": stored.get("max_running"),
        "one_at_a_time": stored.get("max_running") is not None and stored["max_running"] <= 1,
    }
