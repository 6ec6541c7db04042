"""`gpuwise record [--name N] -- CMD …`: run CMD while sampling the GPUs and its processes.

At the end: peaks (memory per GPU and per process, temperature, power), energy and its cost at
the user's tariff, duration, and — with `--model` and the estimate options — gpuwise's estimate
beside the measurement. The summary goes to stderr (stdout is the command's); `--json` prints
it to stdout after the command has finished. The exit status is the command's.
`record --import FILE` stores an nvidia-smi CSV or dmon log as a run instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from gpuwise.cli.estimate_options import JobOptions, with_job_options
from gpuwise.i18n import t

if TYPE_CHECKING:
    from gpuwise.monitor.store import RunStore
    from gpuwise.monitor.summary import TariffPrice


def register(app: typer.Typer) -> None:
    """Add `record` to the root app."""

    @app.command(
        "record", help=t("record.help"), context_settings={"allow_interspersed_args": False}
    )
    @with_job_options
    def record(
        command: list[str] = typer.Argument(None, help=t("record.arg_command")),
        name: str = typer.Option(None, "--name", help=t("record.opt_name")),
        interval: float = typer.Option(1.0, "--interval", help=t("monitor.opt_interval")),
        import_file: str = typer.Option(None, "--import", help=t("record.opt_import")),
        model: str = typer.Option(None, "--model", help=t("record.opt_model")),
        gpu: str = typer.Option(None, "--gpu", help=t("record.opt_gpu")),
        tariff: str = typer.Option(None, "--tariff", help=t("cost.opt_tariff")),
        currency: str = typer.Option(None, "--currency", help=t("cost.opt_currency")),
        fx: float = typer.Option(None, "--fx", help=t("cost.opt_fx")),
        as_json: bool = typer.Option(False, "--json", help=t("record.opt_json")),
        job: JobOptions | None = None,
    ) -> None:
        from gpuwise.cli.monitor_common import check_interval, open_store, tariff_for
        from gpuwise.errors import UserError

        assert job is not None
        check_interval(interval)
        if import_file and command:
            raise UserError("record.import_and_command")
        if not import_file and not command:
            raise UserError("record.no_command")
        price = tariff_for(tariff, currency, fx)  # bad --tariff fails before a long run
        estimate = _estimate(model, gpu, job) if model else None
        store = open_store(create=True)
        try:
            if import_file:
                run_id, code = _import(store, import_file, name, interval), 0
            else:
                run_id, code = _record(store, command, name, interval, estimate)
            _report(store, run_id, price, as_json)
        finally:
            store.close()
        raise typer.Exit(code)


def _estimate(model: str, gpu_name: str | None, job: JobOptions) -> dict[str, Any]:
    """The memory estimate to set beside the measurement (what `gpuwise estimate` shows)."""
    from gpuwise.cli.estimate_options import build_request
    from gpuwise.estimate.constants import MemoryConstants
    from gpuwise.estimate.report import estimate_report

    cat, req = build_request(model, job)
    gpu = cat.gpu(gpu_name) if gpu_name else None
    report = estimate_report(req, MemoryConstants.from_catalog(cat), gpu)
    return {"model": report["model"], "inputs": report["inputs"], "memory": report["memory"]}


def _record(
    store: RunStore,
    command: list[str],
    name: str | None,
    interval_s: float,
    estimate: dict[str, Any] | None,
) -> tuple[int, int]:
    from gpuwise.monitor.recorder import Recorder
    from gpuwise.monitor.sampler import Sampler, default_sources

    recorder = Recorder(store, Sampler(default_sources()), interval_s)
    options = {"estimate": estimate} if estimate else {}
    result = recorder.record(command, name or Path(command[0]).name, options)
    if result.write_errors or result.sample_errors:
        from gpuwise.cli.monitor_common import err_console

        n = result.write_errors + result.sample_errors
        err_console().print(t("record.write_errors", n=n, error=result.last_error or "—"))
    return result.run_id, result.exit_code


def _import(store: RunStore, path_text: str, name: str | None, interval_s: float) -> int:
    from gpuwise.errors import UserError
    from gpuwise.monitor.imports import parse_log
    from gpuwise.monitor.recorder import store_imported

    path = Path(path_text).expanduser()
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
        mtime = path.stat().st_mtime
    except OSError as exc:
        raise UserError(
            "import.cannot_read", path=str(path), problem=exc.strerror or str(exc)
        ) from exc
    log = parse_log(text, interval_s, mtime)
    return store_imported(store, log, name or path.name, str(path))


def _report(store: RunStore, run_id: int, price: TariffPrice, as_json: bool) -> None:
    from gpuwise.monitor.report import run_summary

    summary = run_summary(store, run_id, price)
    if as_json:
        from gpuwise.render import out

        out.emit_json(summary)
        return
    from gpuwise.cli.monitor_common import err_console
    from gpuwise.render.monitor import render_summary

    render_summary(err_console(), summary)
