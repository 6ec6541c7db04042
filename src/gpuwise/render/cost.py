"""Tables of `gpuwise cost`: the comparison, each option's bill, dated prices and notes."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table

from gpuwise.cost.report_model import (
    BreakEvenEntry,
    CostReport,
    OwnBill,
    RentBill,
    TimelineOption,
)
from gpuwise.documents import NoteEntry
from gpuwise.i18n import Lang, t
from gpuwise.render.offers import date_text, legend_lines
from gpuwise.render.out import fmt_num


def option_name(o: OwnBill | RentBill | TimelineOption, lang: Lang | None = None) -> str:
    """A readable name of an option: 'own rtx-4090 ×2 (consumer)' or 'gcp a2-… (spot)'."""
    if isinstance(o, RentBill) or (isinstance(o, TimelineOption) and o.kind == "rent"):
        billing = t(f"billing.{o.billing}", lang=lang)
        return t(
            "cost.rent_name", lang=lang, provider=o.provider, instance=o.instance, billing=billing
        )
    own: OwnBill | TimelineOption = o
    if own.owned:
        return t("cost.owned_name", lang=lang, gpu=own.gpu, count=own.count)
    if own.system:
        return t(
            "cost.system_name",
            lang=lang,
            system=own.system,
            count=own.systems,
            cards=own.count,
            gpu=own.gpu,
        )
    platform = t("platform." + own.platform, lang=lang)
    return t("cost.own_name", lang=lang, gpu=own.gpu, count=own.count, platform=platform)


def ref_label(label: str) -> str:
    """'part:ssd-nvme-2tb' → 'host part: ssd-nvme-2tb' in the user's language."""
    kind, sep, rest = label.partition(":")
    return f"{t(f'ref.{kind}')}: {rest}" if sep else t(f"ref.{kind}")


def _money(v: float | None) -> str:
    return "—" if v is None else fmt_num(v, 0) if abs(v) >= 100 else fmt_num(v, 2)


def _break_even_cells(be: BreakEvenEntry | None) -> tuple[str, str]:
    if be is None:
        return ("—", "—")
    if be.hours_per_day is not None:
        hours = t("cost.be_hours", h=f"{be.hours_per_day:.1f}")
    else:
        hours = t(f"cost.be_always_{be.cheaper_always}")
    months = str(be.months) if be.months is not None else t("cost.be_never")
    return hours, months


def summary_table(report: CostReport) -> Table:
    """One row an option: total, per month, break-even use and month against owning."""
    cur = report.currency
    table = Table(title=t("cost.summary_title"), title_justify="left", box=box.SIMPLE_HEAD)
    for key, justify in (
        ("cost.col_option", "left"),
        ("cost.col_total", "right"),
        ("cost.col_monthly", "right"),
        ("cost.col_be_hours", "right"),
        ("cost.col_be_months", "right"),
    ):
        table.add_column(t(key, currency=cur), justify=justify)  # type: ignore[arg-type]
    for o in report.options:
        mark = " ←" if o.label == report.cheapest else ""
        table.add_row(
            option_name(o) + mark,
            _money(o.total),
            _money(o.monthly),
            *_break_even_cells(o.break_even),
        )
    return table


def _item_label(o: OwnBill | RentBill, name: str) -> str:
    """A bill line's name; the resale credit says the share of launch price and the age."""
    details = o.details
    if name == "resale" and "resale_pct" in details:
        pct, age = details["resale_pct"], details.get("resale_age_months", 0.0)
        return t("cost.item_resale_pct", pct=fmt_num(pct, 0), age=fmt_num(age, 0))
    if name == "resale" and "resale_pct_of_paid" in details:  # bought second-hand
        pct, age = details["resale_pct_of_paid"], details.get("resale_age_months", 0.0)
        return t("cost.item_resale_pct_paid", pct=fmt_num(pct, 0), age=fmt_num(age, 0))
    return t(f"cost.item.{name}")


