"""`gpuwise offers add` and `gpuwise offers import FILE`: the user's own prices, written as
override files in the catalog format (prices/userfile.py), never over an existing file."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from gpuwise.i18n import t

_PROMPTED = ("provider", "instance", "gpu", "billing", "price")


def register_quotes(group: typer.Typer) -> None:
    """Add `add` and `import` to the `offers` group."""

    @group.command("add", help=t("prices.add_help"))
    def add(
        provider: str = typer.Option(None, "--provider", help=t("prices.opt_q_provider")),
        instance: str = typer.Option(None, "--instance", help=t("prices.opt_q_instance")),
        gpu: str = typer.Option(None, "--gpu", help=t("prices.opt_q_gpu")),
        count: float = typer.Option(1.0, "--count", help=t("prices.opt_q_count")),
        billing: str = typer.Option(None, "--billing", help=t("prices.opt_q_billing")),
        price: str = typer.Option(None, "--price", help=t("prices.opt_q_price")),
        per: str = typer.Option(None, "--per", help=t("prices.opt_q_per")),
        currency: str = typer.Option(None, "--currency", help=t("prices.opt_q_currency")),
        date: str = typer.Option(None, "--date", help=t("prices.opt_q_date")),
        region: str = typer.Option(None, "--region", help=t("prices.opt_q_region")),
        note: str = typer.Option("", "--note", help=t("prices.opt_q_note")),
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
    ) -> None:
        row: dict[str, Any] = {
            "provider": provider,
            "instance": instance,
            "gpu": gpu,
            "gpu_count": count,
            "billing": billing,
            "price": price,
            "per": per,
            "currency": currency,
            "date": date,
            "region": region,
            "note": note,
        }
        _ask_missing(row)
        _add(row, as_json)

    @group.command("import", help=t("prices.import_help"))
    def import_(
        file: Path = typer.Argument(..., help=t("prices.arg_import_file")),
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
    ) -> None:
        _import(file, as_json)


def _ask_missing(row: dict[str, Any]) -> None:
    """Prompt for what the flags left out, on a terminal; elsewhere name the missing flag."""
    from gpuwise.errors import UserError

    for name in _PROMPTED:
        if row[name] not in (None, ""):
            continue
        if not sys.stdin.isatty():
            raise UserError("prices.missing_flag", flag=f"--{name}")
        row[name] = typer.prompt(t(f"prices.ask_{name}"))
    if sys.stdin.isatty() and row["date"] is None:
        row["date"] = typer.prompt(t("prices.ask_date"), default="", show_default=False) or None


def _add(row: dict[str, Any], as_json: bool) -> None:
    import datetime as dt

    from gpuwise.catalog import load_catalog
    from gpuwise.prices.quotes import quote_from_row
    from gpuwise.prices.userfile import add_quote
    from gpuwise.render import out

    cat = load_catalog()
    now = dt.datetime.now()
    quote = quote_from_row(cat, 0, row, now.date())
    path = add_quote(cat, quote, now)
    if as_json:
        out.emit_json({"file": str(path), "provider": quote.provider, "instance": quote.instance})
        return
    out.console().print(t("prices.added", instance=quote.instance, path=str(path)))


def _import(file: Path, as_json: bool) -> None:
    import datetime as dt

    from gpuwise.catalog import load_catalog
    from gpuwise.errors import UserError
    from gpuwise.prices.quotes import quote_from_row, read_rows
    from gpuwise.prices.userfile import write_import
    from gpuwise.render import out
    from gpuwise.userfiles import read_text

    fmt = {".csv": "csv", ".tsv": "csv", ".txt": "csv", ".json": "json", ".toml": "toml"}.get(
        file.suffix.lower()
    )
    if fmt is None:
        raise UserError("prices.bad_format", path=str(file))
    if not file.is_file():
        raise UserError("prices.no_file", path=str(file))
    text = read_text(file, UserError)
    try:
        rows = read_rows(text, fmt)
    except ValueError as exc:  # JSON/TOML syntax (tomllib and json errors are ValueErrors)
        raise UserError("prices.unreadable", path=str(file), problem=str(exc)) from exc
    if not rows:
        raise UserError("prices.empty_import", path=str(file))
    cat = load_catalog()
    now = dt.datetime.now()
    quotes = []
    for line, raw in rows:
        try:
            quotes.append(quote_from_row(cat, line, raw, now.date()))
        except UserError as exc:
            raise UserError("prices.import_row", path=file.name, problem=exc.render()) from exc
    paths = write_import(cat, quotes, file, now)
    if as_json:
        out.emit_json({"files": [str(p) for p in paths], "quotes": len(quotes)})
        return
    for p in paths:
        out.console().print(t("prices.imported", n=len(quotes), path=str(p)))
