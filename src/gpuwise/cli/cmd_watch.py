"""`gpuwise watch`: every GPU, its processes and the host, live (or JSON lines for scripts)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import typer

from gpuwise.i18n import t

if TYPE_CHECKING:
    from gpuwise.monitor.sampler import Sampler


def register(app: typer.Typer) -> None:
    """Add `watch` to the root app."""

    @app.command("watch", help=t("watch.help"))
    def watch(
        interval: float = typer.Option(1.0, "--interval", help=t("monitor.opt_interval")),
        count: int = typer.Option(None, "--count", help=t("watch.opt_count")),
        no_processes: bool = typer.Option(False, "--no-processes", help=t("watch.opt_no_procs")),
        as_json: bool = typer.Option(False, "--json", help=t("watch.opt_json")),
    ) -> None:
        from gpuwise.cli.monitor_common import check_count, check_interval

        check_interval(interval)
        check_count(count)
        _run(interval, count, not no_processes, as_json)


def _run(interval_s: float, count: int | None, processes: bool, as_json: bool) -> None:
    """Sample until `count` samples were shown or Ctrl-C (exit 0)."""
    from gpuwise.monitor.sampler import Sampler, default_sources

    sampler = Sampler(default_sources())
    sampler.open()
    try:
        if as_json:
            _json_lines(sampler, interval_s, count)
        else:
            _live(sampler, interval_s, count, processes)
    except KeyboardInterrupt:
        pass
    finally:
        sampler.close()


def _ticks(interval_s: float, count: int | None) -> Iterator[int]:
    """Yield once per interval on a drift-free schedule, `count` times (forever when None)."""
    import itertools
    import time

    due = time.monotonic()
    for n in itertools.count():
        if count is not None and n >= count:
            return
        if n:
            due += interval_s
            time.sleep(max(0.0, due - time.monotonic()))
        yield n


def _json_lines(sampler: Sampler, interval_s: float, count: int | None) -> None:
    import json
    import sys

    from gpuwise.monitor.alerts import sample_alerts

    for _ in _ticks(interval_s, count):
        sample = sampler.sample()
        line = {**sample.to_dict(), "alerts": [a.to_dict() for a in sample_alerts(sample)]}
        sys.stdout.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
        sys.stdout.flush()


def _live(sampler: Sampler, interval_s: float, count: int | None, processes: bool) -> None:
    from rich.live import Live

    from gpuwise.monitor.alerts import sample_alerts
    from gpuwise.render import out
    from gpuwise.render.monitor import watch_view

    console = out.console()
    if not console.is_terminal:  # piped: one view per sample, no cursor tricks
        for _ in _ticks(interval_s, count):
            sample = sampler.sample()
            console.print(watch_view(sample, sample_alerts(sample), processes))
        return
    with Live(console=console, auto_refresh=False, transient=False) as live:
        for _ in _ticks(interval_s, count):
            sample = sampler.sample()
            live.update(watch_view(sample, sample_alerts(sample), processes), refresh=True)