def bill_table(o: OwnBill | RentBill) -> Table:
    """The itemised bill of one option, unpriced items last, then the total."""
    table = Table(
        title=t("cost.bill_title", name=option_name(o)),
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_footer=True,
    )
    table.add_column(t("cost.col_item"), footer=t("cost.total_row"))
    table.add_column(
        t("cost.col_amount", currency=o.currency), justify="right", footer=_money(o.total)
    )
    for name, amount in o.items.items():
        table.add_row(_item_label(o, name), _money(amount))
    for name in o.unpriced:
        table.add_row(t(f"cost.item.{name}"), t("cost.unpriced"))
    return table


def prices_table(report: CostReport) -> Table:
    """Every price the bills rest on, with its date (stale ones marked)."""
    table = Table(title=t("cost.prices_title"), title_justify="left", box=box.SIMPLE_HEAD)
    for key, justify in (
        ("cost.col_what", "left"),
        ("cost.col_price", "right"),
        ("cost.col_date", "left"),
        ("cost.col_source", "left"),
    ):
        table.add_column(t(key), justify=justify)  # type: ignore[arg-type]
    seen: set[tuple[str, str]] = set()
    refs = [p for o in report.options for p in o.prices]
    if report.fx.rate:
        refs.append(report.fx.rate)
    for p in refs:
        ident = (p.label, p.source)
        if ident in seen:
            continue
        seen.add(ident)
        table.add_row(
            ref_label(p.label),
            f"{fmt_num(p.amount, 4 if p.amount < 1 else 2)} {p.currency}/{p.per}",
            date_text(p.date.isoformat() if p.date else None, p.stale),
            p.source,
        )
    return table


def _note_text(n: NoteEntry) -> str:
    """A note in the user's language, its ids (platform, site, billing) named."""
    params = dict(n.params)
    for key in ("platform", "plain"):
        if key in params:
            params[key] = t(f"platform.{params[key]}")
    if "site" in params:
        params["site"] = t(f"site.{params['site']}")
    if "billing" in params:
        params["billing"] = t(f"billing.{params['billing']}")
    if "channel" in params:
        params["channel"] = t(f"channel.{params['channel']}")
    if isinstance(params.get("others"), list | tuple):
        params["others"] = ", ".join(
            f"{t(f'billing.{b}')} {_money(v)}" for b, v in params["others"]
        )
    return t(n.key, **params)


def _notes(report: CostReport) -> list[str]:
    """Every option's notes once, then its opportunity value and what is unpriced."""
    notes: list[str] = []
    for o in report.options:
        for n in o.notes:
            text = _note_text(n)
            if text not in notes:
                notes.append(text)
        if "opportunity_value" in o.details:
            value = _money(o.details["opportunity_value"])
            notes.append(t("cost.note_opportunity", name=option_name(o), value=value))
        if o.unpriced:
            names = ", ".join(t(f"cost.item.{u}") for u in o.unpriced)
            notes.append(t("cost.note_unpriced", name=option_name(o), items=names))
    return notes


def render_cost(console: Console, report: CostReport, extra_notes: list[str]) -> None:
    """Header, comparison, bills, dated prices and notes."""
    inp, fx = report.inputs, report.fx
    console.print(
        t(
            "cost.header",
            months=inp.months,
            hours=fmt_num(inp.hours_per_day, 1),
            busy=fmt_num(inp.busy_hours_per_month, 0),
            currency=report.currency,
        )
    )
    rate = fx.rate
    if fx.user:
        fx_date = t("cost.fx_user")
    else:
        published = rate.date.isoformat() if rate and rate.date else None
        fx_date = date_text(published, bool(rate and rate.stale))
    console.print(t("cost.fx_line", rate=f"{fx.cny_per_usd:.4f}", date=fx_date))
    console.print(summary_table(report))
    for o in report.options:
        console.print(bill_table(o))
    console.print(prices_table(report))
    prices = [p.model_dump(mode="json") for o in report.options for p in o.prices]
    for line in legend_lines(prices, always=True):
        console.print(line)
    for n in _notes(report) + extra_notes:
        console.print("• " + n)
