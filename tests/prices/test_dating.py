"""Every price carries two dates (published, retrieved) or says it has none; staleness is judged
on the published date, and "stale" and "date unknown" reach offers, cost and plan (text, JSON)."""

from __future__ import annotations

import datetime as dt

from gpuwise.catalog import load_catalog
from gpuwise.catalog.dating import offer_price_dates

TODAY = dt.date(2026, 12, 2)


def _price_sources() -> dict[str, set[str]]:
    cat = load_catalog()
    used: dict[str, set[str]] = {}
    for o in cat.offers:
        for p in o.prices:
            if not (p.published or o.published):
                used.setdefault(p.source or o.source, set()).add(f"offer {o.provider}:{o.instance}")
    for h in cat.hidden_costs.values():
        for sid in {h.source, *h.field_sources.values()}:
            used.setdefault(sid, set()).add(f"hidden {h.provider}")
    for t in cat.extra("tariff"):
        if t.date is None:
            used.setdefault(t.source, set()).add(f"tariff {t.id}")
    for g in cat.gpus:
        for c in g.prices:
            if c.date is None:
                used.setdefault(c.source, set()).add(f"card {g.id}")
    return used


def test_every_price_source_states_its_date_or_says_undated() -> None:
    cat = load_catalog()
    missing = {
        sid: sorted(where)[:3]
        for sid, where in _price_sources().items()
        if cat.sources[sid].published is None
    }
    assert not missing, missing  # add `published = YYYY-MM-DD` or `published = "undated"`


def test_dated_prices_have_plausible_dates_and_a_basis() -> None:
    cat = load_catalog()
    for sid in _price_sources():
        s = cat.sources[sid]
        if s.published_date is not None:
            assert dt.date(2010, 1, 1) <= s.published_date <= s.retrieved, sid
            assert s.dated_by in ("page", "commit", "snapshot", "feed", "user"), sid
    for g in cat.gpus:  # card, part and FX prices carry their own dates
        assert all(p.date is None or p.date <= TODAY for p in g.prices), g.id
    assert all(p.date <= TODAY for p in cat.extra("host_part"))


def test_staleness_is_judged_on_the_published_date() -> None:
    cat = load_catalog()
    old = next(
        o for o in cat.offers if o.provider == "alibaba" or o.source == "tencent-gpu-price-overview"
    )
    when = offer_price_dates(cat, old, old.prices[0])
    # read this week (2026-12-02 for the Tencent list, 2026-12-05 for the Alibaba 2023 list),
    # published long before: the age comes from `published`, not from when it was read
    assert when.retrieved is not None and when.retrieved >= TODAY
    assert when.published != when.retrieved


def test_marks_in_offers_text_and_json(cli) -> None:  # type: ignore[no-untyped-def]
    data = cli("offers", "--json").json()["offers"]
    assert any(r["stale"] for r in data) and any(r["undated"] for r in data)
    assert all(r["retrieved"] for r in data)
    assert all(not r["stale"] for r in data if r["undated"])
    text = cli("offers", "--region", "cn").out
    assert "(stale)" in text and "date unknown" in text and "180 days" in text
    zh = cli("offers", "--region", "cn", "--lang", "zh").out
    assert "日期未知" in zh and "已过时" in zh


def test_marks_in_cost_text_and_json(cli) -> None:  # type: ignore[no-untyped-def]
    args = ("cost", "--own", "rtx-4090", "--vs", "tencent:GT4.4XLARGE96:on-demand")
    data = cli(*args, "--json").json()
    refs = [p for o in data["options"] for p in o["prices"]]
    offer = next(p for p in refs if p["label"].startswith("offer:tencent"))
    assert offer["undated"] and offer["date"] is None and offer["retrieved"] == "2026-12-02"
    assert any(p["stale"] for p in refs)
    text = cli(*args).out
    assert "date unknown" in text and "(stale)" in text


def test_marks_in_plan_text_and_json(cli) -> None:  # type: ignore[no-untyped-def]
    data = cli("plan", "--example", "--json").json()
    risks = {r["id"] for o in data["options"] for r in o["risks"]}
    assert "stale_price" in risks
    prices = [p for o in data["options"] for p in o["prices"]]
    assert prices and all({"published", "retrieved", "undated", "stale"} <= set(p) for p in prices)
    gcp = cli("plan", "--example", "--json", "--region", "global").json()
    undated = {r["id"] for o in gcp["options"] for r in o["risks"]}
    assert "undated_price" in undated
    text = cli("plan", "--example", "--region", "global").out
    assert "price date unknown" in text or "state no date" in text
