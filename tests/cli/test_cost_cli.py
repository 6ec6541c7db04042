"""`gpuwise cost` end to end: the JSON contract, bills, break-even, chart, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

GUIDE = (
    "cost",
    "--own",
    "rtx-4090",
    "--count",
    "2",
    "--card-price",
    "15000",
    "--vs",
    "gcp:a2-ultragpu-1g:spot",
    "--vs",
    "aws:p4de.24xlarge:on-demand",
    "--vs",
    "compshare:A100 80G ×1:monthly",
    "--data-gb",
    "500",
    "--egress-gb-per-month",
    "50",
    "--checkpoint-min",
    "30",
    "--currency",
    "CNY",
)


def _opt(data: dict, prefix: str) -> dict:  # type: ignore[type-arg]
    return next(o for o in data["options"] if o["label"].startswith(prefix))


def test_json_contract(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli(*GUIDE, "--hours-per-day", "8", "--months", "24", "--json")
    assert res.code == 0, res.err
    data = res.json()
    assert data["currency"] == "CNY" and data["inputs"]["months"] == 24
    assert len(data["options"]) == 4
    for o in data["options"]:
        for key in ("total", "currency", "monthly", "items", "break_even", "unpriced", "prices"):
            assert key in o, key
        assert o["currency"] == "CNY"
        assert sum(o["items"].values()) == pytest.approx(o["total"], abs=0.005)
        assert o["monthly"] == pytest.approx(o["total"] / 24, abs=0.01)
        for p in o["prices"]:
            assert isinstance(p["stale"], bool) and p["undated"] is (p["date"] is None)
    own = _opt(data, "own:")
    assert own["break_even"] is None and own["items"]["cards"] == 30000
    assert own["items"]["resale"] < 0 and own["psu_w"] >= 1000
    spot = _opt(data, "gcp:")
    assert set(spot["break_even"]) == {"hours_per_day", "months", "cheaper_always"}
    assert spot["items"]["spot_rework"] > 0
    assert "block_storage" in spot["unpriced"]  # GCP disk rate not in the catalog: not free
    fx = data["fx"]["rate"]
    assert fx["date"] == "2026-01-08" and fx["stale"] is True


def test_guide_case_study_both_ways(cli) -> None:  # type: ignore[no-untyped-def]
    light = cli(*GUIDE, "--hours-per-day", "4", "--months", "12", "--json").json()
    assert light["cheapest"].startswith("gcp:")
    assert _opt(light, "gcp:")["monthly"] < 3000
    assert _opt(light, "gcp:")["break_even"]["hours_per_day"] > 4
    heavy = cli(*GUIDE, "--hours-per-day", "20", "--months", "24", "--json").json()
    assert heavy["cheapest"].startswith("own:")
    be = _opt(heavy, "gcp:")["break_even"]
    assert 0 < be["hours_per_day"] < 20 and be["months"] <= 6


def test_table_output_says_dates_and_stale(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli(*GUIDE, "--hours-per-day", "4", "--months", "12")
    assert res.code == 0, res.err
    assert "Bill: own rtx-4090 ×2" in res.out
    assert "2012-07-01 (stale)" in res.out  # the Beijing tariff
    assert "unpriced" in res.out
    zh = cli(*GUIDE, "--hours-per-day", "4", "--months", "12", "--lang", "zh")
    assert "账单" in zh.out and "（已过时）" in zh.out


def test_plot_png(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    png = tmp_path / "cost.png"
    res = cli(*GUIDE, "--hours-per-day", "4", "--months", "12", "--plot", str(png), "--json")
    assert res.code == 0, res.err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert res.json()["chart"]["break_even_months"]


def test_plot_in_chinese_without_cjk_font_falls_back_to_english(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gpuwise.render.chart as chart

    monkeypatch.setattr(chart, "find_cjk_font", lambda: None)
    png = tmp_path / "zh.png"
    res = cli(*GUIDE, "--plot", str(png), "--lang", "zh")
    assert res.code == 0, res.err
    assert png.exists()
    assert "没有找到中文字体" in res.out


def test_rent_only_and_own_only(cli) -> None:  # type: ignore[no-untyped-def]
    spot = cli("cost", "--vs", "aws:g4dn.xlarge:spot", "--json")
    assert spot.code == 0, spot.err
    assert spot.json()["options"][0]["items"]["spot_rework"] > 0
    ok = cli("cost", "--vs", "aws:g5.xlarge", "--currency", "USD", "--json")
    assert ok.code == 0 and ok.json()["options"][0]["break_even"] is None
    own = cli("cost", "--own", "rtx-5090", "--json")
    assert own.code == 0 and own.json()["options"][0]["kind"] == "own"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--hours-per-day", "-1"), "--hours-per-day"),
        (("--hours-per-day", "25"), "between 0 and 24"),
        (("--months", "0"), "--months"),
        (("--data-gb", "-5"), "--data-gb"),
        (("--vs", "nocloud:x"), "unknown provider"),
        (("--vs", "aws:g99.mega"), "no instance"),
        (("--vs", "aws:g5.xlarge:monthly"), "no monthly price"),
        (("--own", "rtx-4090", "--count", "3"), "at most 2 per host"),
        (("--own", "rtx-4090", "--tariff", "moon"), "tariff"),
        (("--own", "rtx-4090", "--currency", "JPY"), "currency"),
        (("--own", "rtx-4090", "--fx", "-7"), "--fx"),
        ((), "nothing to price"),
    ],
)
def test_bad_input_one_line_exit_2(cli, args: tuple[str, ...], needle: str) -> None:  # type: ignore[no-untyped-def]
    base = ("--own", "rtx-4090") if args and args[0] not in ("--own",) else ()
    res = cli("cost", *base, *args)
    assert res.code == 2, (res.code, res.out, res.err)
    lines = res.err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], res.err
    assert "Traceback" not in res.err


def test_price_file_with_missing_currency(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "config" / "catalog"
    folder.mkdir(parents=True)
    (folder / "mycloud.toml").write_text(
        """
