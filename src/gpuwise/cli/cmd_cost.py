"""`gpuwise cost`: own N cards or rent cloud offers — itemised bills, break-even, a chart."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from gpuwise.cli.numbers import number, number_or_name
from gpuwise.i18n import t

if TYPE_CHECKING:
    from gpuwise.cost.rent import RentUsage
    from gpuwise.cost.report_model import CostReport
    from gpuwise.cost.resolve import OwnOptions, RentOptions


@dataclass(frozen=True)
class CostFlags:
    """What `gpuwise cost` was given on the command line (typed, one field a flag)."""

    own: str | None
    count: int
    owned: bool
    vs: list[str]
    hours_per_day: float
    months: int
    data_gb: float
    storage: str
    egress_gb: float
    snapshot_gb: float
    checkpoint_min: float
    nat: bool
    no_public_ip: bool
    card_price: float | None
    host_price: float | None
    platform: str | None
    tariff: str | None
    pue: str | None
    site: str | None
    company: bool
    idle_hours: float | None
    resale_pct: float | None
    maintenance_pct: float | None
    interruptions: float | None
    restart_min: float | None
    currency: str | None
    fx: float | None
    plot: str | None
    force: bool
    as_json: bool

    def usage(self) -> RentUsage:
        """The use a rental is billed for (storage, traffic, checkpoints, IP, NAT)."""
        from gpuwise.cost.rent import RentUsage

        if self.storage not in ("block", "object", "both"):
            from gpuwise.errors import UserError

            raise UserError("cost.bad_storage", value=self.storage)
        return RentUsage(
            data_gb=self.data_gb,
            storage=self.storage,  # type: ignore[arg-type]
            egress_gb_per_month=self.egress_gb,
            snapshot_gb=self.snapshot_gb,
            checkpoint_min=self.checkpoint_min,
            public_ip=not self.no_public_ip,
            nat=self.nat,
        )

    def own_options(self) -> OwnOptions:
        """The user's values that win over the catalog's for owning."""
        from gpuwise.cost.resolve import OwnOptions

        return OwnOptions(
            self.card_price, self.host_price, self.tariff, self.pue, self.platform,
            self.resale_pct, self.maintenance_pct, self.owned,
            site=self.site, payer="business" if self.company else None,
            buyer="company" if self.company else None,
        )  # fmt: skip

    def rent_options(self) -> RentOptions:
        from gpuwise.cost.resolve import RentOptions

        return RentOptions(self.interruptions, self.restart_min)


def _use_options() -> dict[str, Any]:
    """What is compared and for how much use (help in the current language)."""
    return {
        "own": typer.Option(None, "--own", help=t("cost.opt_own")),
        "count": typer.Option(
            1, "--count", help=t("cost.opt_count"), click_type=number("card_count")
        ),
        "owned": typer.Option(False, "--owned", help=t("cost.opt_owned")),
        "vs": typer.Option([], "--vs", help=t("cost.opt_vs")),
        "hours_per_day": typer.Option(
            8.0, "--hours-per-day", help=t("cost.opt_hours"), click_type=number("hours_per_day")
        ),
        "months": typer.Option(
            24, "--months", help=t("cost.opt_months"), click_type=number("months", whole=True)
        ),
        "idle_hours": typer.Option(
            None,
            "--idle-hours-per-day",
            help=t("cost.opt_idle"),
            click_type=number("hours_per_day"),
        ),
        "currency": typer.Option(None, "--currency", help=t("cost.opt_currency")),
        "fx": typer.Option(None, "--fx", help=t("cost.opt_fx"), click_type=number("fx")),
        "plot": typer.Option(None, "--plot", help=t("cost.opt_plot")),
        "force": typer.Option(False, "--force", help=t("flags.opt_force")),
        "as_json": typer.Option(False, "--json", help=t("cli.opt_json")),
    }


def _rent_options() -> dict[str, Any]:
    """A rental's hidden costs and spot interruptions."""
    return {
        "data_gb": typer.Option(
            0.0, "--data-gb", help=t("cost.opt_data_gb"), click_type=number("storage_gb")
        ),
        "storage": typer.Option("block", "--storage", help=t("cost.opt_storage")),
        "egress_gb": typer.Option(
            0.0,
            "--egress-gb-per-month",
            help=t("cost.opt_egress"),
            click_type=number("storage_gb"),
        ),
        "snapshot_gb": typer.Option(
            0.0, "--snapshot-gb", help=t("cost.opt_snapshot"), click_type=number("storage_gb")
        ),
        "checkpoint_min": typer.Option(
            30.0,
            "--checkpoint-min",
            help=t("cost.opt_checkpoint"),
            click_type=number("checkpoint_min"),
        ),
        "nat": typer.Option(False, "--nat", help=t("cost.opt_nat")),
        "no_public_ip": typer.Option(False, "--no-public-ip", help=t("cost.opt_no_ip")),
        "interruptions": typer.Option(
            None,
            "--spot-interruptions-per-day",
            help=t("cost.opt_interruptions"),
            click_type=number("interruptions_per_day"),
        ),
        "restart_min": typer.Option(
            None, "--restart-min", help=t("cost.opt_restart"), click_type=number("restart_min")
        ),
    }


