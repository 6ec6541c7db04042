"""`gpuwise offers` end to end: sorting, currency, filters, dates, bad input."""

from __future__ import annotations

import pytest


def test_sorted_by_price_per_gpu_hour_in_currency(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli("offers", "--currency", "CNY", "--json")
    assert res.code == 0, res.err
    data = res.json()
    rows = data["offers"]
    assert data["currency"] == "CNY" and len(rows) >= 150
    prices = [r["per_gpu_hour"] for r in rows]
    assert prices == sorted(prices)
    for r in rows:
        assert r["currency"] == "CNY" and isinstance(r["stale"], bool) and r["retrieved"]
        assert r["undated"] is (r["date"] is None) and not (r["undated"] and r["stale"])
        assert r["per_gpu_hour"] == pytest.approx(r["per_hour"] / r["gpu_count"])


def test_currency_conversion_and_fx_override(cli) -> None:  # type: ignore[no-untyped-def]
    usd = cli("offers", "--provider", "aws", "--billing", "on-demand", "--json").json()
    cny = cli(
        "offers", "--provider", "aws", "--billing", "on-demand", "--currency", "CNY",
        "--fx", "8", "--json",
    ).json()  # fmt: skip
    by = {r["instance"]: r["per_hour"] for r in usd["offers"]}
    for r in cny["offers"]:
        assert r["per_hour"] == pytest.approx(by[r["instance"]] * 8)
    g5 = next(r for r in usd["offers"] if r["instance"] == "g5.xlarge")
    assert g5["per_hour"] == pytest.approx(1.006)


def test_filters(cli) -> None:  # type: ignore[no-untyped-def]
    rows = cli("offers", "--gpu", "4090", "--json").json()["offers"]
    assert rows and all(r["gpu"] == "rtx-4090" for r in rows)
    cn = cli("offers", "--region", "cn", "--json").json()["offers"]
    assert cn and all(r["region_kind"] == "cn" for r in cn)
    east = cli("offers", "--region", "us-east-1", "--json").json()["offers"]
    assert east and all("us-east-1" in r["regions"] for r in east)
    spot = cli("offers", "--billing", "spot", "--max-price", "1", "--json").json()["offers"]
    assert spot and all(r["billing"] == "spot" and r["per_gpu_hour"] <= 1 for r in spot)
    monthly = cli("offers", "--billing", "monthly", "--json").json()["offers"]
    assert monthly and all(r["price"]["per"] == "month" for r in monthly)


def test_table_in_both_languages(cli) -> None:  # type: ignore[no-untyped-def]
    en = cli("offers", "--gpu", "a100-80gb")
    assert en.code == 0 and "per GPU-hour in USD" in en.out and "date unknown" in en.out
    zh = cli("offers", "--gpu", "4090", "--lang", "zh")
    assert "按每 GPU 小时价格（CNY）" in zh.out and "竞价" in zh.out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--provider", "nocloud"), "unknown provider"),
        (("--gpu", "rtx-9999"), "unknown GPU"),
        (("--region", "mars-1"), "unknown region"),
        (("--billing", "weekly"), "billing"),
        (("--max-price", "-1"), "--max-price"),
        (("--currency", "GBP"), "currency"),
    ],
)
def test_bad_input(cli, args: tuple[str, ...], needle: str) -> None:  # type: ignore[no-untyped-def]
    res = cli("offers", *args)
    assert res.code == 2
    lines = res.err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], res.err
