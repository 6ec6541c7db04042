"""`gpuwise offers`: cloud GPU offers, cheapest per GPU-hour first, every price dated."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from gpuwise.cli.numbers import number
from gpuwise.i18n import get_lang, t

if TYPE_CHECKING:
    from gpuwise.prices.index import OfferIndex


def default_currency(value: str | None) -> str:
    """The --currency value, or CNY for Chinese output and USD otherwise."""
    if value:
        return value
    from gpuwise.i18n import get_lang

    return "CNY" if get_lang() == "zh" else "USD"


def register(app: typer.Typer) -> None:
    """Add `offers` (list; `add` and `import` record the user's own quotes) to the root app."""
    group = typer.Typer(help=t("offers.help"), invoke_without_command=True, no_args_is_help=False)

    @group.callback()
    def offers(
        ctx: typer.Context,
        gpu: str = typer.Option(None, "--gpu", help=t("offers.opt_gpu")),
        provider: str = typer.Option(None, "--provider", help=t("offers.opt_provider")),
        region: str = typer.Option(None, "--region", help=t("offers.opt_region")),
        billing: str = typer.Option(None, "--billing", help=t("offers.opt_billing")),
        max_price: float = typer.Option(
            None,
            "--max-price",
            help=t("offers.opt_max_price"),
            click_type=number("price_per_gpu_hour"),
        ),
        currency: str = typer.Option(None, "--currency", help=t("cost.opt_currency")),
        fx: float = typer.Option(None, "--fx", help=t("cost.opt_fx"), click_type=number("fx")),
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
    ) -> None:
        if ctx.invoked_subcommand is not None:
            return
        _run(gpu, provider, region, billing, max_price, currency, fx, as_json)

    from gpuwise.cli.offers_quotes import register_quotes

    register_quotes(group)
    app.add_typer(group, name="offers")


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

    from gpuwise.cli.numbers import money_in
    from gpuwise.cost.plain_context import plain_context
    from gpuwise.prices.index import load_index
    from gpuwise.prices.offer_query import query
    from gpuwise.render import out

    index = load_index()  # plain data: no typed catalog on this path (10,000 offers load fast)
    ctx = plain_context(index, default_currency(currency), dt.date.today(), fx)
    max_price = money_in(ctx, max_price, "--max-price")
    rows = [r.as_dict() for r in query(index, ctx, gpu, provider, region, billing, max_price)]
    hint = _no_public_prices(index, provider)
    if as_json:
        data = {"currency": ctx.currency, "today": ctx.today.isoformat(), "offers": rows}
        data["findings"] = [_finding(k, p) for k, p in index.findings]
        if hint:
            data["hint"] = hint
        out.emit_json(data)
        return
    from gpuwise.render.offers import legend_lines, offers_text

    console = out.console()
    # The table is plain text (no styles, cells never wrap): written as is, 10,000 rows take
    # milliseconds instead of the second rich's line layout needs.
    console.file.write(offers_text(rows, ctx.currency) + "\n")
    for line in legend_lines(rows):
        console.print(line)
    for key, params in index.findings:
        if key != "catalog.override_left_out":  # already said on stderr (catalog loader)
            console.print("⚠ " + _finding(key, params))
    if hint:
        console.print(hint)


def _finding(key: str, params: tuple[tuple[str, str], ...]) -> str:
    """A loading problem that did not stop the command, in the user's language."""
    values: dict[str, Any] = dict(params)
    return t(key, None, **values)


def _no_public_prices(index: OfferIndex, provider: str | None) -> str | None:
    """For a provider that publishes no price list: say so, and how to add the user's quotes."""
    if not provider:
        return None
    from gpuwise.prices.offer_query import provider_id

    p = index.providers[provider_id(index, provider)]
    if p.public_prices and any(r.provider == p.id for r in index.records):
        return None
    name = p.name_zh if get_lang() == "zh" else p.name_en
    return t("prices.no_public_prices", name=name, provider=p.id)
