"""`gpuwise gpus`: list, filter and show GPUs from the catalog."""

from __future__ import annotations

from typing import Any

import typer

from gpuwise.cli.numbers import number
from gpuwise.i18n import t

SORT_KEYS = ("memory", "bandwidth", "bf16", "fp8", "tdp", "year", "name", "price")  # query.SORTS


def register(app: typer.Typer) -> None:
    """Add the `gpus` group to the root app."""
    group = typer.Typer(help=t("gpus.help"), invoke_without_command=True, no_args_is_help=False)

    @group.callback()
    def list_gpus(
        ctx: typer.Context,
        vendor: str = typer.Option(None, "--vendor", help=t("gpus.opt_vendor")),
        min_memory: float = typer.Option(
            0.0, "--min-memory", help=t("gpus.opt_min_memory"), click_type=number("memory_gb")
        ),
        gpu_class: str = typer.Option(None, "--class", help=t("gpus.opt_class")),
        sort: str = typer.Option(
            "memory", "--sort", help=t("gpus.opt_sort", keys=", ".join(SORT_KEYS))
        ),
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
    ) -> None:
        if ctx.invoked_subcommand is not None:
            return
        _list(vendor, min_memory, gpu_class, sort, as_json)

    @group.command("show", help=t("gpus.show_help"))
    def show(
        name: str = typer.Argument(..., help=t("gpus.arg_name")),
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
    ) -> None:
        _show(name, as_json)

    app.add_typer(group, name="gpus")


def _list(
    vendor: str | None, min_memory: float, gpu_class: str | None, sort: str, as_json: bool
) -> None:
    from gpuwise.catalog.listing import load_listing
    from gpuwise.catalog.query import filter_gpus, sort_gpus
    from gpuwise.render import out

    gpus = sort_gpus(filter_gpus(load_listing()["gpus"], vendor, min_memory, gpu_class), sort)
    if as_json:
        out.emit_json(gpus)
        return
    from gpuwise.render.gpus import gpu_table

    out.console().print(gpu_table(gpus))


def _show(name: str, as_json: bool) -> None:
    from gpuwise.catalog.listing import gpu_by_name, load_listing
    from gpuwise.render import out

    data: dict[str, Any] = gpu_by_name(load_listing(), name)
    if as_json:
        out.emit_json(data)
        return
    from gpuwise.render.gpus import gpu_detail

    out.console().print(gpu_detail(data))
