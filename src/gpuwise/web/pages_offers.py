"""The Offers page: cloud offers filtered as `gpuwise offers` filters them, sortable by any
column (links, no script), each price with its date and age."""

from __future__ import annotations

import datetime as dt
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from gpuwise.errors import UserError
from gpuwise.i18n import Lang, get_lang, t
from gpuwise.service.requests import OffersRequest
from gpuwise.web.forms import build, in_lang
from gpuwise.web.html import Markup, el, join
from gpuwise.web.layout import (
    currency_select,
    document,
    error_box,
    field,
    form,
    request_lang,
    text_input,
)

router = APIRouter(include_in_schema=False)
SORTS = ("per_gpu_hour", "provider", "gpu", "billing", "age")
ROWS_SHOWN = 300
"""Rows on the page (the API returns them all): 300 rows keep the page light."""
FILTERS = (
    ("gpu", "rtx-4090"),
    ("provider", "autodl"),
    ("region", "cn"),
    ("billing", "spot"),
    ("max_price", "2.5"),
)


def _age_days(row: dict[str, Any], today: dt.date) -> int | None:
    date = row.get("date")
    try:
        return (today - dt.date.fromisoformat(str(date))).days if date else None
    except ValueError:
        return None


def _sorted(
    rows: list[dict[str, Any]], sort: str, desc: bool, today: dt.date
) -> list[dict[str, Any]]:
    """Rows in the asked order; unknown ages last."""

    def key(r: dict[str, Any]) -> tuple[bool, Any]:
        if sort == "age":
            age = _age_days(r, today)
            return (age is None, age or 0)
        return (r.get(sort) is None, r.get(sort) or "")

    return sorted(rows, key=key, reverse=desc)


def _header(v: dict[str, str], sort: str, desc: bool) -> Markup:
    cells = []
    for col in ("provider", "instance", "gpu", "billing", "per_gpu_hour", "price", "age"):
        label = t(f"web.col_{col}")
        if col in SORTS:
            query = {k: val for k, val in v.items() if k not in ("sort", "desc")}
            query["sort"] = col
            if col == sort and not desc:
                query["desc"] = "1"
            from urllib.parse import urlencode

            arrow = (" ▼" if desc else " ▲") if col == sort else ""
            label_el: Any = el("a", {"href": "/offers?" + urlencode(query)}, label + arrow)
        else:
            label_el = label
        cells.append(el("th", {}, label_el))
    return el("tr", {}, *cells)


def table(data: dict[str, Any], v: dict[str, str]) -> Markup:
    """The offers, sorted, with the published price and its age."""
    today = dt.date.fromisoformat(data["today"])
    sort = v["sort"] if v.get("sort") in SORTS else "per_gpu_hour"
    desc = v.get("desc") == "1"
    rows = _sorted(data["offers"], sort, desc, today)
    lang = get_lang()
    body = []
    for r in rows[:ROWS_SHOWN]:
        age = _age_days(r, today)
        price = r["price"]
        stale = el("span", {"class": "stale"}, t("web.stale")) if r.get("stale") else None
        body.append(
            el(
                "tr",
                {},
                el(
                    "td",
                    {},
                    r["provider_name"][lang]
                    if isinstance(r.get("provider_name"), dict)
                    else r["provider"],
                ),
                el("td", {}, r["instance"]),
                el("td", {}, r["gpu"]),
                el("td", {}, t("billing." + r["billing"])),
                el("td", {"class": "num"}, f"{r['per_gpu_hour']:.3f} {data['currency']}"),
                el(
                    "td",
                    {"class": "num"},
                    f"{price['amount']:g} {price['currency']}/{price['per']}",
                ),
                el(
                    "td",
                    {"class": "num"},
                    t("web.age", days=age, date=r.get("date"))
                    if age is not None
                    else t("web.undated"),
                    stale,
                ),
            )
        )
    more = len(rows) - ROWS_SHOWN
    return join(
        el("p", {}, t("web.offers_count", n=len(rows), currency=data["currency"])),
        el(
            "table",
            {"class": "offers"},
            el("thead", {}, _header(v, sort, desc)),
            el("tbody", {}, *body),
        ),
        el("p", {"class": "note"}, t("web.offers_more", n=more)) if more > 0 else None,
        *(el("p", {"class": "note"}, f) for f in data.get("findings", [])),
        el("p", {"class": "note"}, data["hint"]) if data.get("hint") else None,
    )


def _render(v: dict[str, str], lang: Lang) -> tuple[str, int]:
    from gpuwise.service.calls import run_offers

    error, status, body = None, 200, join()
    try:
        body = table(run_offers(build(OffersRequest, v)).as_json(), v)
    except UserError as exc:
        error, status = exc.render(), 400
    boxes = [field(t(f"web.f_{n}"), text_input(n, v.get(n), hint)) for n, hint in FILTERS]
    the_form = form(
        "get",
        "/offers",
        {"class": "grid"},
        *boxes,
        field(t("web.f_currency"), currency_select(v.get("currency"), lang)),
        el("button", {"type": "submit"}, t("web.offers_submit")),
    )
    page = document(
        "offers",
        lang,
        t("web.nav_offers"),
        el("p", {}, t("web.offers_intro")),
        error_box(error),
        the_form,
        body,
    )
    return page, status


@router.get("/offers", response_class=HTMLResponse)
async def offers_page(request: Request) -> HTMLResponse:
    lang = request_lang(request)
    v = dict(request.query_params)
    v.setdefault("currency", "CNY" if lang == "zh" else "USD")
    text, status = await run_in_threadpool(in_lang, lang, _render, v, lang)
    return HTMLResponse(text, status_code=status)