def _own_options() -> dict[str, Any]:
    """An owned machine's prices, power, resale and upkeep."""
    return {
        "card_price": typer.Option(
            None, "--card-price", help=t("cost.opt_card_price"), click_type=number("money")
        ),
        "host_price": typer.Option(
            None, "--host-price", help=t("cost.opt_host_price"), click_type=number("money")
        ),
        "platform": typer.Option(None, "--platform", help=t("cost.opt_platform")),
        "tariff": typer.Option(
            None, "--tariff", help=t("cost.opt_tariff"), click_type=number_or_name("tariff")
        ),
        "pue": typer.Option(
            None, "--pue", help=t("cost.opt_pue"), click_type=number_or_name("pue")
        ),
        "site": typer.Option(None, "--site", help=t("cost.opt_site")),
        "company": typer.Option(False, "--company", help=t("cost.opt_company")),
        "resale_pct": typer.Option(
            None, "--resale-pct", help=t("cost.opt_resale"), click_type=number("percent")
        ),
        "maintenance_pct": typer.Option(
            None, "--maintenance-pct", help=t("cost.opt_maintenance"), click_type=number("percent")
        ),
    }


def register(app: typer.Typer) -> None:
    """Add `cost` to the root app (the options are declared by the helpers above)."""
    o = {**_use_options(), **_rent_options(), **_own_options()}

    @app.command("cost", help=t("cost.help"))
    def cost(
        own: str = o["own"],
        count: int = o["count"],
        owned: bool = o["owned"],
        vs: list[str] = o["vs"],
        hours_per_day: float = o["hours_per_day"],
        months: int = o["months"],
        data_gb: float = o["data_gb"],
        storage: str = o["storage"],
        egress_gb: float = o["egress_gb"],
        snapshot_gb: float = o["snapshot_gb"],
        checkpoint_min: float = o["checkpoint_min"],
        nat: bool = o["nat"],
        no_public_ip: bool = o["no_public_ip"],
        card_price: float = o["card_price"],
        host_price: float = o["host_price"],
        platform: str = o["platform"],
        tariff: str = o["tariff"],
        pue: str = o["pue"],
        site: str = o["site"],
        company: bool = o["company"],
        idle_hours: float = o["idle_hours"],
        resale_pct: float = o["resale_pct"],
        maintenance_pct: float = o["maintenance_pct"],
        interruptions: float = o["interruptions"],
        restart_min: float = o["restart_min"],
        currency: str = o["currency"],
        fx: float = o["fx"],
        plot: str = o["plot"],
        force: bool = o["force"],
        as_json: bool = o["as_json"],
    ) -> None:
        _run(CostFlags(**locals()))


def _check(f: CostFlags) -> None:
    """Bad numbers end here with one clear line (exit 2)."""
    from gpuwise.service.cost import check_cost_inputs

    sizes = {
        "--data-gb": f.data_gb,
        "--egress-gb-per-month": f.egress_gb,
        "--snapshot-gb": f.snapshot_gb,
        "--checkpoint-min": f.checkpoint_min,
    }
    check_cost_inputs(f.hours_per_day, f.months, f.idle_hours, sizes)


def _run(f: CostFlags) -> None:
    from gpuwise.errors import UserError
    from gpuwise.render import out
    from gpuwise.service.cost import cost_data

    _check(f)
    usage = f.usage()
    if f.owned and not f.own:
        raise UserError("cost.owned_without_own")
    if not f.own and not f.vs:
        raise UserError("cost.nothing_to_compare")
    if f.plot:
        from gpuwise.userfiles import check_output

        check_output(Path(f.plot), f.force, "--plot")
    report = cost_data(
        f.own, f.count, f.vs, f.hours_per_day, f.months, f.idle_hours, usage,
        f.own_options(), f.rent_options(), f.currency, f.fx,
    )  # fmt: skip
    notes: list[str] = []
    if f.plot:
        report = _draw(report, f.plot, f.force, notes)
    if f.as_json:
        out.emit_json(report)
        return
    from gpuwise.render.cost import render_cost

    render_cost(out.console(), report, notes)


def _draw(report: CostReport, plot: str, force: bool, notes: list[str]) -> CostReport:
    """Write the --plot chart; the report then says where (and `notes` what it says)."""
    from gpuwise.cost.report_model import PlotInfo
    from gpuwise.i18n import get_lang
    from gpuwise.render.chart import plot_cumulative
    from gpuwise.userfiles import write_output

    def draw(tmp: Path) -> None:
        notes.extend(plot_cumulative(report, plot, get_lang(), save_to=str(tmp)))

    write_output(Path(plot), draw, force, "--plot")
    return report.model_copy(update={"plot": PlotInfo(path=plot, notes=list(notes))})
