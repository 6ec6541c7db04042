"""`gpuwise runs`: the recorded runs; `runs show ID` with a chart and JSON/CSV export."""

from __future__ import annotations

from typing import Any

import typer

from gpuwise.i18n import Lang, t

CSV_COLUMNS = (
    "t",
    "elapsed_s",
    "span_s",
    "n",
    "vendor",
    "gpu",
    "memory_used_bytes",
    "memory_used_max_bytes",
    "utilization_pct",
    "temperature_c",
    "temperature_max_c",
    "power_w",
    "power_max_w",
    "energy_j",
    "sm_clock_mhz",
    "throttle",
)


def register(app: typer.Typer) -> None:
    """Add the `runs` group to the root app."""
    group = typer.Typer(help=t("runs.help"), invoke_without_command=True, no_args_is_help=False)

    @group.callback()
    def list_runs(
        ctx: typer.Context,
        limit: int = typer.Option(50, "--limit", help=t("runs.opt_limit")),
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
    ) -> None:
        if ctx.invoked_subcommand is not None:
            return
        from gpuwise.cli.monitor_common import open_store
        from gpuwise.errors import UserError
        from gpuwise.monitor.report import run_listing
        from gpuwise.render import out

        if limit < 1:
            raise UserError("runs.bad_limit", value=limit)
        store = open_store(create=False)
        try:
            runs = run_listing(store, limit)
        finally:
            store.close()
        if as_json:
            out.emit_json(runs)
            return
        from gpuwise.render.monitor import runs_table

        out.console().print(runs_table(runs) if runs else t("runs.none", path=str(store.path)))

    @group.command("show", help=t("runs.show_help"))
    def show(
        run_id: int = typer.Argument(..., help=t("runs.arg_id")),
        chart: str = typer.Option(None, "--chart", help=t("runs.opt_chart")),
        csv: str = typer.Option(None, "--csv", help=t("runs.opt_csv")),
        force: bool = typer.Option(False, "--force", help=t("runs.opt_force")),
        tariff: str = typer.Option(None, "--tariff", help=t("cost.opt_tariff")),
        currency: str = typer.Option(None, "--currency", help=t("cost.opt_currency")),
        fx: float = typer.Option(None, "--fx", help=t("cost.opt_fx")),
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
    ) -> None:
        _show(run_id, chart, csv, force, tariff, currency, fx, as_json)

    app.add_typer(group, name="runs")


def _show(
    run_id: int,
    chart: str | None,
    csv: str | None,
    force: bool,
    tariff: str | None,
    currency: str | None,
    fx: float | None,
    as_json: bool,
) -> None:
    from pathlib import Path

    from gpuwise.cli.monitor_common import err_console, open_store, tariff_for
    from gpuwise.errors import UserError
    from gpuwise.i18n import get_lang
    from gpuwise.monitor.report import run_summary
    from gpuwise.render import out
    from gpuwise.userfiles import check_output

    if chart:
        from gpuwise.render.monitor_chart import chart_format

        chart_format(chart)
        check_output(Path(chart), force, "--chart")
    if csv == "-" and as_json:
        raise UserError("runs.csv_and_json")
    if csv and csv != "-":
        check_output(Path(csv), force, "--csv")
    price = tariff_for(tariff, currency, fx)
    store = open_store(create=False)
    try:
        summary = run_summary(store, run_id, price)
        rows = store.rows("gpu_samples", run_id)
    finally:
        store.close()
    notes: list[str] = []
    if csv:
        notes += _write_csv(csv, rows, summary["run"]["started_at"], force)
    if chart:
        notes += _write_chart(chart, summary, rows, force, get_lang())
    console = err_console() if as_json or csv == "-" else out.console()
    if as_json:
        out.emit_json(summary)
    else:
        from gpuwise.render.monitor import render_summary

        render_summary(console, summary)
    for note in notes:
        console.print(note)


def csv_text(rows: list[dict[str, Any]], start_t: float) -> str:
    """The run's GPU samples as CSV (one row per GPU per stored sample or bucket)."""
    import csv as csv_module
    import io

    buf = io.StringIO()
    writer = csv_module.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in rows:
        values = {**r, "elapsed_s": round(float(r["t"]) - start_t, 3)}
        writer.writerow(["" if values.get(c) is None else values[c] for c in CSV_COLUMNS])
    return buf.getvalue()


def _write_csv(path: str, rows: list[dict[str, Any]], start_t: float, force: bool) -> list[str]:
    text = csv_text(rows, start_t)
    if path == "-":
        import sys

        sys.stdout.write(text)
        return []
    from pathlib import Path

    from gpuwise.userfiles import write_text_output

    write_text_output(Path(path), text, force, "--csv")
    return [t("runs.csv_written", path=path)]


def _write_chart(
    path: str, summary: dict[str, Any], rows: list[dict[str, Any]], force: bool, lang: Lang
) -> list[str]:
    from pathlib import Path

    from gpuwise.render.monitor_chart import chart_format, plot_run
    from gpuwise.userfiles import write_output

    run = summary["run"]
    title = f"#{run['id']} {run['name']}"
    fmt = chart_format(path)
    notes: list[str] = []

    def draw(tmp: Path) -> None:
        notes.extend(plot_run(title, float(run["started_at"]), rows, tmp, fmt, lang))

    write_output(Path(path), draw, force, "--chart")
    return [*notes, t("runs.chart_written", path=path)]
