"""Write the user's quotes as override files (catalog format) without ever losing a file.

`offers add` keeps one gpuwise-managed file per provider (`quotes-<provider>.toml`, marked on
its first line); each change is checked with the whole catalog first, the previous version is
kept as `.bak`, and the new one is written atomically. A file of that name that gpuwise did not
write is refused. `offers import` writes a new file per import and provider and never
replaces an existing one. A folder that cannot be written (read-only, not a folder) is one
line naming it, never a PermissionError; an error found while checking names the file the
quote is for, never the temporary file it was checked in.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from typing import Any

import tomllib

from gpuwise.catalog import files as F
from gpuwise.catalog.catalog import Catalog
from gpuwise.errors import CatalogError, UserError
from gpuwise.prices.quotes import Quote, offers_of, provider_currency
from gpuwise.prices.tomlw import document
from gpuwise.userfiles import read_managed, replace_managed

MANAGED = "gpuwise-managed quotes"
"""First-line marker of a file `offers add` may rewrite."""


def _source(
    pid: str, stamp: str, url: str, today: dt.date, note: str
) -> tuple[str, dict[str, Any]]:
    sid = f"quote-{pid}-{stamp}"  # stamp: "managed", or the import file's unique name
    return sid, {
        "url": url,
        "title": f"Your own prices for {pid} ({note})",
        "retrieved": today,
        "published": "undated",
        "dated_by": "user",
    }


def _provider_table(cat: Catalog, pid: str, quotes: list[Quote], sid: str) -> dict[str, Any]:
    known = cat.providers.get(pid)
    if known is not None and not known.source.startswith("quote-"):
        return {"id": pid, "source": known.source}  # a catalog provider: its own source stays
    currency = provider_currency(cat, pid, quotes)
    if known is not None:  # defined by another of the user's files: restate it whole
        names, kind = (known.name_en, known.name_zh), known.region_kind
    else:
        names = (quotes[0].provider_name, quotes[0].provider_name)
        kind = "cn" if currency == "CNY" else "global"
    return {
        "id": pid,
        "name_en": names[0],
        "name_zh": names[1],
        "region_kind": kind,
        "currency": currency,
        "source": sid,
    }


def by_provider(quotes: list[Quote]) -> dict[str, list[Quote]]:
    """Quotes grouped by the provider each was resolved to (quotes.quote_from_row)."""
    out: dict[str, list[Quote]] = {}
    for q in quotes:
        out.setdefault(q.provider, []).append(q)
    return out


def _writable(folder: Path) -> None:
    """The override folder exists (made if needed) and can be written, else one UserError."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(
            "prices.cannot_write", path=str(folder), problem=exc.strerror or str(exc)
        ) from exc
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UserError("prices.cannot_write", path=str(folder), problem=os.strerror(13))


def _validate(text: str, name: str) -> None:
    """Build the catalog with the new file in place of `name`; CatalogError → one UserError."""
    from gpuwise.catalog import catalog as C

    folder = F.override_dir()
    _writable(folder)
    probe = folder / f".{name}.{os.getpid()}.check"
    probe_toml = probe.with_suffix(".toml")
    try:
        probe.write_text(text, encoding="utf-8")
        probe.replace(probe_toml)
        others = [p for p in F.override_files() if p.name != name and p != probe_toml]
        feeds = F.feed_files()  # a broken feed or other override never blocks a quote
        C.build_skipping(F.builtin_files() + feeds + others + [probe_toml], feeds + others)
    except CatalogError as exc:
        if exc.params.get("file") == str(probe_toml):  # name the file the quote is for
            exc = CatalogError(exc.key, **{**exc.params, "file": str(folder / name)})
        raise UserError("prices.quote_invalid", problem=exc.render()) from exc
    except OSError as exc:
        raise UserError(
            "prices.cannot_write", path=str(folder), problem=exc.strerror or str(exc)
        ) from exc
    finally:
        probe.unlink(missing_ok=True)
        probe_toml.unlink(missing_ok=True)