[sources.my-cloud-prices]
url = "https://example.com/prices"
title = "My cloud prices"
retrieved = 2026-12-01

[provider]
id = "mycloud"
name_en = "My Cloud"
name_zh = "我的云"
region_kind = "cn"
source = "my-cloud-prices"

[[offer]]
instance = "box1"
gpu = "rtx-4090"
gpu_count = 1
[[offer.prices]]
billing = "on-demand"
amount = 2.0
""",
        encoding="utf-8",
    )
    res = cli("cost", "--vs", "mycloud:box1")
    assert res.code == 2
    # The broken file is skipped with a warning naming it and the field (issue 27: one bad file
    # no longer stops every command); without it, `mycloud` is an unknown provider.
    warning, error = res.err.strip().splitlines()
    assert "mycloud.toml" in warning and "currency" in warning and "skipped" in warning
    assert "unknown provider 'mycloud'" in error


def test_site_and_company_choose_pue_and_tariff(cli) -> None:  # type: ignore[no-untyped-def]
    """A server room adds its PUE; a company pays the commercial tariff (issue 26 item 4)."""
    base = ("cost", "--own", "rtx-5090", "--currency", "CNY", "--json")
    home = cli(*base).json()["options"][0]
    firm = cli(*base, "--company", "--site", "server-room").json()["options"][0]
    tariff = [p["label"] for p in firm["prices"] if p["label"].startswith("tariff:")]
    assert tariff == ["tariff:cn-commercial"]
    assert [p["label"] for p in home["prices"] if p["label"].startswith("tariff:")] == [
        "tariff:cn-residential"
    ]
    assert firm["items"]["electricity"] > home["items"]["electricity"]
    notes = {n["key"]: n["params"] for n in firm["notes"]}
    assert notes["cost.note_power"]["site"] == "server-room"
    assert notes["cost.note_power"]["pue"] == pytest.approx(1.8)
    bad = cli("cost", "--own", "rtx-4090", "--site", "garage")
    assert bad.code == 2 and "garage" in bad.err


def test_company_is_never_priced_at_a_used_listing(cli) -> None:  # type: ignore[no-untyped-def]
    """Issue 26: --company buys new with warranty; the T4, priced only on eBay, is unpriced for
    it (one line, exit 2), while a person is told the price is second-hand and from where."""
    person = cli("cost", "--own", "t4", "--currency", "USD", "--json").json()["options"][0]
    notes = {n["key"]: n["params"] for n in person["notes"]}
    assert notes["cost.note_card_used"]["channel"] == "marketplace"
    firm = cli("cost", "--own", "t4", "--company", "--currency", "USD")
    assert firm.code == 2 and "second-hand" in firm.err and "Traceback" not in firm.err
    new = cli("cost", "--own", "rtx-5090", "--company", "--currency", "USD", "--json").json()
    keys = {n["key"] for n in new["options"][0]["notes"]}
    assert "cost.note_card_new" in keys


def test_vs_without_billing_takes_the_cheapest_for_the_use(cli) -> None:  # type: ignore[no-untyped-def]
    """Two hours a day for a month: by the hour; around the clock for three: by the month."""
    vs = ("cost", "--vs", "compshare:A800 80G ×1", "--currency", "CNY", "--json")
    light = cli(*vs, "--hours-per-day", "2", "--months", "1").json()["options"][0]
    heavy = cli(*vs, "--hours-per-day", "24", "--months", "3").json()["options"][0]
    assert light["billing"] == "on-demand" and heavy["billing"] == "monthly"
    chosen = next(n for n in light["notes"] if n["key"] == "cost.note_billing_chosen")
    assert chosen["params"]["others"][0][0] == "monthly"
    assert chosen["params"]["others"][0][1] > light["total"]


def test_company_gets_one_line_for_a_card_no_longer_made(cli) -> None:  # type: ignore[no-untyped-def]
    """Blind w34-04: the RTX 4090's 2022 list price is no price a company pays in 2026; the
    error names the card and asks for a quote, a person gets the used price."""
    firm = cli("cost", "--own", "rtx-4090", "--currency", "USD", "--company")
    assert firm.code == 2 and "rtx-4090" in firm.err
    person = cli("cost", "--own", "rtx-4090", "--currency", "USD", "--json").json()["options"][0]
    assert any(n["key"] == "cost.note_card_used" for n in person["notes"])
