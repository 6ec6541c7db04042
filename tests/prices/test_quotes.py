"""`gpuwise offers add` / `offers import`: the user's quotes as override files, never overwritten,
bad rows named by line, and the plan treating them like built-in offers while saying whose."""

from __future__ import annotations

import json
from pathlib import Path

from gpuwise.catalog import files as F

ADD = (
    "offers", "add", "--provider", "alibaba", "--instance", "ecs.gn8v-8x.48xlarge",
    "--gpu", "H20", "--count", "8", "--billing", "on-demand", "--price", "88.5",
    "--date", "2026-11-28", "--region", "cn-beijing", "--note", "console, 2026-11-28",
)  # fmt: skip


def test_add_writes_a_managed_file_and_offers_show_it(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli(*ADD)
    assert res.code == 0, res.err
    path = F.override_dir() / "quotes-alibaba.toml"
    assert path.exists() and "gpuwise-managed" in path.read_text().splitlines()[0]
    rows = cli("offers", "--provider", "alibaba", "--currency", "CNY", "--json").json()
    [row] = [r for r in rows["offers"] if r["origin"] == "user"]  # beside the built-in 2023 list
    assert row["origin"] == "user" and row["date"] == "2026-11-28" and row["gpu_count"] == 8
    assert row["per_gpu_hour"] == 88.5 / 8 and row["price_region"] == "cn-beijing"
    text = cli("offers", "--provider", "alibaba")
    assert "(your quote)" in text.out and "a price you added" in text.out
    # a second quote for the same instance adds a billing mode; the old file is kept as .bak
    more = cli(
        *ADD[:10], "--billing", "monthly", "--price", "42000", "--per", "month",
        "--region", "cn-beijing",
    )  # fmt: skip
    assert more.code == 0, more.err
    assert (path.parent / "quotes-alibaba.toml.bak").exists()
    rows = cli("offers", "--provider", "alibaba", "--json").json()["offers"]
    mine = [r for r in rows if r["origin"] == "user"]
    assert sorted(r["billing"] for r in mine) == ["monthly", "on-demand"]


def test_add_refuses_a_file_it_did_not_write(cli) -> None:  # type: ignore[no-untyped-def]
    folder = F.override_dir()
    folder.mkdir(parents=True)
    mine = folder / "quotes-alibaba.toml"
    mine.write_text("# my own notes\n")
    res = cli(*ADD)
    assert res.code == 2 and "not written by gpuwise" in res.err
    assert mine.read_text() == "# my own notes\n"


def test_add_without_a_terminal_names_the_missing_flag(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli("offers", "add", "--provider", "autodl", "--gpu", "4090")
    assert res.code == 2 and "--instance" in res.err


def test_import_csv_with_console_headers_new_provider(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "autodl.csv"
    src.write_text(
        "厂商,实例,显卡,卡数,计费方式,价格,日期,地域,备注\n"
        "AutoDL,4090-1,RTX 4090,1,按量,1.98,2026-11-30,西北B区,console copy\n"
        "AutoDL,4090-1,RTX 4090,1,包月,1100,2026-11-30,西北B区,\n",
        encoding="utf-8",
    )
    res = cli("offers", "import", str(src), "--json")
    assert res.code == 0, res.err
    [written] = res.json()["files"]
    assert Path(written).name.startswith("import-autodl-autodl-")
    rows = cli("offers", "--provider", "autodl", "--currency", "CNY", "--json").json()["offers"]
    # AutoDL also has catalog offers now (its public price list): the imported rows are the user's
    by = {r["billing"]: r for r in rows if r["origin"] == "user"}
    assert by["on-demand"]["price"]["amount"] == 1.98 and by["on-demand"]["origin"] == "user"
    assert by["monthly"]["price"]["per"] == "month"  # "包月 1100" is 1,100 a month
    again = cli("offers", "import", str(src), "--json")  # a second import: a second file
    assert again.code == 0, again.err
    assert again.json()["files"][0] != written and Path(written).exists()


def test_import_bad_rows_name_the_line(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    csv = tmp_path / "quote.csv"
    csv.write_text(
        "provider,instance,gpu,gpu_count,billing,price\n"
        "alibaba,gn7i,A10,1,on-demand,10.5\n"
        "alibaba,gn7i-2,A10,2,on-demand,cheap\n"
    )
    res = cli("offers", "import", str(csv))
    assert res.code == 2 and "line 3" in res.err and "price" in res.err and "cheap" in res.err
    assert not F.override_files()  # nothing imported
    js = tmp_path / "quote.json"
    js.write_text(
        json.dumps(
            [
                {
                    "provider": "alibaba",
                    "instance": "a",
                    "gpu": "A10",
                    "billing": "spot",
                    "price": 3,
                },
                {
                    "provider": "alibaba",
                    "instance": "b",
                    "gpu": "A801",
                    "billing": "spot",
                    "price": 3,
                },
            ],
            indent=1,
        )
    )
    res = cli("offers", "import", str(js))
    assert res.code == 2 and "line 9" in res.err and "A801" in res.err  # its "{" line
    toml = tmp_path / "quote.toml"
    toml.write_text(
        '[[quote]]\nprovider = "alibaba"\ninstance = "a"\ngpu = "A10"\nbilling = "spot"\n'
        'price = 3\n\n[[quote]]\nprovider = "alibaba"\ninstance = "b"\ngpu = "A10"\n'
        'billing = "weekly"\nprice = 3\n'
    )
    res = cli("offers", "import", str(toml))
    assert res.code == 2 and "line 8" in res.err and "weekly" in res.err
    # A currency other than the provider's is no longer refused: it is kept as given, with a
    # note (issue 27, oa-price-usd-cny); see test_inputs_kept.py.
    usd = tmp_path / "usd.csv"
    usd.write_text("provider,instance,gpu,billing,price,currency\nalibaba,x,A10,spot,1,EUR\n")
    res = cli("offers", "import", str(usd))
    assert res.code == 0 and "CNY" in res.out and "1 EUR" in res.out and "line 2" in res.out
    dup = tmp_path / "dup.csv"
    dup.write_text(
        "provider,instance,gpu,billing,price\nalibaba,x,A10,spot,1\nalibaba,x,A10,spot,2\n"
    )
    res = cli("offers", "import", str(dup))
    assert res.code == 2 and "line 3" in res.err and "line 2" in res.err


def test_provider_without_public_prices_says_how_to_add(cli) -> None:  # type: ignore[no-untyped-def]
    # Huawei: log-in-only prices and no built-in offer (Alibaba now has its 2023 list)
    res = cli("offers", "--provider", "huawei")
    assert res.code == 0 and "after log-in" in res.out and "gpuwise offers add" in res.out
    zh = cli("offers", "--provider", "huawei", "--lang", "zh")
    assert "登录后" in zh.out and "华为云" in zh.out
    data = cli("offers", "--provider", "huawei", "--json").json()
    assert data["offers"] == [] and "offers import" in data["hint"]


def test_plan_ranks_a_quote_and_says_it_is_yours(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    quote = tmp_path / "q.csv"
    quote.write_text(
        "provider,instance,gpu,gpu_count,billing,price,date,region\n"
        "suanjiayun,RTX 4090 ×1 (friend),RTX 4090,1,on-demand,0.30,2026-11-30,cn\n"
    )
    assert cli("offers", "import", str(quote)).code == 0
    res = cli("plan", "--example", "--json")
    assert res.code == 0, res.err
    best = res.json()["options"][0]
    assert best["instance"] == "RTX 4090 ×1 (friend)"
    assert "user_quote" in {r["id"] for r in best["risks"]}
    assert best["prices"][0]["origin"] == "user" and best["prices"][0]["date"] == "2026-11-30"
    text = cli("plan", "--example")
    assert "your quote" in text.out and "your own quote" in text.out