def write_import(
    cat: Catalog, quotes: list[Quote], origin: Path, now: dt.datetime
) -> list[tuple[Path, int]]:
    """One new file per provider, `import-<file stem>-<provider>-<time>.toml`, with the number
    of quotes each holds."""
    stamp = now.strftime("%Y%m%d-%H%M%S")
    folder = F.override_dir()
    written = []
    plans = []
    for pid, qs in sorted(by_provider(quotes).items()):
        name = _free_name(folder, f"import-{_safe(origin.stem)}-{pid}-{stamp}")
        tag = name.removesuffix(".toml").lower()  # unique like the file name
        sid, src = _source(pid, tag, origin.resolve().as_uri(), now.date(), origin.name)
        text = document(
            f"Imported by `gpuwise offers import {origin.name}` on {now:%Y-%m-%d %H:%M}.\n"
            "Your own prices: gpuwise never rewrites this file.",
            {sid: src},
            _provider_table(cat, pid, qs, sid),
            offers_of(qs, sid, provider_currency(cat, pid, qs)),
        )
        _validate(text, name)
        plans.append((folder / name, text, len(qs)))
    for path, text, count in plans:
        try:
            with path.open("x", encoding="utf-8") as fh:  # never replaces a file
                fh.write(text)
        except OSError as exc:
            raise UserError(
                "prices.cannot_write", path=str(path), problem=exc.strerror or str(exc)
            ) from exc
        written.append((path, count))
    return written


def add_quote(cat: Catalog, quote: Quote, now: dt.datetime) -> tuple[Path, bool]:
    """Add one quote to the provider's managed file (backup kept, written atomically); also
    says whether a previous version was kept as `.bak` (none on the first add)."""
    pid = quote.provider
    folder = F.override_dir()
    path = folder / f"quotes-{pid}.toml"
    quotes = [*_managed_quotes(path), quote]
    sid, src = _source(
        pid, "managed", "file:" + str(path.resolve()), now.date(), "gpuwise offers add"
    )
    text = document(
        f"{MANAGED}: written by `gpuwise offers add`; the previous version is kept as .bak.\n"
        f"Last change {now:%Y-%m-%d %H:%M}.",
        {sid: src},
        _provider_table(cat, pid, quotes, sid),
        offers_of(quotes, sid, provider_currency(cat, pid, quotes)),
    )
    _validate(text, path.name)
    try:
        kept = replace_managed(path, text)
    except OSError as exc:
        raise UserError(
            "prices.cannot_write", path=str(path), problem=exc.strerror or str(exc)
        ) from exc
    return path, kept


def _managed_quotes(path: Path) -> list[Quote]:
    """The quotes already in a managed file; a file gpuwise did not write is refused."""
    text = read_managed(path, MANAGED, "prices.not_managed")
    if text is None:
        return []
    data = tomllib.loads(text)
    provider = data.get("provider", {})
    out = []
    for offer in data.get("offer", []):
        for p in offer.get("prices", []):
            out.append(
                Quote(
                    line=0,
                    provider=str(provider.get("id")),
                    provider_name=str(provider.get("name_en") or provider.get("id")),
                    instance=_base_instance(offer),
                    gpu=offer["gpu"],
                    gpu_count=float(offer.get("gpu_count", 1)),
                    billing=p["billing"],
                    price=float(p["amount"]),
                    per=p.get("per", "hour"),
                    currency=p.get("currency") or provider.get("currency"),
                    date=p.get("published"),
                    region=offer.get("price_region"),
                    note=p.get("note", ""),
                    vcpu=offer.get("vcpu"),
                    ram_gb=offer.get("ram_gb"),
                    network_gbps=offer.get("network_gbps"),
                )
            )
    return out


def _base_instance(offer: dict[str, Any]) -> str:
    name, region = str(offer["instance"]), offer.get("price_region")
    suffix = f" ({region})"
    return name[: -len(suffix)] if region and name.endswith(suffix) else name


def _free_name(folder: Path, stem: str) -> str:
    """`stem.toml`, or `stem-2.toml`, … when that exists (two imports in one second)."""
    name, n = f"{stem}.toml", 1
    while (folder / name).exists():
        n += 1
        name = f"{stem}-{n}.toml"
    return name


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in text)[:40] or "file"
