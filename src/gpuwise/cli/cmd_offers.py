"""`gpuwise offers`: cloud GPU offers, cheapest per GPU-hour first, every price dated."""

from __future__ import annotations

import typer

from gpuwise.cli.numbers import number
from gpuwise.i18n import t


def default_currency(value: str | None) -> str:
    """The --currency value, or CNY for Chinese output and USD otherwise."""
    from gpuwise.service.offers import default_currency as default

    return default(value)


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
    from gpuwise.render import out
    from gpuwise.service.offers import finding_text, query_offers

    result = query_offers(gpu, provider, region, billing, max_price, currency, fx)
    if as_json:
        out.emit_json(result.as_json())
        return
    from gpuwise.render.offers import legend_lines, offers_text

    console = out.console()
    # The table is plain text (no styles, cells never wrap): written as is, 10,000 rows take
    # milliseconds instead of the second rich's line layout needs.
    console.file.write(offers_text(result.rows, result.ctx.currency) + "\n")
    for line in legend_lines(result.rows):
        console.print(line)
    for key, params in result.index.findings:
        if key != "catalog.override_left_out":  # already said on stderr (catalog loader)
            console.print("⚠ " + finding_text(key, params))
    if result.hint:
        console.print(result.hint)
