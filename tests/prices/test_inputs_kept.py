"""Issue 27, "data the user gives is kept as given": every finding of review 3 (newcomer.md) on
provider names, prices with units and the user's files, as a test named after it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gpuwise.catalog import files as F
from gpuwise.catalog import load_catalog

ADD = ("offers", "add", "--instance", "x", "--gpu", "a10", "--billing", "on-demand")


def _user_offers(cli, provider: str) -> list[dict]:  # type: ignore[no-untyped-def,type-arg]
    res = cli("offers", "--provider", provider, "--currency", "CNY", "--json")
    assert res.code == 0, res.err
    return [o for o in res.json()["offers"] if o["origin"] == "user"]


def _csv(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------- provider names


def test_map_quotes_huawei(cli) -> None:  # type: ignore[no-untyped-def]
    """`offers add --provider huawei` wrote quotes-alibaba.toml."""
    res = cli(*ADD, "--provider", "huawei", "--price", "3")
    assert res.code == 0, res.err
    assert [p.name for p in F.override_files()] == ["quotes-huawei.toml"]
    assert [o["instance"] for o in _user_offers(cli, "huawei")] == ["x"]
    assert _user_offers(cli, "alibaba") == []


@pytest.mark.parametrize("name", ["腾讯云", "Tencent Cloud", "tencentcloud", "TENCENT", "腾讯"])
def test_map_quotes_tencent(cli, name: str) -> None:  # type: ignore[no-untyped-def]
    res = cli(*ADD, "--provider", name, "--price", "3")
    assert res.code == 0, res.err
    assert [p.name for p in F.override_files()] == ["quotes-tencent.toml"]
    assert [o["provider"] for o in _user_offers(cli, name)] == ["tencent"]


def test_map_import_huawei(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = _csv(
        tmp_path,
        "q.csv",
        "provider,instance,gpu,billing,price\nhuawei,p2s,V100,on-demand,20\n"
        "华为云,p2v,V100,on-demand,21\nHuawei Cloud,p2w,V100,on-demand,22\n",
    )
    res = cli("offers", "import", str(src), "--json")
    assert res.code == 0, res.err
    [written] = res.json()["written"]
    assert "-huawei-" in Path(written["file"]).name and written["quotes"] == 3
    assert sorted(o["instance"] for o in _user_offers(cli, "华为云")) == ["p2s", "p2v", "p2w"]


def test_map_import_tencent_zh(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A CSV row `腾讯云,GN7…` was imported into import-…-alibaba-….toml, and `offers --provider
    腾讯云` listed Alibaba's quotes."""
    src = _csv(
        tmp_path,
        "console.csv",
        "厂商,实例,显卡,计费方式,价格\n腾讯云,GN7-mine,T4,按量,8\n阿里云,gn7i-mine,A10,按量,9\n",
    )
    res = cli("offers", "import", str(src))
    assert res.code == 0, res.err
    names = sorted(p.name for p in F.override_files())
    assert any("-tencent-" in n for n in names) and any("-alibaba-" in n for n in names)
    assert [o["instance"] for o in _user_offers(cli, "腾讯云")] == ["GN7-mine"]
    assert [o["instance"] for o in _user_offers(cli, "阿里云")] == ["gn7i-mine"]


