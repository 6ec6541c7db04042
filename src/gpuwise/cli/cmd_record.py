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

from gpuwise.cli.estimate_options import with_job_options
from gpuwise.i18n import t
from gpuwise.service.job import JobOptions

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
        tokens_from: str = typer.Option(None, "--tokens-from", help=t("record.opt_tokens_from")),
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
        tokens_url = _tokens_url(tokens_from) if tokens_from else None
        if tokens_url and import_file:
            raise UserError("record.import_and_command")
        estimate = _estimate(model, gpu, job) if model else None
        store = open_store(create=True)
        try:
            if import_file:
                run_id, code = _import(store, import_file, name, interval), 0
            else:
                run_id, code = _record(store, command, name, interval, estimate, tokens_url)
            _report(store, run_id, price, as_json)
        finally:
            store.close()
        raise typer.Exit(code)


def _tokens_url(value: str) -> str:
    from gpuwise.errors import UserError
    from gpuwise.probe.engine_metrics import metrics_url

    try:
        return metrics_url(value)
    except ValueError:
        raise UserError("record.bad_tokens_url", value=value) from None


def _estimate(model: str, gpu_name: str | None, job: JobOptions) -> dict[str, Any]:
    """The estimate to set beside the measurement (what `gpuwise estimate` shows: memory, and
    speed when the GPU is known), and the job itself so `calibrate --runs` can estimate it again."""
    from dataclasses import asdict

    from gpuwise.service.job import build_request

    cat, req = build_request(model, job)
    gpu = cat.gpu(gpu_name) if gpu_name else None
    out = _estimate_report(cat, req, gpu, job)
    out["job"] = {"model": model, "gpu": gpu.id if gpu else None, "options": asdict(job)}
    return out


def _estimate_report(cat: Any, req: Any, gpu: Any, job: JobOptions) -> dict[str, Any]:
    """Memory, and speed where it can be estimated for this card (a combination the speed model
    refuses leaves the memory comparison standing rather than stopping the recording)."""
    from gpuwise.errors import UserError
    from gpuwise.estimate.constants import MemoryConstants
    from gpuwise.estimate.report import estimate_report
    from gpuwise.estimate.speed_constants import SpeedConstants

    mc, opts = MemoryConstants.from_catalog(cat), {"gen_tokens": job.gen_tokens}
    try:
        sc = SpeedConstants.from_catalog(cat) if gpu is not None else None
        report = estimate_report(req, mc, gpu, sc, opts)
    except UserError:
        report = estimate_report(req, mc, gpu)
    data = report.model_dump(mode="json")  # kept in the run store as JSON
    keep = ("model", "inputs", "memory", "speed")
    return {k: data[k] for k in keep if k in data}


def _with_recorded_gpu(store: RunStore, run_id: int, estimate: dict[str, Any]) -> None:
    """No --gpu: estimate the speed for the card the run was recorded on, when the catalog
    knows it (the memory estimate stays the GPU-less one the user asked for)."""
    from gpuwise.bench.identify import identify
    from gpuwise.catalog import load_catalog
    from gpuwise.errors import UserError
    from gpuwise.service.job import JobOptions, build_request

    run = store.run(run_id)
    names = [str(g["name"]) for g in run.gpus if g.get("name")]
    cat = load_catalog()
    gpu = identify(cat, names[0]) if names else None
    if gpu is None:
        return
    job = JobOptions(**estimate["job"]["options"])
    try:
        _, req = build_request(estimate["job"]["model"], job)
        speed = _estimate_report(cat, req, gpu, job).get("speed")
    except UserError:  # e.g. a precision this card lacks: the memory comparison still stands
        return
    if speed:
        estimate["speed"] = speed
        estimate["job"]["gpu"] = gpu.id
        store.update_run(run_id, options={**run.options, "estimate": estimate})


def _record(
    store: RunStore,
    command: list[str],
    name: str | None,
    interval_s: float,
    estimate: dict[str, Any] | None,
    tokens_url: str | None,
) -> tuple[int, int]:
    from gpuwise.monitor.recorder import Recorder, TokenWatch
    from gpuwise.monitor.sampler import Sampler, default_sources

    watch = TokenWatch(tokens_url, every_s=max(5.0, interval_s)) if tokens_url else None
    recorder = Recorder(store, Sampler(default_sources()), interval_s, watch)
    options = {"estimate": estimate} if estimate else {}
    result = recorder.record(command, name or Path(command[0]).name, options)
    if estimate and "speed" not in estimate:
        _with_recorded_gpu(store, result.run_id, estimate)
    if result.write_errors or result.sample_errors:
        from gpuwise.cli.monitor_common import err_console

        n = result.write_errors + result.sample_errors
        err_console().print(t("record.write_errors", n=n, error=result.last_error or "—"))
    return result.run_id, result.exit_code


def _import(store: RunStore, path_text: str, name: str | None, interval_s: float) -> int:
    from gpuwise.errors import UserError
    from gpuwise.monitor.imports import parse_log
    from gpuwise.monitor.recorder import store_imported
    from gpuwise.userfiles import decode

    path = Path(path_text).expanduser()
    try:
        data = path.read_bytes()
        mtime = path.stat().st_mtime
    except OSError as exc:
        raise UserError(
            "import.cannot_read", path=str(path), problem=exc.strerror or str(exc)
        ) from exc
    # a BOM decides (PowerShell's `>` writes UTF-16), else UTF-8, else GB18030
    text = decode(data, path)[0].removeprefix("\ufeff")
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
