"""Fuzzing every numeric flag of estimate, fit, offers, cost and plan (bounded examples).

Whatever a person types into a number flag, gpuwise answers (exit 0) or says what is wrong
(exit 2, one line): never a traceback, never "unexpected error", never NaN in JSON. And where
more input must mean more resources, it does: more batch → not less memory, more months → not
less total cost.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FUZZ = settings(
    max_examples=20,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

TYPED = st.sampled_from(
    [
        "0", "-0", "1", "0.5", "-1", "1e30", "1e-30", "5M", "24GB", "80G", "32k", "128K",
        "1.5B", "2000万", "¥3000", "$2.5/h", "3000元", "1,5", "1,000", "", " ", "abc", "2y",
        "30%", "nan", "-inf", "Infinity", "1e400", "0x10", "１２", "--", "7.2",
    ]
)  # fmt: skip
NUMBERS = st.one_of(
    TYPED,
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-(10**15), 10**15).map(str),
    st.floats(1e-3, 1e7).map(lambda x: f"{x:g}"),
)

FLAGS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "estimate": (
        ("estimate", "qwen2.5:7b", "--gpu", "4090"),
        ("--batch", "--seq-len", "--context", "--prompt-tokens", "--gen-tokens", "--lora-rank",
         "--gpus", "--concurrency", "--epochs", "--cpu-bandwidth"),
    ),
    "estimate-train": (
        ("estimate", "qwen2.5:7b", "--gpu", "4090", "--mode", "qlora"),
        ("--train-tokens", "--epochs", "--batch", "--seq-len", "--lora-rank"),
    ),
    "fit": (("fit", "qwen2.5:0.5b", "--vendor", "amd"), ("--batch", "--context", "--gpus")),
    "offers": (("offers", "--gpu", "4090"), ("--max-price", "--fx")),
    "cost": (
        ("cost", "--own", "4090", "--vs", "aws:g4dn.xlarge:spot"),
        ("--count", "--hours-per-day", "--months", "--data-gb", "--egress-gb-per-month",
         "--snapshot-gb", "--checkpoint-min", "--card-price", "--host-price", "--tariff", "--pue",
         "--idle-hours-per-day", "--resale-pct", "--maintenance-pct",
         "--spot-interruptions-per-day", "--restart-min", "--fx"),
    ),
    "plan": (
        ("plan", "--example"),
        ("--dataset-tokens", "--epochs", "--runs-per-month", "--concurrency", "--context",
         "--target-tokens-per-s", "--months", "--hours-per-day", "--budget", "--deadline-days",
         "--fx", "--top"),
    ),
}  # fmt: skip


def _refuse(token: str) -> Any:
    raise AssertionError(f"non-JSON constant {token}")


def _check(res: Any) -> None:
    both = res.out + res.err
    assert res.code in (0, 2), (res.code, res.err)
    assert "Traceback" not in both and "unexpected error" not in both, res.err
    if res.code == 2:
        assert len(res.err.strip().splitlines()) == 1, res.err
    else:
        json.loads(res.out, parse_constant=_refuse)


@pytest.mark.parametrize("command", list(FLAGS))
def test_numeric_flags_never_crash(cli: Any, command: str) -> None:
    base, flags = FLAGS[command]

    @FUZZ
    @given(flag=st.sampled_from(flags), value=NUMBERS)
    def run(flag: str, value: str) -> None:
        _check(cli(*base, flag, value, "--json"))

    run()


@FUZZ
@given(
    small=st.integers(1, 64), extra=st.integers(0, 64), mode=st.sampled_from(["inference", "qlora"])
)
def test_more_batch_never_less_memory(cli: Any, small: int, extra: int, mode: str) -> None:
    def total(batch: int) -> int:
        res = cli("estimate", "qwen2.5:7b", "--mode", mode, "--batch", str(batch), "--json")
        assert res.code == 0, res.err
        return int(res.json()["memory"]["device_total_bytes"])

    assert total(small) <= total(small + extra)


@FUZZ
@given(months=st.integers(1, 300), extra=st.integers(0, 300), hours=st.floats(0, 24))
def test_more_months_never_less_cost(cli: Any, months: int, extra: int, hours: float) -> None:
    def totals(m: int) -> list[float]:
        res = cli(
            "cost", "--own", "4090", "--vs", "aws:g5.xlarge", "--months", str(m),
            "--hours-per-day", f"{hours:.3f}", "--json",
        )  # fmt: skip
        assert res.code == 0, res.err
        return [o["total"] for o in res.json()["options"]]

    for shorter, longer in zip(totals(months), totals(months + extra), strict=True):
        assert shorter <= longer + 1e-6
