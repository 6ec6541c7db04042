"""`gpuwise doctor`: check this machine's GPU stack and say what is wrong and how to fix it;
with `--from FILE…` (or `-` for stdin), diagnose pasted output from another machine instead."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from gpuwise.i18n import t

if TYPE_CHECKING:
    from gpuwise.doctor.paste.model import Text
    from gpuwise.doctor.report_model import DoctorReport

DEFAULT_TIMEOUT_S = 10.0
DEFAULT_NCCL_TIMEOUT_S = 90.0
PASTE_LIMIT_BYTES = 16 * 1024 * 1024  # a paste larger than this is not a report


def register(app: typer.Typer) -> None:
    """Add `doctor` to the root app."""

    @app.command("doctor", help=t("doctor.help"))
    def doctor(
        files: list[str] = typer.Argument(None, hidden=True),
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
        nccl: bool = typer.Option(False, "--nccl", help=t("doctor.opt_nccl")),
        ollama_url: str = typer.Option(None, "--ollama-url", help=t("doctor.opt_ollama_url")),
        timeout: float = typer.Option(None, "--timeout", help=t("doctor.opt_timeout")),
        python: str = typer.Option(None, "--python", help=t("doctor.opt_python")),
        paste: list[str] = typer.Option(None, "--from", help=t("doctor.opt_from")),
    ) -> None:
        if files and not paste:
            from gpuwise.errors import UserError

            raise UserError("doctor.from_usage", arg=files[0])
        if paste:
            code = _run_paste([*paste, *(files or [])], as_json, nccl, ollama_url, python, timeout)
        else:
            code = _run(as_json, nccl, ollama_url, timeout, python)
        raise typer.Exit(code)


def _run_paste(
    names: list[str],
    as_json: bool,
    nccl: bool,
    ollama_url: str | None,
    python: str | None,
    timeout: float | None,
) -> int:
    """Diagnose pasted text; flags that only make sense on this machine are refused."""
    import time

    from gpuwise.errors import UserError
    from gpuwise.render import out
    from gpuwise.service.doctor import paste_report

    for flag, value in (
        ("--nccl", nccl),
        ("--ollama-url", ollama_url),
        ("--python", python),
        ("--timeout", timeout),
    ):
        if value:
            raise UserError("doctor.from_conflict", flag=flag)
    start = time.monotonic()
    texts = [read_paste(n) for n in names]
    report = paste_report(texts, start)
    if as_json:
        out.emit_json(report)
    else:
        from gpuwise.render.doctor import render_doctor

        render_doctor(out.console(), report)
    return report.exit_code


def read_paste(name: str) -> Text:
    """A pasted file (or stdin for "-") as text: UTF-8, UTF-16 with a BOM, else GB18030.

    Bad input is one clear line (missing file, a directory, too large, binary), never a
    traceback.
    """
    import os
    import sys

    from gpuwise.doctor.paste.model import Text
    from gpuwise.errors import UserError

    if name == "-":
        data = sys.stdin.buffer.read(PASTE_LIMIT_BYTES + 1)
        label = "stdin"
    else:
        if os.path.isdir(name):
            raise UserError("doctor.paste_is_dir", file=name)
        try:
            with open(name, "rb") as fh:
                data = fh.read(PASTE_LIMIT_BYTES + 1)
        except OSError as exc:
            raise UserError(
                "doctor.paste_unreadable", file=name, error=exc.strerror or str(exc)
            ) from None
        label = os.path.basename(name)
    if len(data) > PASTE_LIMIT_BYTES:
        raise UserError(
            "doctor.paste_too_large", file=label, mib=PASTE_LIMIT_BYTES // (1024 * 1024)
        )
    return Text.of(label, decode_paste(data, label))


def decode_paste(data: bytes, label: str) -> str:
    """Bytes → text: BOM first, then UTF-8, then GB18030 (Chinese Windows consoles)."""
    from gpuwise.errors import UserError

    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if b"\x00" in data[:4096]:
        raise UserError("doctor.paste_binary", file=label)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("gb18030", errors="replace")


def _run(
    as_json: bool, nccl: bool, ollama_url: str | None, timeout: float | None, python: str | None
) -> int:
    import math
    import time

    from gpuwise.errors import UserError
    from gpuwise.render import out

    if timeout is not None and not (math.isfinite(timeout) and 0 < timeout <= 3600):
        raise UserError("doctor.bad_timeout", value=timeout)
    if ollama_url is not None and not ollama_url.startswith(("http://", "https://")):
        raise UserError("doctor.bad_url", value=ollama_url)
    if python is not None and not _runnable(python):
        raise UserError("doctor.bad_python", value=python)
    start = time.monotonic()
    total = (
        timeout if timeout is not None else (DEFAULT_NCCL_TIMEOUT_S if nccl else DEFAULT_TIMEOUT_S)
    )
    with _terminate_as_exit():
        report = build_report(start, total, nccl=nccl, ollama_url=ollama_url, python=python)
    if as_json:
        out.emit_json(report)
    else:
        from gpuwise.render.doctor import render_doctor

        render_doctor(out.console(), report)
    return report.exit_code


class _terminate_as_exit:
    """While probing, SIGTERM ends gpuwise like Ctrl-C does: every probe child is killed first.

    Python's default SIGTERM action kills the process outright, leaving children that run in
    their own process groups (a hung nvidia-smi) behind; raising SystemExit(143) instead lets
    the collector's interrupt handler kill them. The previous handler is restored afterwards.
    """

    def __enter__(self) -> None:
        import signal
        import threading

        self._old = None
        if threading.current_thread() is threading.main_thread() and hasattr(signal, "SIGTERM"):
            self._old = signal.signal(signal.SIGTERM, _raise_exit)

    def __exit__(self, *exc: object) -> None:
        import signal

        if self._old is not None:
            signal.signal(signal.SIGTERM, self._old)


def _raise_exit(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _runnable(python: str) -> bool:
    """Whether `python` names an executable (a path, or a name on PATH)."""
    import os
    import shutil

    return os.access(python, os.X_OK) if os.sep in python else shutil.which(python) is not None


def build_report(
    start: float, total_s: float, nccl: bool, ollama_url: str | None, python: str | None
) -> DoctorReport:
    """Probe the machine (within `total_s` of `start`), then diagnose and summarise."""
    import sys
    import time

    from gpuwise.catalog import load_catalog
    from gpuwise.catalog.compat import CompatTables
    from gpuwise.doctor.report import make_report
    from gpuwise.probe.collect import collect, default_probes
    from gpuwise.probe.context import ProbeContext
    from gpuwise.probe.run import reopen

    reopen()
    margin = min(0.5, total_s * 0.1)  # leave time to diagnose and print
    ctx = ProbeContext(
        deadline=start + total_s - margin,
        python=python or sys.executable,
        ollama_url=ollama_url,
    )
    facts = collect(ctx, default_probes(nccl=nccl))
    tables = CompatTables.from_catalog(load_catalog())
    return make_report(facts, tables, time.monotonic() - start, nccl=nccl)
