"""`gpuwise cost`: own N cards or rent cloud offers — itemised bills, break-even, a chart."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from gpuwise.cli.numbers import number, number_or_name
from gpuwise.i18n import t

if TYPE_CHECKING:
    from gpuwise.cost.rent import RentUsage
    from gpuwise.cost.resolve import OwnOptions, RentOptions


def register(app: typer.Typer) -> None:
    """Add `cost` to the root app."""

    @app.command("cost", help=t("cost.help"))
    def cost(
        own: str = typer.Option(None, "--own", help=t("cost.opt_own")),
        count: int = typer.Option(
            1, "--count", help=t("cost.opt_count"), click_type=number("card_count")
        ),
        owned: bool = typer.Option(False, "--owned", help=t("cost.opt_owned")),
        vs: list[str] = typer.Option([], "--vs", help=t("cost.opt_vs")),
        hours_per_day: float = typer.Option(
            8.0, "--hours-per-day", help=t("cost.opt_hours"), click_type=number("hours_per_day")
        ),
        months: int = typer.Option(
            24, "--months", help=t("cost.opt_months"), click_type=number("months", whole=True)
        ),
        data_gb: float = typer.Option(
            0.0, "--data-gb", help=t("cost.opt_data_gb"), click_type=number("storage_gb")
        ),
        storage: str = typer.Option("block", "--storage", help=t("cost.opt_storage")),
        egress_gb: float = typer.Option(
            0.0,
            "--egress-gb-per-month",
            help=t("cost.opt_egress"),
            click_type=number("storage_gb"),
        ),
        snapshot_gb: float = typer.Option(
            0.0, "--snapshot-gb", help=t("cost.opt_snapshot"), click_type=number("storage_gb")
        ),
        checkpoint_min: float = typer.Option(
            30.0,
            "--checkpoint-min",
            help=t("cost.opt_checkpoint"),
            click_type=number("checkpoint_min"),
        ),
        nat: bool = typer.Option(False, "--nat", help=t("cost.opt_nat")),
        no_public_ip: bool = typer.Option(False, "--no-public-ip", help=t("cost.opt_no_ip")),
        card_price: float = typer.Option(
            None, "--card-price", help=t("cost.opt_card_price"), click_type=number("money")
        ),
        host_price: float = typer.Option(
            None, "--host-price", help=t("cost.opt_host_price"), click_type=number("money")
        ),
        platform: str = typer.Option(None, "--platform", help=t("cost.opt_platform")),
        tariff: str = typer.Option(
            None, "--tariff", help=t("cost.opt_tariff"), click_type=number_or_name("tariff")
        ),
        pue: str = typer.Option(
            None, "--pue", help=t("cost.opt_pue"), click_type=number_or_name("pue")
        ),
        site: str = typer.Option(None, "--site", help=t("cost.opt_site")),
        company: bool = typer.Option(False, "--company", help=t("cost.opt_company")),
        idle_hours: float = typer.Option(
            None,
            "--idle-hours-per-day",
            help=t("cost.opt_idle"),
            click_type=number("hours_per_day"),
        ),
        resale_pct: float = typer.Option(
            None, "--resale-pct", help=t("cost.opt_resale"), click_type=number("percent")
        ),
        maintenance_pct: float = typer.Option(
            None, "--maintenance-pct", help=t("cost.opt_maintenance"), click_type=number("percent")
        ),
        interruptions: float = typer.Option(
            None,
            "--spot-interruptions-per-day",
            help=t("cost.opt_interruptions"),
            click_type=number("interruptions_per_day"),
        ),
        restart_min: float = typer.Option(
            None, "--restart-min", help=t("cost.opt_restart"), click_type=number("restart_min")
        ),
        currency: str = typer.Option(None, "--currency", help=t("cost.opt_currency")),
        fx: float = typer.Option(None, "--fx", help=t("cost.opt_fx"), click_type=number("fx")),
        plot: str = typer.Option(None, "--plot", help=t("cost.opt_plot")),
        force: bool = typer.Option(False, "--force", help=t("flags.opt_force")),
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
    ) -> None:
        from gpuwise.cost.rent import RentUsage
        from gpuwise.cost.resolve import OwnOptions, RentOptions

        _check(hours_per_day, months, idle_hours, data_gb, egress_gb, snapshot_gb, checkpoint_min)
        if storage not in ("block", "object", "both"):
            from gpuwise.errors import UserError

            raise UserError("cost.bad_storage", value=storage)
        usage = RentUsage(
            data_gb=data_gb,
            storage=storage,  # type: ignore[arg-type]
            egress_gb_per_month=egress_gb,
            snapshot_gb=snapshot_gb,
            checkpoint_min=checkpoint_min,
            public_ip=not no_public_ip,
            nat=nat,
        )
        if owned and not own:
            from gpuwise.errors import UserError

            raise UserError("cost.owned_without_own")
        own_opts = OwnOptions(
            card_price, host_price, tariff, pue, platform, resale_pct, maintenance_pct, owned,
            site=site, payer="business" if company else None,
        )  # fmt: skip
        rent_opts = RentOptions(interruptions, restart_min)
        _run(
            own, count, vs, hours_per_day, months, idle_hours, usage, own_opts, rent_opts,
            currency, fx, plot, as_json, force,
        )  # fmt: skip


def _check(
    hours: float,
    months: int,
    idle: float | None,
    data_gb: float,
    egress_gb: float,
    snapshot_gb: float,
    checkpoint_min: float,
) -> None:
    """Bad numbers end here with one clear line (exit 2)."""
    from gpuwise.service.cost import check_cost_inputs

    sizes = {
        "--data-gb": data_gb,
        "--egress-gb-per-month": egress_gb,
        "--snapshot-gb": snapshot_gb,
        "--checkpoint-min": checkpoint_min,
    }
    check_cost_inputs(hours, months, idle, sizes)


def _run(
    own: str | None,
    count: int,
    vs: list[str],
    hours_per_day: float,
    months: int,
    idle_hours: float | None,
    usage: RentUsage,
    own_opts: OwnOptions,
    rent_opts: RentOptions,
    currency: str | None,
    fx: float | None,
    plot: str | None,
    as_json: bool,
    force: bool = False,
) -> None:
    from gpuwise.errors import UserError
    from gpuwise.render import out
    from gpuwise.service.cost import cost_data

    if not own and not vs:
        raise UserError("cost.nothing_to_compare")
    if plot:
        from gpuwise.userfiles import check_output

        check_output(Path(plot), force, "--plot")
    report = cost_data(
        own, count, vs, hours_per_day, months, idle_hours, usage, own_opts, rent_opts,
        currency, fx,
    )  # fmt: skip
    notes: list[str] = []
    if plot:
        from gpuwise.i18n import get_lang
        from gpuwise.render.chart import plot_cumulative
        from gpuwise.userfiles import write_output

        def draw(tmp: Path) -> None:
            notes.extend(plot_cumulative(report, plot, get_lang(), save_to=str(tmp)))

        write_output(Path(plot), draw, force, "--plot")
        report["plot"] = {"path": plot, "notes": notes}
    if as_json:
        out.emit_json(report)
        return
    from gpuwise.render.cost import render_cost

    render_cost(out.console(), report, notes)
