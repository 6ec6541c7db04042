"""`offers import` reads Chinese clouds' price tables in the layout they are published and
exported (issue 29 item 4): one instance per line, a column per billing mode whose header says
the unit (腾讯云 价格总览 `包年包月（元/月）` / `按量计费（元/小时）`, JD Cloud
`Monthly Price (RMB)` / `Price by Configuration (RMB/hour)`, 优云智算 `按量` / `包日` / `包月`),
and the consoles' own column and billing names (阿里云 实例规格 / 付费类型
按量付费·抢占式实例·包年包月, 华为云 规格名称 / 计费模式 按需计费·竞价计费, 京东云 按配置计费,
UCloud 按时/按月/按年, 腾讯云 API POSTPAID_BY_HOUR).

The table layouts are the providers' own (the header rows below are the ones of the price
pages the catalog cites); each file adds a provider column (厂商) and, where the page names the
GPU only in a header, a GPU column (显卡): `offers import` needs both on every row.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.errors import UserError
from gpuwise.prices.price_columns import price_column
from gpuwise.prices.quote_rows import read_rows
from gpuwise.prices.quotes import quote_from_row

TODAY = dt.date(2026, 12, 4)


def quotes(text: str, fmt: str = "csv") -> list[tuple[str, str, str, float, str, str | None]]:
    """(provider, instance, billing, price, per, currency) of every row, validated."""
    cat = load_catalog(use_overrides=False)
    rows = read_rows(text, fmt)
    out = []
    for line, row in rows.rows:
        q = quote_from_row(cat, line, row, TODAY, rows.decimal)
        out.append((q.provider, q.instance, q.billing, q.price, q.per, q.currency))
    return out


def test_tencent_price_overview_table_gives_a_quote_per_billing_column() -> None:
    # 腾讯云 GPU 云服务器 价格总览 (the table the catalog's tencent.toml cites), plus 厂商 and 显卡
    text = (
        "厂商,实例规格,显卡,卡数,GPU 显存（GB）,vCPU（核）,内存（GB）,"
        "包年包月（元/月）,按量计费（元/小时）\n"
        "腾讯云,GN8.LARGE56,Tesla P40,1,24,6,56,3520,12.07\n"
        "腾讯云,GN8.14XLARGE448,Tesla P40,8,192,56,448,28800,98.82\n"
    )
    got = quotes(text)
    assert ("tencent", "GN8.LARGE56", "monthly", 3520.0, "month", "CNY") in got
    assert ("tencent", "GN8.LARGE56", "on-demand", 12.07, "hour", "CNY") in got
    assert ("tencent", "GN8.14XLARGE448", "on-demand", 98.82, "hour", "CNY") in got
    assert len(got) == 4
    rows = read_rows(text, "csv").rows
    assert {r["vcpu"] for _, r in rows} == {"6", "56"} and {r["ram_gb"] for _, r in rows} == {
        "56",
        "448",
    }


def test_a_price_range_as_printed_is_refused_not_guessed() -> None:
    # the page prints GN10X as "16.21 - 18.04": the user has to pick the price they were offered
    text = (
        "厂商,实例规格,显卡,按量计费（元/小时）\n腾讯云,GN10X.2XLARGE40,V100 32GB,16.21 - 18.04\n"
    )
    with pytest.raises(UserError) as err:
        quotes(text)
    assert err.value.render().startswith("line 2: price:") and "16.21 - 18.04" in err.value.render()


def test_jd_cloud_price_overview_english_headers() -> None:
    # JD Cloud Virtual Machines "Price Overview" (jdcloudcom/en, the table jdcloud.toml cites)
    text = (
        "provider,Instance Type,gpu,gpu_count,CPU (Core),Memory (GB),Monthly Price (RMB),"
        "Price by Configuration (RMB/hour),Remarks\n"
        'jdcloud,p.n1v100.2xlarge,V100,1,8,44,5969,20.73,"1*V100, 1*6000GB HDD"\n'
    )
    got = quotes(text)
    assert sorted(got) == [
        ("jdcloud", "p.n1v100.2xlarge", "monthly", 5969.0, "month", "CNY"),
        ("jdcloud", "p.n1v100.2xlarge", "on-demand", 20.73, "hour", "CNY"),
    ]
    row = read_rows(text, "csv").rows[0][1]
    assert row["vcpu"] == "8" and row["ram_gb"] == "44" and row["note"].startswith("1*V100")


def test_compshare_billing_table_reads_hourly_and_monthly_and_skips_daily() -> None:
    # 优云智算 计费概览: 型号 | 显存 | 按量 | 包日 | 包月 (包日 has no billing mode in gpuwise)
    text = (
        "厂商,实例,显卡,显存,按量,包日,包月\n"
        "优云智算,4090-24G,RTX 4090,24G,1.66,36.73,1001.95\n"
        "优云智算,P40,Tesla P40,24G,0.4,8.97,244.84\n"
    )
    got = quotes(text)
    assert ("compshare", "4090-24G", "on-demand", 1.66, "hour", None) in got
    assert ("compshare", "4090-24G", "monthly", 1001.95, "month", None) in got
    assert len(got) == 4 and all(q[3] not in (36.73, 8.97) for q in got)


def test_alibaba_console_names_of_billing_and_price() -> None:
    # 阿里云: 实例规格, 付费类型 (包年包月 / 按量付费 / 抢占式实例, GPU云服务器 计费说明), 官网价
    text = (
        "厂商,实例规格,GPU 类型,GPU 数量,付费类型,官网价,单价单位,地域\n"
        "阿里云,ecs.gn7i-c8g1.2xlarge,NVIDIA A10,1,按量付费,12.5,元/小时,cn-beijing\n"
        "阿里云,ecs.gn7i-c8g1.2xlarge,NVIDIA A10,1,抢占式实例,2.1,元/小时,cn-beijing\n"
        "阿里云,ecs.gn7i-c8g1.2xlarge,NVIDIA A10,1,包年包月,3030,元/月,cn-beijing\n"
    )
    got = quotes(text)
    assert [(q[0], q[2], q[3], q[4]) for q in got] == [
        ("alibaba", "on-demand", 12.5, "hour"),
        ("alibaba", "spot", 2.1, "hour"),
        ("alibaba", "monthly", 3030.0, "month"),
    ]


@pytest.mark.parametrize(
    ("provider", "billing", "expected"),
    [
        ("华为云", "按需计费", "on-demand"),
        ("华为云", "竞价计费", "spot"),
        ("腾讯云", "按量计费", "on-demand"),
        ("腾讯云", "POSTPAID_BY_HOUR", "on-demand"),
        ("腾讯云", "SPOTPAID", "spot"),
        ("京东云", "按配置计费", "on-demand"),
        ("火山引擎", "抢占式实例", "spot"),
        ("百度智能云", "后付费", "on-demand"),
        ("UCloud", "按时", "on-demand"),
        ("UCloud", "按年", "yearly"),
        ("金山云", "包年包月", "monthly"),
    ],
)
def test_each_console_billing_name_lands_on_its_mode(
    provider: str, billing: str, expected: str
) -> None:
    text = f"厂商,规格名称,显卡,计费模式,价格\n{provider},gpu-1,A10,{billing},10\n"
    [(_, _, got, _, _, _)] = quotes(text)
    assert got == expected


def test_an_ambiguous_billing_name_is_refused_with_the_choices() -> None:
    # 华为云 "包年/包月" does not say which period the price covers
    text = "厂商,规格名称,显卡,计费模式,价格\n华为云,p2s.2xlarge.8,V100,包年/包月,5000\n"
    with pytest.raises(UserError) as err:
        quotes(text)
    assert "monthly" in err.value.render() and "yearly" in err.value.render()


def test_a_per_minute_price_column_is_not_read_as_hourly() -> None:
    # UCloud UAI-Train prices nodes per minute (单价(元／分钟)): not a period a quote holds
    assert price_column("单价(元／分钟)") is None
    assert price_column("按量（元/分钟）") is None
    assert price_column("包日（元/天）") is None
    text = "厂商,实例,显卡,按量（元/分钟）\nUCloud,uai-train-p40,P40,0.10\n"
    with pytest.raises(UserError) as err:
        quotes(text)
    assert err.value.key == "prices.missing_column"  # the column is not read at all


def test_price_column_headers_name_billing_period_and_currency() -> None:
    col = price_column("按量计费（元/小时）")
    assert col is not None and (col.billing, col.per, col.currency) == ("on-demand", "hour", "CNY")
    col = price_column("monthly_price_(rmb)")  # "Monthly Price (RMB)" as the reader folds it
    assert col is not None and (col.billing, col.per, col.currency) == ("monthly", None, "CNY")
    col = price_column("spot price (usd/h)")
    assert col is not None and (col.billing, col.per, col.currency) == ("spot", "hour", "USD")
    assert price_column("价格") is None and price_column("instance") is None


def test_a_plain_price_column_wins_over_billing_columns() -> None:
    # a long-format file that also carries a 包月 column keeps its own billing/price per row
    text = "厂商,实例,显卡,计费方式,价格,包月\nAutoDL,4090-1,RTX 4090,按量,1.98,1100\n"
    assert quotes(text) == [("autodl", "4090-1", "on-demand", 1.98, "hour", None)]


def test_json_export_with_price_columns_expands_too(tmp_path: Path) -> None:
    text = (
        '[{"厂商": "京东云", "实例规格": "p.n1p40.3xlarge", "显卡": "P40", '
        '"包年包月（元/月）": "4241.5", "按配置计费（元/小时）": "14.73"}]'
    )
    got = quotes(text, "json")
    assert sorted((q[2], q[3], q[4]) for q in got) == [
        ("monthly", 4241.5, "month"),
        ("on-demand", 14.73, "hour"),
    ]


def test_offers_import_takes_the_tencent_table(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "tencent-gn8.csv"
    src.write_text(
        "\ufeff厂商,实例规格,显卡,卡数,包年包月（元/月）,按量计费（元/小时）\n"
        "腾讯云,GN8.3XLARGE112-mine,Tesla P40,2,7200,24.71\n",
        encoding="utf-8",
    )
    res = cli("offers", "import", str(src), "--json")
    assert res.code == 0, res.err
    rows = cli("offers", "--provider", "tencent", "--currency", "CNY", "--json").json()["offers"]
    mine = {r["billing"]: r for r in rows if r["instance"].startswith("GN8.3XLARGE112-mine")}
    assert set(mine) == {"monthly", "on-demand"} and mine["on-demand"]["origin"] == "user"
    assert mine["on-demand"]["price"]["amount"] == 24.71 and mine["monthly"]["gpu_count"] == 2


def test_offers_import_takes_a_console_export_without_provider_column(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A console export is one cloud's own list and has no 厂商 column: `--provider` names it
    once (issue 29 item 4: "let `offers import` take the console's export as is"); a row that
    names its own provider keeps it, and without `--provider` the missing column is one line."""
    src = tmp_path / "aliyun-export.csv"
    src.write_text(
        "\ufeff实例规格,GPU 类型,GPU 数量,付费类型,官网价,单价单位,地域\n"
        "ecs.gn8v-8x.48xlarge,H20,8,按量付费,88.5,元/小时,cn-beijing\n",
        encoding="utf-8",
    )
    bare = cli("offers", "import", str(src))
    assert bare.code == 2 and "provider" in bare.err and "Traceback" not in bare.err
    res = cli("offers", "import", str(src), "--provider", "阿里云", "--json")
    assert res.code == 0, res.err
    rows = cli("offers", "--provider", "alibaba", "--currency", "CNY", "--json").json()["offers"]
    [mine] = [r for r in rows if r["origin"] == "user"]
    assert mine["instance"] == "ecs.gn8v-8x.48xlarge" and mine["price"]["amount"] == 88.5
    assert mine["gpu_count"] == 8 and mine["billing"] == "on-demand"


def test_import_provider_flag_fills_only_rows_without_one(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "mixed.csv"
    src.write_text(
        "厂商,实例规格,显卡,卡数,按量计费（元/小时）\n"
        ",ecs.gn7i-mine,A10,1,9.9\n"
        "腾讯云,GN7.mine,T4,1,8.8\n",
        encoding="utf-8",
    )
    res = cli("offers", "import", str(src), "--provider", "alibaba", "--json")
    assert res.code == 0, res.err
    ali = cli("offers", "--provider", "alibaba", "--json").json()["offers"]
    ten = cli("offers", "--provider", "tencent", "--json").json()["offers"]
    assert [r["instance"] for r in ali if r["origin"] == "user"] == ["ecs.gn7i-mine"]
    assert [r["instance"] for r in ten if r["origin"] == "user"] == ["GN7.mine"]