def test_cost_vs_takes_a_chinese_provider_name(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli(
        "cost", "--own", "rtx-4090", "--vs", "腾讯云:GN7.2XLARGE32", "--months", "6", "--json"
    )
    assert res.code == 0, res.err
    assert "tencent:GN7.2XLARGE32" in res.out


@pytest.mark.parametrize(
    ("args", "nearest"),
    [
        ((*ADD, "--provider", "tencnet", "--price", "3"), "tencent"),
        (("offers", "--provider", "华为"), None),  # an alias: resolves, exit 0
        (("offers", "--provider", "huawie"), "huawei"),
        (("cost", "--own", "rtx-4090", "--vs", "alibabba:x"), "alibaba"),
    ],
)
def test_unknown_provider_is_exit_2_with_the_nearest(cli, args, nearest) -> None:  # type: ignore[no-untyped-def]
    res = cli(*args)
    if nearest is None:
        assert res.code == 0, res.err
        return
    assert res.code == 2 and nearest in res.err and len(res.err.strip().splitlines()) == 1
    assert not F.override_files()  # nothing filed under anyone


def test_unknown_chinese_name_is_never_folded_into_alibaba(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli(*ADD, "--provider", "某某算力", "--price", "3")
    assert res.code == 2 and "--new-provider" in res.err and "alibaba" in res.err  # listed
    assert not F.override_files()
    res = cli(*ADD, "--provider", "某某算力", "--price", "3", "--new-provider")
    assert res.code == 0, res.err
    [path] = F.override_files()
    assert "alibaba" not in path.name and "某某算力" in path.read_text(encoding="utf-8")
    assert [o["instance"] for o in _user_offers(cli, "某某算力")] == ["x"]  # found by its name


@pytest.mark.parametrize(
    "name", ["京东云", "JD Cloud", "jdcloud", "金山云", "Kingsoft Cloud", "ksyun"]
)
def test_jd_and_kingsoft_are_providers(cli, name: str) -> None:  # type: ignore[no-untyped-def]
    res = cli("offers", "--provider", name)
    assert res.code == 0 and "gpuwise offers add" in res.out  # no public prices: how to add


def test_override_cannot_take_another_providers_name(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = F.override_dir()
    folder.mkdir(parents=True)
    (folder / "mine.toml").write_text(
        '[sources.me]\nurl = "https://example.org/me"\nretrieved = 2026-12-01\n\n'
        '[provider]\nid = "my-reseller"\nname_en = "My Reseller"\nname_zh = "华为云"\n'
        'region_kind = "cn"\ncurrency = "CNY"\nsource = "me"\n',
        encoding="utf-8",
    )
    res = cli("offers", "--provider", "华为云", "--json")
    assert res.code == 0 and "mine.toml" in res.err and "华为云" in res.err  # skipped, named
    assert res.json()["offers"] == [] and "Huawei" in res.json()["hint"]


# ---------------------------------------------------------------- prices with units


def test_oa_price_usd_cny(cli) -> None:  # type: ignore[no-untyped-def]
    """`--price '$8'` for AutoDL (a CNY provider) was stored as 8.0 CNY."""
    res = cli(*ADD, "--provider", "autodl", "--price", "$8")
    assert res.code == 0, res.err
    assert "usually prices in CNY" in res.out and "8 USD" in res.out
    text = (F.override_dir() / "quotes-autodl.toml").read_text(encoding="utf-8")
    assert 'currency = "USD"' in text and "amount = 8.0" in text
    [offer] = _user_offers(cli, "autodl")
    assert offer["price"] == {"amount": 8.0, "per": "hour", "currency": "USD"}
    rate = next(r.rate for r in load_catalog().extra("rate") if r.currency == "CNY")
    assert offer["per_gpu_hour"] == pytest.approx(8 * rate)  # shown converted, dated rate
    zh = cli(*ADD[:3], "y", *ADD[4:], "--provider", "autodl", "--price", "€8", "--lang", "zh")
    assert zh.code == 0 and "通常以 CNY 计价" in zh.out


@pytest.mark.parametrize(
    ("price", "amount", "currency", "per"),
    [
        ("$8", 8.0, "USD", "hour"),
        ("¥8", 8.0, None, "hour"),
        ("8元", 8.0, None, "hour"),
        ("8 RMB", 8.0, None, "hour"),
        ("€8", 8.0, "EUR", "hour"),
        ("8 USD/h", 8.0, "USD", "hour"),
        ("1100元/月", 1100.0, None, "month"),
        ("1,500.00", 1500.0, None, "hour"),
        ("1 500,00", 1500.0, None, "hour"),
        ("1500元", 1500.0, None, "hour"),
    ],
)
def test_price_units_on_the_command_line(cli, price, amount, currency, per) -> None:  # type: ignore[no-untyped-def]
    res = cli(*ADD, "--provider", "autodl", "--price", price)
    assert res.code == 0, res.err
    [offer] = _user_offers(cli, "autodl")
    assert offer["price"] == {"amount": amount, "per": per, "currency": currency or "CNY"}


def test_oi_semicolon(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """`;` separator, price `1,98`: stored as 198.0."""
    src = _csv(
        tmp_path,
        "semicolon.csv",
        "provider;instance;gpu;billing;price\nautodl;a;a10;on-demand;1,98\n"
        "autodl;b;a10;on-demand;1.500,00\nautodl;c;a10;on-demand;1 500,5\n",
    )
    res = cli("offers", "import", str(src))
    assert res.code == 0, res.err
    got = {o["instance"]: o["price"]["amount"] for o in _user_offers(cli, "autodl")}
    assert got == {"a": 1.98, "b": 1500.0, "c": 1500.5}


def test_ambiguous_price_is_refused_with_its_readings(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = _csv(
        tmp_path, "amb.csv", "provider;instance;gpu;billing;price\nautodl;a;a10;spot;1,500\n"
    )
    res = cli("offers", "import", str(src))
    assert res.code == 2 and "line 2" in res.err and "1.5 / 1500" in res.err
    assert not F.override_files()


def test_oi_price_units(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """`1500元` in the price column was refused, although the README promises units."""
    src = _csv(
        tmp_path,
        "price-units.csv",
        "provider,instance,gpu,billing,price\nautodl,m,a10,monthly,1500元\n"
        'autodl,u,a10,on-demand,$0.3/h\nautodl,g,a10,spot,"1,500.00 RMB/月"\n',
    )
    res = cli("offers", "import", str(src))
    assert res.code == 0, res.err
    got = {o["instance"]: o["price"] for o in _user_offers(cli, "autodl")}
    assert got["m"] == {"amount": 1500.0, "per": "month", "currency": "CNY"}
    assert got["u"] == {"amount": 0.3, "per": "hour", "currency": "USD"}
    assert got["g"] == {"amount": 1500.0, "per": "month", "currency": "CNY"}


def test_price_and_currency_column_must_agree(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = _csv(
        tmp_path,
        "q.csv",
        "provider,instance,gpu,billing,price,currency\nautodl,a,a10,spot,$8,CNY\n",
    )
    res = cli("offers", "import", str(src))
    assert res.code == 2 and "USD" in res.err and "CNY" in res.err and "line 2" in res.err


def test_map_formula(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A spreadsheet formula as a provider or instance was stored as given."""
    for row in ("=cmd|' /c calc'!A1,x,a10,spot,1", "autodl,@SUM(A1),a10,spot,1"):
        src = _csv(tmp_path, "formula.csv", "provider,instance,gpu,billing,price\n" + row + "\n")
        res = cli("offers", "import", str(src), "--new-provider")
        assert res.code == 2 and "formula" in res.err and "line 2" in res.err
    assert not F.override_files()
    ok = _csv(
        tmp_path, "ok.csv", "provider,instance,gpu,billing,price\nautodl,-1x4090,a10,spot,1\n"
    )
    assert cli("offers", "import", str(ok)).code == 0  # a leading minus before a digit is a name


def test_oa_date_bad(cli) -> None:  # type: ignore[no-untyped-def]
    """ "date '2026-13-45' is not a positive number"."""
    res = cli(*ADD, "--provider", "autodl", "--price", "3", "--date", "2026-13-45")
    assert res.code == 2 and "not a date" in res.err and "positive" not in res.err


# ---------------------------------------------------------------- the user's files


def test_oi_json_nested(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """100 000 nested `[`: RecursionError, "unexpected error"."""
    src = _csv(tmp_path, "nested.json", "[" * 100_000 + "]" * 100_000)
    res = cli("offers", "import", str(src))
    assert res.code == 2 and "nested more than" in res.err
    assert "unexpected" not in res.err and len(res.err.strip().splitlines()) == 1


def test_oi_json_list_of_ints(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A JSON list of ints got "a CSV needs a header row"."""
    res = cli("offers", "import", str(_csv(tmp_path, "ints.json", "[1, 2, 3]")))
    assert res.code == 2 and "list of objects" in res.err and "CSV" not in res.err


def test_oi_binary(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A binary CSV got "give a YAML, TOML or JSON file"."""
    path = tmp_path / "binary.csv"
    path.write_bytes(bytes(range(256)) * 8)
    res = cli("offers", "import", str(path))
    assert res.code == 2 and "CSV" in res.err and "YAML" not in res.err


def test_nb_config_readonly(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """An unwritable config folder raised PermissionError ("unexpected error")."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("GPUWISE_CONFIG_DIR", str(blocker / "cfg"))
    for args in ((*ADD, "--provider", "autodl", "--price", "3"),):
        res = cli(*args)
        assert res.code == 2 and "GPUWISE_CONFIG_DIR" in res.err and "unexpected" not in res.err
    if os.geteuid() != 0:  # root writes anywhere: the permission case needs a normal user
        ro = tmp_path / "ro"
        (ro / "catalog").mkdir(parents=True)
        (ro / "catalog").chmod(0o555)
        monkeypatch.setenv("GPUWISE_CONFIG_DIR", str(ro))
        res = cli(*ADD, "--provider", "autodl", "--price", "3")
        assert res.code == 2 and "unexpected" not in res.err


def test_import_reports_each_file_with_its_own_count(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """ "Imported N price(s)" was printed once per file, each time with the total."""
    src = _csv(
        tmp_path,
        "two.csv",
        "provider,instance,gpu,billing,price\nautodl,a,a10,spot,1\nautodl,b,a10,spot,1\n"
        "tencent,c,t4,on-demand,3\n",
    )
    res = cli("offers", "import", str(src))
    assert res.code == 0, res.err
    lines = [ln for ln in res.out.replace("\n", " ").split("Imported ")[1:]]
    counts = sorted((ln.split(" price")[0], "-autodl-" in ln) for ln in lines)
    assert counts == [("1", False), ("2", True)]


def test_import_over_1_mb(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A 1.3 MB price sheet was refused (the 1 MB limit meant for scenario files)."""
    note = "n" * 4000
    rows = "".join(f"autodl,i{i},a10,on-demand,{1 + i / 100:.2f},{note}\n" for i in range(330))
    src = _csv(tmp_path, "big.csv", "provider,instance,gpu,billing,price,note\n" + rows)
    assert src.stat().st_size > 1_300_000
    res = cli("offers", "import", str(src), "--json")
    assert res.code == 0, res.err
    assert res.json()["quotes"] == 330 and len(_user_offers(cli, "autodl")) == 330


def test_check_error_names_the_quote_file_not_a_temp_file(cli) -> None:  # type: ignore[no-untyped-def]
    """Errors named `.quotes-autodl.toml.9888.toml:21: …`."""
    assert cli(*ADD, "--provider", "autodl", "--price", "1").code == 0
    res = cli(*ADD[:6], "--billing", "spot", "--provider", "autodl", "--price", "2")
    assert res.code == 2 and "quotes-autodl.toml:" in res.err and ".check" not in res.err
    assert "/." not in res.err  # no hidden temporary file


def test_first_add_does_not_claim_a_bak(cli) -> None:  # type: ignore[no-untyped-def]
    """ ".bak kept" was printed when there was no previous file."""
    first = cli(*ADD, "--provider", "autodl", "--price", "1")
    assert first.code == 0 and ".bak" not in first.out
    second = cli(*ADD[:3], "y", *ADD[4:], "--provider", "autodl", "--price", "1")
    assert second.code == 0 and ".bak" in second.out
    assert (F.override_dir() / "quotes-autodl.toml.bak").exists()


def test_loss_md_bak2(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """`plan --markdown notes.md --force`, run twice, lost the original notes.md."""
    notes = tmp_path / "notes.md"
    notes.write_text("my own notes\n", encoding="utf-8")
    for _ in range(3):
        res = cli("plan", "--example", "--markdown", str(notes), "--force")
        assert res.code == 0, res.err
    assert (tmp_path / "notes.md.bak").read_text(encoding="utf-8") == "my own notes\n"
    assert (tmp_path / "notes.md.bak.1").read_text(encoding="utf-8").startswith("#")
    assert not (tmp_path / "notes.md.bak.2").exists()  # bounded: the original and the last one


def test_quote_json_shapes(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "q.json"
    src.write_text(
        json.dumps({"quotes": [{"provider": "火山引擎", "instance": "v", "gpu": "A10",
                                "billing": "spot", "price": "¥2.5"}]}),
        encoding="utf-8",
    )  # fmt: skip
    res = cli("offers", "import", str(src))
    assert res.code == 0, res.err
    assert [o["price"]["amount"] for o in _user_offers(cli, "volcengine")] == [2.5]
