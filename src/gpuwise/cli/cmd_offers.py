"""`gpuwise offers`: cloud GPU offers, cheapest per GPU-hour first, every price dated."""

from __future__ import annotations

import typer

from gpuwise.i18n import t


def default_currency(value: str | None) -> str:
    """The --currency value, or CNY for Chinese output and USD otherwise."""
    if value:
        return value
    from gpuwise.i18n import get_lang

    return "CNY" if get_lang() == "zh" else "USD"


def register(app: typer.Typer) -> None:
    """Add `offers` to the root app."""

    @app.command("offers", help=t("offers.help"))
    def offers(
        gpu: str = typer.Option(None, "--gpu", help=t("offers.opt_gpu")),
        provider: str = typer.Option(None, "--provider", help=t("offers.opt_provider")),
        region: str = typer.Option(None, "--region", help=t("offers.opt_region")),
        billing: str = typer.Option(None, "--billing", help=t("offers.opt_billing")),
        max_price: float = typer.Option(None, "--max-price", help=t("offers.opt_max_price")),
        currency: str = typer.Option(None, "--currency", help=t("cost.opt_currency")),
        fx: float = typer.Option(None, "--fx", help=t("cost.opt_fx")),
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
    ) -> None:
        _run(gpu, provider, region, billing, max_price, currency, fx, as_json)


def _run(
    gpu: str | None,
    provider: str | None,
    region: str | None,
    billing: str | None,
    max_price: float | None,
    currency: str | None,
    fx: float | None,
    as_json: bool,
) -> None:
    import datetime as dt

    from gpuwise.catalog import load_catalog
    from gpuwise.cost.offers import list_offers
    from gpuwise.cost.resolve import make_context
    from gpuwise.render import out

    cat = load_catalog()
    ctx = make_context(cat, default_currency(currency), dt.date.today(), fx)
    rows = [r.as_dict() for r in list_offers(cat, ctx, gpu, provider, region, billing, max_price)]
    if as_json:
        out.emit_json({"currency": ctx.currency, "today": ctx.today.isoformat(), "offers": rows})
        return
    from gpuwise.render.offers import offers_table

    console = out.console()
    console.print(offers_table(rows, ctx.currency))
    if any(r["stale"] for r in rows):
        console.print(t("cost.stale_legend"))
