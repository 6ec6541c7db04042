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
        network_gbps: float = typer.Option(
            None, "--network-gbps", help=t("prices.opt_q_network_gbps")
        ),
        new_provider: bool = typer.Option(
            False, "--new-provider", help=t("prices.opt_q_new_provider")
        ),
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
            "network_gbps": network_gbps,
        }
        _ask_missing(row)
        _add(row, new_provider, as_json)

    @group.command("import", help=t("prices.import_help"))
    def import_(
        file: Path = typer.Argument(..., help=t("prices.arg_import_file")),
        new_provider: bool = typer.Option(
            False, "--new-provider", help=t("prices.opt_import_new_provider")
        ),
        provider: str = typer.Option(None, "--provider", help=t("prices.opt_import_provider")),
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
    ) -> None:
        _import(file, new_provider, as_json, provider)


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


def _add(row: dict[str, Any], new_provider: bool, as_json: bool) -> None:
    import datetime as dt

    from gpuwise.catalog import load_catalog
    from gpuwise.prices.quotes import quote_from_row
    from gpuwise.prices.userfile import add_quote
    from gpuwise.render import out

    cat = load_catalog()
    now = dt.datetime.now()
    quote = quote_from_row(cat, 0, row, now.date(), new_provider=new_provider)
    path, kept = add_quote(cat, quote, now)
    notes = quote_notes(cat, [quote])
    if as_json:
        data = {"file": str(path), "provider": quote.provider, "instance": quote.instance}
        out.emit_json({**data, "currency": quote.currency, "notes": notes})
        return
    key = "prices.added" if kept else "prices.added_new"
    out.console().print(t(key, instance=quote.instance, path=str(path)))
    for note in notes:
        out.console().print(note)


IMPORT_FORMATS = {".csv": "csv", ".tsv": "csv", ".txt": "csv", ".json": "json", ".toml": "toml"}


def _import(file: Path, new_provider: bool, as_json: bool, provider: str | None = None) -> None:
    """Import a price list. `provider` fills the provider of rows that name none, so that a
    console's export (which has no 厂商 column: it is one cloud's own list) is read as is;
    a row that names its provider keeps it."""
    import datetime as dt

    from gpuwise.catalog import load_catalog
    from gpuwise.errors import UserError
    from gpuwise.prices.quotes import quote_from_row
    from gpuwise.prices.userfile import write_import
    from gpuwise.render import out

    rows = _read_price_list(file)
    cat = load_catalog()
    now = dt.datetime.now()
    quotes = []
    for line, raw in rows.rows:
        if provider and not str(raw.get("provider") or "").strip():
            raw = {**raw, "provider": provider}
        try:
            quotes.append(quote_from_row(cat, line, raw, now.date(), rows.decimal, new_provider))
        except UserError as exc:
            raise UserError("prices.import_row", path=file.name, problem=exc.render()) from exc
    written = write_import(cat, quotes, file, now)
    notes = quote_notes(cat, quotes)
    if as_json:
        files = [{"file": str(p), "quotes": n} for p, n in written]
        data = {"files": [str(p) for p, _ in written], "written": files, "quotes": len(quotes)}
        out.emit_json({**data, "notes": notes})
        return
    for p, n in written:  # each file with its own count (review 3: the total was repeated)
        out.console().print(t("prices.imported", n=n, path=str(p)))
    for note in notes:
        out.console().print(note)


def _read_price_list(file: Path) -> Any:
    """The rows of a price list: format by extension, size up to userfiles.DATA_MAX_BYTES (a
    20 000-row console export is 1.3 MB), text only; every problem is one line."""
    from gpuwise.errors import UserError
    from gpuwise.prices.quote_rows import read_rows
    from gpuwise.userfiles import DATA_MAX_BYTES, read_text

    fmt = IMPORT_FORMATS.get(file.suffix.lower())
    if fmt is None:
        raise UserError("prices.bad_format", path=str(file))
    if not file.is_file():
        raise UserError("prices.no_file", path=str(file))
    try:
        text = read_text(file, UserError, limit=DATA_MAX_BYTES)
    except UserError as exc:
        if exc.key == "files.binary":  # not "give a YAML, TOML or JSON file"
            raise UserError("prices.binary", path=str(file)) from exc
        raise
    try:
        rows = read_rows(text, fmt, file)
    except ValueError as exc:  # csv's own errors (a NUL byte, a field too large)
        raise UserError("prices.unreadable", path=str(file), problem=str(exc)) from exc
    if not rows.rows:
        key = "prices.empty_import" if fmt == "csv" else "prices.empty_import_data"
        raise UserError(key, path=str(file))
    return rows


def quote_notes(cat: Any, quotes: list[Any]) -> list[str]:
    """What the user should know about quotes kept as given: a provider gpuwise does not list,
    recorded on their word; a price in another currency than the provider usually uses, with
    what it is worth in that currency at the dated rate."""
    notes: list[str] = []
    new = {q.provider: q.provider_name for q in quotes if q.new_provider}
    for pid, name in new.items():
        notes.append(t("prices.new_provider_note", name=name, provider=pid))
    fx = None
    for q in quotes:
        p = cat.providers.get(q.provider)
        if p is None or q.currency in (None, p.currency):
            continue
        if fx is None:
            from gpuwise.cost.fx import build_fx

            fx = build_fx(cat.extra("rate"))
        notes.append(_currency_note(fx, q, str(p.currency)))
    return notes


def _currency_note(fx: Any, q: Any, usual: str) -> str:
    from gpuwise.i18n import t as tr

    where = tr("prices.where_line", line=q.line) if q.line else tr("prices.where_add")
    dates = [fx.dates.get(c) for c in (q.currency, usual) if c != "USD"]
    dated = min((d for d in dates if d), default=None)  # the older of the two rates
    return tr(
        "prices.currency_kept",
        where=where,
        provider=q.provider,
        usual=usual,
        amount=f"{q.price:g} {q.currency}",
        converted=f"{fx.convert(q.price, q.currency, usual):.2f} {usual}",
        date=dated.isoformat() if dated else "?",
    )
