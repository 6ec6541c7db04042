"""`gpuwise prices`: refresh public price feeds into the user cache, and show their state."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from gpuwise.i18n import t

if TYPE_CHECKING:
    from gpuwise.catalog.price_age import ProviderPriceAge


def register(app: typer.Typer) -> None:
    """Add the `prices` group to the root app."""
    group = typer.Typer(help=t("prices.help"), no_args_is_help=True)

    @group.command("refresh", help=t("prices.refresh_help"))
    def refresh(
        source: str = typer.Option(None, "--source", help=t("prices.opt_source")),
        from_skypilot: Path = typer.Option(None, "--from-skypilot", help=t("prices.opt_skypilot")),
        provider: str = typer.Option(None, "--provider", help=t("prices.opt_sky_provider")),
        published: str = typer.Option(None, "--published", help=t("prices.opt_published")),
        offline: bool = typer.Option(False, "--offline", help=t("prices.opt_offline")),
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
    ) -> None:
        code = _refresh(source, from_skypilot, provider, published, offline, as_json)
        raise typer.Exit(code)

    @group.command("status", help=t("prices.status_help"))
    def status(as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json"))) -> None:
        from gpuwise.prices import store
        from gpuwise.render import out

        state = store.read_state()
        today, ages = _catalog_ages()
        if as_json:
            out.emit_json(
                {
                    "folder": str(store.root()),
                    "feeds": state,
                    "catalog_age": {
                        "today": today.isoformat(),
                        "old_after_days": _old_after_days(),
                        "providers": [a.as_dict() for a in ages],
                    },
                }
            )
            return
        console = out.console()
        console.print(t("prices.folder", path=str(store.root())))
        if not state:
            console.print(t("prices.never"))
        for feed, s in sorted(state.items()):
            console.print(_line(s if isinstance(s, dict) else {"feed": feed}))
        from gpuwise.render.price_age import render_price_ages

        console.print()
        render_price_ages(console, ages, today.isoformat())

    app.add_typer(group, name="prices")


def _catalog_ages() -> tuple[dt.date, list[ProviderPriceAge]]:
    """Today and the built-in catalog's price ages per provider (issue 29 item 6)."""
    from gpuwise.catalog import load_catalog
    from gpuwise.catalog.price_age import provider_price_ages

    today = dt.date.today()
    return today, provider_price_ages(load_catalog(), today)


def _old_after_days() -> int:
    from gpuwise.catalog.price_age import OLD_AFTER_DAYS

    return OLD_AFTER_DAYS


def _feeds(source: str | None, skypilot: bool) -> list[str]:
    """The network feeds to read: all by default, none when only a SkyPilot file is given."""
    from gpuwise.errors import UserError
    from gpuwise.prices.refresh import FEEDS

    if source is None:
        return [] if skypilot else list(FEEDS)
    key = source.strip().lower()
    if key == "all":
        return list(FEEDS)
    if key == "skypilot":
        if not skypilot:
            raise UserError("prices.skypilot_needs_file")
        return []
    if key not in FEEDS:
        raise UserError("prices.bad_source", value=source, choices=", ".join(("all", *FEEDS)))
    return [key]


def _refresh(
    source: str | None,
    skypilot: Path | None,
    provider: str | None,
    published: str | None,
    offline: bool,
    as_json: bool,
) -> int:
    """Refresh; the exit code says whether it did what was asked: 0 when every feed asked for
    was read (or skipped with --offline), 1 when one could not be (the line on stderr says
    which; the previous prices stay), 2 when the SkyPilot file given is unusable."""
    from gpuwise.catalog import load_catalog
    from gpuwise.errors import UserError
    from gpuwise.prices.refresh import Env, SkyPilotFile, refresh, skypilot_cloud
    from gpuwise.render import out

    feeds = _feeds(source, skypilot is not None)
    if skypilot is not None and not skypilot.is_file():
        raise UserError("prices.no_file", path=str(skypilot))
    when = None
    if published:
        try:
            when = dt.date.fromisoformat(published)
        except ValueError:
            raise UserError("prices.bad_date", value=published) from None
    sky = SkyPilotFile(skypilot, provider, when) if skypilot is not None else None
    cat = load_catalog()
    if skypilot is not None and skypilot_cloud(cat, skypilot, provider) is None:
        known = ", ".join(sorted(cat.providers))
        raise UserError(
            "prices.skypilot_cloud",
            path=str(skypilot),
            given=provider or skypilot.resolve().parent.name,
            known=known,
        )
    now = dt.datetime.now(dt.UTC)
    with _bars(not as_json) as progress:
        reports = refresh(Env(cat, now, progress=progress), feeds, offline, sky)
    data = [r.as_dict() for r in reports]
    sky_report = next((r for r in reports if r.feed == "skypilot"), None)
    if sky_report is not None and sky_report.status == "failed":
        raise UserError("prices.skypilot_unusable", path=str(skypilot), problem=sky_report.problem)
    if as_json:
        out.emit_json({"feeds": data})
    else:
        _print_reports(data)
    failed = [r.feed for r in reports if r.status in ("failed", "partial")]
    if failed:
        import sys

        sys.stderr.write(
            t("prices.refresh_failed", failed=", ".join(failed), count=len(failed),
              total=len(reports)) + "\n"
        )  # fmt: skip
        return 1
    return 0


def _print_reports(data: list[dict[str, Any]]) -> None:
    from gpuwise.render import out

    console = out.console()
    for r in data:
        console.print(_line(r))
        for f in r["findings"]:
            examples = ", ".join(f["examples"][:5])
            console.print(
                "  " + t(f"prices.finding.{f['reason']}", count=f["count"], examples=examples)
            )


def _line(r: dict[str, Any]) -> str:
    """One feed's outcome in a sentence."""
    status = r.get("status", "?")
    params = {
        "feed": r.get("feed", "?"),
        "offers": r.get("offers", 0),
        "rows": r.get("rows", 0),
        "when": r.get("fetched_at") or "—",
        "problem": r.get("problem") or "",
    }
    return t(f"prices.status.{status}", **params)


class _Bars:
    """rich progress bars on stderr, one per task label (nothing when quiet)."""

    def __init__(self, show: bool) -> None:
        from rich.console import Console
        from rich.progress import Progress

        self.progress = Progress(console=Console(stderr=True), transient=True, disable=not show)
        self.tasks: dict[str, Any] = {}

    def __enter__(self) -> _Bars:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def __call__(self, label: str, done: int, total: int | None) -> None:
        if label not in self.tasks:
            self.tasks[label] = self.progress.add_task(label, total=total)
        self.progress.update(self.tasks[label], completed=done, total=total)


def _bars(show: bool) -> _Bars:
    return _Bars(show)
