"""Every kind of number gpuwise reads from a person, with the range that makes sense for it.

Product policy in one place (moved out of units.py, which parses): each quantity says which
units it may be written in (its family) and which values are accepted, with the reason for the
bounds beside them so a reviewer can judge.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Family = Literal[
    "plain",
    "count",
    "context",
    "memory",
    "bandwidth",
    "money",
    "rate",
    "price",
    "hours",
    "months",
    "days",
    "minutes",
    "percent",
]


@dataclass(frozen=True)
class Quantity:
    """One kind of number: the units it may be written in and the range that makes sense.

    `lo_open`: the lower bound itself is not allowed (must be more than `lo`). `why` is the
    product reason for the bounds, shown nowhere but kept beside them so a reviewer can judge.
    """

    family: Family
    lo: float
    hi: float
    why: str
    lo_open: bool = False
    integer: bool = False


QUANTITIES: dict[str, Quantity] = {
    # ---- workload sizes
    "batch": Quantity(
        "count",
        1,
        65_536,
        "sequences per step; no recipe uses more than a few thousand, 65 536 leaves room",
        integer=True,
    ),
    "samples": Quantity(
        "count", 1, 1e12, "training examples; 1e12 is beyond any public dataset", integer=True
    ),
    "context": Quantity(
        "context",
        1,
        10_485_760,
        "tokens in one sequence; the longest published context windows are 10M (Llama 4 Scout)",
        integer=True,
    ),
    "ubatch": Quantity(
        "context",
        1,
        1_048_576,
        "tokens one prefill step processes (llama.cpp -ub, vLLM max-num-batched-tokens); "
        "engines default to 512-16 384, 1M leaves room",
        integer=True,
    ),
    "tokens_part": Quantity(
        "context",
        0,
        10_485_760,
        "prompt or generated tokens of one request: 0 allowed, never more than the longest context",
        integer=True,
    ),
    "dataset_tokens": Quantity(
        "count",
        0,
        1e15,
        "tokens in a training set; the largest public "
        "pre-training sets hold ~3.6e13, 1e15 leaves room",
        lo_open=True,
    ),
    "lora_rank": Quantity(
        "count",
        1,
        65_536,
        "LoRA rank; ranks above the hidden size (≤ 65k for every catalog model) mean nothing",
        integer=True,
    ),
    "epochs": Quantity(
        "plain",
        0,
        1_000,
        "passes over the data; fine-tuning uses 1–10, 1 000 is already absurd",
        lo_open=True,
    ),
    "runs_per_month": Quantity(
        "plain", 0, 10_000, "jobs a month; 10 000 is one every ~4 minutes", lo_open=True
    ),
    "concurrency": Quantity(
        "count",
        1,
        1_000_000,
        "simultaneous requests served; a million is beyond any one deployment gpuwise sizes",
        integer=True,
    ),
    "target_tps": Quantity(
        "count", 0, 1e8, "tokens per second wanted from the whole deployment", lo_open=True
    ),
    "gpus": Quantity(
        "count", 1, 100_000, "GPUs in one job; the largest clusters have ~100k", integer=True
    ),
    "card_count": Quantity(
        "count",
        1,
        1_024,
        "cards owned; per-host limits are checked against the catalog later",
        integer=True,
    ),
    "max_gpus": Quantity("count", 1, 100_000, "the most GPUs a plan may use", integer=True),
    "network_gbps": Quantity(
        "plain",
        0,
        3_200,
        "Gb/s of scale-out network per card; 3.2 Tb/s is eight 400G NICs",
        lo_open=True,
    ),
    "top": Quantity(
        "count", 1, 1_000, "rows shown; more than 1 000 is not a table anyone reads", integer=True
    ),
    "port": Quantity("plain", 1, 65_535, "a TCP port (gpuwise serve --port)", integer=True),
    # ---- memory, storage and bandwidth (decimal GB as vendors state them)
    "memory_gb": Quantity(
        "memory",
        0,
        4_096,
        "GPU memory; the largest device (unified memory included) has well under 4 TB",
    ),
    "storage_gb": Quantity(
        "memory",
        0,
        1e7,
        "data stored or moved, GB; 10 PB is beyond what one team's project keeps in the cloud",
    ),
    "cpu_bandwidth": Quantity(
        "bandwidth",
        0,
        10_000,
        "host memory bandwidth, GB/s; a 12-channel DDR5 server reaches ~600",
        lo_open=True,
    ),
    # ---- time
    "hours_per_day": Quantity("hours", 0, 24, "a day has 24 hours"),
    "busy_hours": Quantity(
        "hours", 0, 24, "a day has 24 hours; a plan needs some use", lo_open=True
    ),
    "days_per_week": Quantity(
        "days", 0, 7, "a week has 7 days; a plan needs some use", lo_open=True
    ),
    "months": Quantity(
        "months",
        0,
        600,
        "project length; 600 months (50 years) outlives any "
        "GPU, and the chart has one point per month",
        lo_open=True,
    ),
    "deadline_days": Quantity("days", 0, 36_500, "a deadline within a century", lo_open=True),
    "wait_s": Quantity(
        "plain",
        0,
        3_600,
        "seconds a user waits for a first token; an hour is no longer a wait",
        lo_open=True,
    ),
    "checkpoint_min": Quantity(
        "minutes", 0, 10_080, "minutes between checkpoints; at most a week", lo_open=True
    ),
    "restart_min": Quantity("minutes", 0, 10_080, "minutes lost per restart; at most a week"),
    "interruptions_per_day": Quantity(
        "plain", 0, 1_440, "spot interruptions a day; one a minute is the most that means anything"
    ),
    # ---- money (in the currency of the command unless a symbol says otherwise)
    "money": Quantity(
        "money", 0, 1e10, "a price or budget; 10 billion is beyond any purchase gpuwise plans"
    ),
    "budget": Quantity(
        "money",
        0,
        1e10,
        "a budget must be positive; 10 billion is beyond any purchase gpuwise plans",
        lo_open=True,
    ),
    "quote_price": Quantity(
        "price",
        0,
        1e9,
        "a quoted price of a whole instance per hour, month or year (`offers add/import`); "
        "a billion is beyond any listed price",
        lo_open=True,
    ),
    "price_per_gpu_hour": Quantity(
        "rate",
        0,
        100_000,
        "rent per GPU-hour; the dearest accelerator rents for well under 1 000 CNY an hour",
    ),
    "tariff": Quantity(
        "money",
        0,
        100,
        "electricity per kWh; retail tariffs are 0.05–2 in "
        "CNY or USD, 100 only allows what-if runs",
    ),
    "fx": Quantity(
        "plain",
        1,
        100,
        "CNY per US dollar; it has stayed within 6–8.3 since 2005 "
        "— a band of 1–100 allows what-if runs but catches USD per CNY (0.14)",
    ),
    "pue": Quantity(
        "plain",
        1,
        3,
        "power usage effectiveness; 1.0 is the physical floor, rooms worse than 3 are not run",
    ),
    "percent": Quantity("percent", 0, 100, "a share of a price"),
    "margin": Quantity(
        "plain", 0, 0.9, "memory kept free, as a fraction; above 0.9 nothing useful fits"
    ),
    # ---- catalog numbers (overrides and built-in data)
    "catalog_tflops": Quantity(
        "plain",
        0,
        100_000,
        "dense TFLOPS/TOPS per device; the fastest chip is under 20 000 even at FP4",
        lo_open=True,
    ),
    "catalog_bandwidth": Quantity(
        "plain", 0, 100_000, "memory bandwidth, GB/s; HBM3e devices reach ~8 000"
    ),
    "catalog_memory_gb": Quantity("plain", 0, 4_096, "device memory, GB"),
    "catalog_watts": Quantity("plain", 0, 100_000, "watts per device or host"),
    "catalog_price": Quantity(
        "plain",
        0,
        1e9,
        "a catalog price; a billion per card, instance-year or rate is beyond any listed price",
    ),
}
"""Product policy: every accepted range, in one place, with the reason for its bounds."""

_CATALOG_FIELDS: tuple[tuple[str, str], ...] = (
    (r"(^|\.)tflops\.\w+$", "catalog_tflops"),
    (r"(^|\.)memory_bandwidth_gbps$", "catalog_bandwidth"),
    (r"(^|\.)memory_gb$", "catalog_memory_gb"),
    (r"(^|\.)(tdp_w|watts|\w+_w)$", "catalog_watts"),
    (r"(^|\.)(amount|price_per_kwh|\w+_per_(gb|hour|gb_month|10k_requests))$", "catalog_price"),
)
"""Which catalog field paths are checked against which catalog range (by name). Patterns are
strings, compiled (and cached) by `re` on first use: importing this module stays cheap."""


def catalog_quantity(path: str) -> str | None:
    """The range a catalog field is checked against (None: only finiteness is checked)."""
    return next((q for rx, q in _CATALOG_FIELDS if re.search(rx, path)), None)
