"""gpuwise.units: the units people type, the ranges of policy, and the hints for ambiguity."""

from __future__ import annotations

import math

import pytest

from gpuwise import units
from gpuwise.errors import UserError


@pytest.mark.parametrize(
    ("text", "quantity", "value", "currency"),
    [
        ("24GB", "memory_gb", 24.0, None),
        ("80G", "memory_gb", 80.0, None),
        ("24 gb", "memory_gb", 24.0, None),
        ("1TB", "memory_gb", 1000.0, None),
        ("32k", "context", 32768, None),
        ("128K", "context", 131072, None),
        ("1M", "context", 1048576, None),
        ("4096", "context", 4096, None),
        ("2e7", "dataset_tokens", 2e7, None),
        ("20M", "dataset_tokens", 2e7, None),
        ("1.5B", "dataset_tokens", 1.5e9, None),
        ("2000万", "dataset_tokens", 2e7, None),
        ("3亿", "dataset_tokens", 3e8, None),
        ("1,000,000", "dataset_tokens", 1e6, None),
        ("1_000_000", "dataset_tokens", 1e6, None),
        ("２４", "memory_gb", 24.0, None),
        ("¥3000", "money", 3000.0, "CNY"),
        ("￥3000", "money", 3000.0, "CNY"),
        ("3000元", "money", 3000.0, "CNY"),
        ("3000 CNY", "money", 3000.0, "CNY"),
        ("RMB 3000", "money", 3000.0, "CNY"),
        ("$400", "money", 400.0, "USD"),
        ("US$400", "money", 400.0, "USD"),
        ("1.5万", "money", 15000.0, None),
        ("¥3k", "money", 3000.0, "CNY"),
        ("$2.5/h", "price_per_gpu_hour", 2.5, "USD"),
        ("¥8/小时", "price_per_gpu_hour", 8.0, "CNY"),
        ("2.5", "price_per_gpu_hour", 2.5, None),
        ("24mo", "months", 24.0, None),
        ("2y", "months", 24.0, None),
        ("3年", "months", 36.0, None),
        ("8h", "hours_per_day", 8.0, None),
        ("2w", "deadline_days", 14.0, None),
        ("1h", "checkpoint_min", 60.0, None),
        ("30%", "percent", 30.0, None),
        ("100GB/s", "cpu_bandwidth", 100.0, None),
        ("7.2", "fx", 7.2, None),
    ],
)
def test_accepted_units(text: str, quantity: str, value: float, currency: str | None) -> None:
    parsed = units.read(text, quantity, "--x")
    assert parsed.value == pytest.approx(value)
    assert parsed.currency == currency


@pytest.mark.parametrize(
    ("text", "quantity", "words"),
    [
        ("nan", "fx", ["--x", "finite", "nan", "between 1 and 100"]),
        ("-inf", "money", ["finite"]),
        ("Infinity", "months", ["finite"]),
        ("1e400", "money", ["finite"]),
        ("-1", "months", ["more than 0 and at most 600", "-1"]),
        ("601", "months", ["600"]),
        ("25", "hours_per_day", ["between 0 and 24"]),
        ("0.14", "fx", ["between 1 and 100"]),
        ("2.5", "batch", ["whole number"]),
        ("24gb", "context", ["memory size", "token count"]),
        ("32k", "memory_gb", ["count", "GB"]),
        ("5M", "months", ["million"]),
        ("$5", "dataset_tokens", ["money"]),
        ("¥3$", "money", ["two currencies"]),
        ("$3/month", "price_per_gpu_hour", ["per hour"]),
        ("1,5", "epochs", ["dot"]),
        ("1,5000", "money", ["dot"]),
        ("abc", "epochs", ["not a number"]),
        ("", "epochs", ["not a number"]),
        ("0x10", "batch", ["--x"]),
    ],
)
def test_rejected_with_one_clear_line(text: str, quantity: str, words: list[str]) -> None:
    with pytest.raises(UserError) as err:
        units.read(text, quantity, "--x")
    message = err.value.render()
    assert "\n" not in message and "{" not in message
    for word in words:
        assert word in message, (word, message)


def test_messages_in_chinese() -> None:
    from gpuwise.i18n import t

    with pytest.raises(UserError) as err:
        units.read("nan", "months", "--months")
    text = t(err.value.key, lang="zh", **err.value.params)
    assert "--months" in text and "有限" in text and "{" not in text


def test_every_quantity_has_a_reason_and_a_sane_range() -> None:
    for name, q in units.QUANTITIES.items():
        assert q.why and len(q.why) > 10, name
        assert math.isfinite(q.lo) and math.isfinite(q.hi) and q.lo < q.hi, name
        assert q.family in units._SUFFIXES, name


def test_whole_numbers_come_back_as_int() -> None:
    assert units.read_value("32k", "context", "--context") == 32768
    assert isinstance(units.read_value("8", "batch", "--batch"), int)
    assert units.read_value("24", "months", "--months", whole=True) == 24
    with pytest.raises(UserError):
        units.read_value("2.5", "months", "--months", whole=True)


def test_amount_remembers_its_currency() -> None:
    amount = units.read_value("¥3000", "money", "--card-price")
    assert amount == 3000.0 and getattr(amount, "currency", None) == "CNY"
    assert getattr(units.read_value("3000", "money", "--card-price"), "currency", None) is None


@pytest.mark.parametrize(
    ("path", "quantity"),
    [
        ("gpu.tflops.bf16", "catalog_tflops"),
        ("gpu.memory_bandwidth_gbps", "catalog_bandwidth"),
        ("gpu.prices.amount", "catalog_price"),
        ("hidden_costs.egress_per_gb", "catalog_price"),
        ("tariff.price_per_kwh", "catalog_price"),
        ("gpu.tdp_w", "catalog_watts"),
        ("gpu.release_year", None),
    ],
)
def test_catalog_fields_map_to_ranges(path: str, quantity: str | None) -> None:
    assert units.catalog_quantity(path) == quantity


def test_looks_numeric_tells_numbers_from_preset_names() -> None:
    assert units.looks_numeric("0.6") and units.looks_numeric("nan") and units.looks_numeric("¥1")
    assert not units.looks_numeric("cn-residential") and not units.looks_numeric("datacenter")
