"""`gpuwise doctor`: check this machine's GPU stack and say what is wrong and how to fix it."""

from __future__ import annotations

import typer

from gpuwise.i18n import t

DEFAULT_TIMEOUT_S = 10.0
DEFAULT_NCCL_TIMEOUT_S = 90.0


def register(app: typer.Typer) -> None:
    """Add `doctor` to the root app."""

    @app.command("doctor", help=t("doctor.help"))
    def doctor(
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
        nccl: bool = typer.Option(False, "--nccl", help=t("doctor.opt_nccl")),
        ollama_url: str = typer.Option(None, "--ollama-url", help=t("doctor.opt_ollama_url")),
        timeout: float = typer.Option(None, "--timeout", help=t("doctor.opt_timeout")),
        python: str = typer.Option(None, "--python", help=t("doctor.opt_python")),
    ) -> None:
        code = _run(as_json, nccl, ollama_url, timeout, python)
        raise typer.Exit(code)


def _run(
    as_json: bool, nccl: bool, ollama_url: str | None, timeout: float | None, python: str | None
) -> int:
    import time

    from gpuwise.errors import UserError
    from gpuwise.render import out

    if timeout is not None and not 0 < timeout <= 3600:
        raise UserError("doctor.bad_timeout", value=timeout)
    if ollama_url is not None and not ollama_url.startswith(("http://", "https://")):
        raise UserError("doctor.bad_url", value=ollama_url)
    if python is not None and not _runnable(python):
        raise UserError("doctor.bad_python", value=python)
    start = time.monotonic()
    total = (
        timeout if timeout is not None else (DEFAULT_NCCL_TIMEOUT_S if nccl else DEFAULT_TIMEOUT_S)
    )
    report = build_report(start, total, nccl=nccl, ollama_url=ollama_url, python=python)
    if as_json:
        out.emit_json(report)
    else:
        from gpuwise.render.doctor import render_doctor

        render_doctor(out.console(), report)
    code = report["exit_code"]
    return code if isinstance(code, int) else 1


def _runnable(python: str) -> bool:
    """Whether `python` names an executable (a path, or a name on PATH)."""
    import os
    import shutil

    return os.access(python, os.X_OK) if os.sep in python else shutil.which(python) is not None


def build_report(
    start: float, total_s: float, nccl: bool, ollama_url: str | None, python: str | None
) -> dict[str, object]:
    """Probe the machine (within `total_s` of `start`), then diagnose and summarise."""
    import sys
    import time

    from gpuwise.catalog import load_catalog
    from gpuwise.doctor.report import make_report
    from gpuwise.doctor.tables import CompatTables
    from gpuwise.probe.collect import collect, default_probes
    from gpuwise.probe.context import ProbeContext

    margin = min(0.5, total_s * 0.1)  # leave time to diagnose and print
    ctx = ProbeContext(
        deadline=start + total_s - margin,
        python=python or sys.executable,
        ollama_url=ollama_url,
    )
    facts = collect(ctx, default_probes(nccl=nccl))
    tables = CompatTables.from_catalog(load_catalog())
    return make_report(facts, tables, time.monotonic() - start, nccl=nccl)
