"""`gpuwise exporter`: Prometheus /metrics for this machine's GPUs (127.0.0.1 by default).

A fleet is monitored with the Prometheus/Grafana stack it already has: run this on every GPU
host, scrape it (docs/prometheus.yml), import the dashboard (`--dashboard > file.json`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from gpuwise.i18n import t

if TYPE_CHECKING:
    from prometheus_client.registry import CollectorRegistry

    from gpuwise.monitor.exporter import LiveSampler


def register(app: typer.Typer) -> None:
    """Add `exporter` to the root app."""

    @app.command("exporter", help=t("exporter.help"))
    def exporter(
        listen: str = typer.Option(None, "--listen", help=t("exporter.opt_listen")),
        interval: float = typer.Option(None, "--interval", help=t("exporter.opt_interval")),
        dcgm_names: bool = typer.Option(False, "--dcgm-names", help=t("exporter.opt_dcgm")),
        dashboard: bool = typer.Option(False, "--dashboard", help=t("exporter.opt_dashboard")),
        once: bool = typer.Option(False, "--once", help=t("exporter.opt_once")),
        as_json: bool = typer.Option(False, "--json", help=t("exporter.opt_json")),
    ) -> None:
        from gpuwise.cli.monitor_common import check_interval
        from gpuwise.monitor.policy import EXPORTER_INTERVAL_S

        if dashboard:
            import sys

            from gpuwise.monitor.exporter import dashboard_json

            sys.stdout.write(dashboard_json())
            return
        interval_s = check_interval(interval if interval is not None else EXPORTER_INTERVAL_S)
        host, port = _listen(listen)
        _serve(host, port, interval_s, dcgm_names, once, as_json)


def _listen(value: str | None) -> tuple[str, int]:
    from gpuwise.errors import UserError
    from gpuwise.monitor.exporter import parse_listen
    from gpuwise.monitor.policy import EXPORTER_PORT

    try:
        return parse_listen(value or "127.0.0.1", EXPORTER_PORT)
    except ValueError as exc:
        raise UserError("exporter.bad_listen", value=value) from exc


def _serve(host: str, port: int, interval_s: float, dcgm: bool, once: bool, as_json: bool) -> None:
    import threading

    from gpuwise.cli.monitor_common import err_console
    from gpuwise.monitor.exporter import LiveSampler, is_loopback, make_registry, serve
    from gpuwise.monitor.sampler import Sampler, default_sources

    sampler = Sampler(default_sources())
    statuses = sampler.open()
    live = LiveSampler(sampler, interval_s)
    registry = make_registry(live, dcgm)
    try:
        if once:
            _print_once(live, registry, as_json)
            return
        try:
            server = serve(registry, host, port)
        except OSError as exc:
            raise _listen_error(exc, host, port) from exc
        live.start()
        console = err_console()
        bound = server.server_address[1]
        console.print(t("exporter.listening", host=host, port=bound, vendors=_vendors(statuses)))
        if not is_loopback(host):
            console.print("⚠ " + t("exporter.not_loopback", host=host))
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        live.stop()
        sampler.close()


def _listen_error(exc: OSError, host: str, port: int) -> Exception:
    """Why the server could not bind, naming the part that is wrong: a host that does not
    resolve or is not this machine's ("pick another port" was the advice for both), or the
    port (in use, or below 1024 without root)."""
    import errno
    import socket

    from gpuwise.errors import UserError

    problem = exc.strerror or str(exc)
    if isinstance(exc, socket.gaierror) or exc.errno == errno.EADDRNOTAVAIL:
        return UserError("exporter.bad_host", host=host, problem=problem)
    return UserError("exporter.cannot_listen", host=host, port=port, problem=problem)


def _vendors(statuses: dict[str, str]) -> str:
    ok = [v for v, s in statuses.items() if s == "ok"]
    return ", ".join(ok) or t("exporter.no_vendor")


def _print_once(live: LiveSampler, registry: CollectorRegistry, as_json: bool) -> None:
    """One sample, printed as the text a scrape would get (or the sample as JSON)."""
    import sys

    from prometheus_client import generate_latest

    sample = live.take()
    if as_json:
        from gpuwise.render import out

        out.emit_json(sample.to_dict())
        return
    sys.stdout.write(generate_latest(registry).decode("utf-8"))
