"""Every command's --json is valid JSON for any reader: never NaN or Infinity."""

from __future__ import annotations

import json
from typing import Any

import pytest

PERSONAS = ("individual", "small-team", "enterprise-domestic", "cost-extreme")

COMMANDS: list[tuple[str, ...]] = [
    ("gpus",),
    ("gpus", "show", "4090"),
    ("models",),
    ("models", "show", "qwen2.5:7b"),
    ("estimate", "qwen2.5:7b"),
    ("estimate", "qwen2.5:7b", "--gpu", "4090", "--concurrency", "8"),
    ("estimate", "qwen2.5:7b", "--gpu", "4090", "--mode", "qlora", "--train-tokens", "20M"),
    ("estimate", "qwen2.5:72b", "--gpu", "4090", "--quant", "q4_k_m"),
    ("fit", "qwen2.5:7b"),
    ("fit", "qwen2.5:7b", "--mode", "lora"),
    ("offers",),
    ("offers", "--gpu", "h100", "--currency", "CNY"),
    ("cost", "--own", "4090"),
    ("cost", "--own", "4090", "--vs", "aws:g5.xlarge", "--months", "600", "--hours-per-day", "24"),
    ("cost", "--vs", "aws:g4dn.xlarge:spot", "--hours-per-day", "0"),
    ("plan", "--example"),
    *[("plan", "--persona", p) for p in PERSONAS],
    ("plan", "--example", "--months", "0.1", "--hours-per-day", "0.01"),
    ("doctor",),
]


def _refuse(token: str) -> Any:
    raise AssertionError(f"non-JSON constant {token} in output")


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_json_has_no_nan_or_infinity(cli: Any, args: tuple[str, ...]) -> None:
    res = cli(*args, "--json")
    assert res.code == 0, (res.code, res.err)
    json.loads(res.out, parse_constant=_refuse)
    assert "non-finite" not in res.err, res.err


def test_emit_json_maps_non_finite_to_null_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    from gpuwise.render.out import emit_json

    emit_json({"a": float("nan"), "b": [1.0, float("inf")], "c": 2})
    captured = capsys.readouterr()
    assert json.loads(captured.out) == {"a": None, "b": [1.0, None], "c": 2}
    assert "$.a" in captured.err and "$.b[1]" in captured.err
