"""Write the user's quotes as override files (catalog format) without ever losing a file.

`offers add` keeps one gpuwise-managed file per provider (`quotes-<provider>.toml`, marked on
its first line); each change is checked with the whole catalog first, the previous version is
kept as `.bak`, and the new one is written atomically. A file of that name that gpuwise did not
write is refused. `offers import` writes a new file per import and provider and never
replaces an existing one.
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
from gpuwise.prices.quotes import Quote, check_currency, offers_of, resolve_provider
from gpuwise.prices.tomlw import document

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
    currency: str
    if known is not None:  # defined by another of the user's files: restate it whole
        names, currency = (known.name_en, known.name_zh), str(known.currency)
        kind = known.region_kind
    else:
        currency = check_currency(cat, pid, quotes[0])
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


def by_provider(cat: Catalog, quotes: list[Quote]) -> dict[str, list[Quote]]:
    """Quotes grouped by the catalog provider they belong to (currency checked)."""
    out: dict[str, list[Quote]] = {}
    for q in quotes:
        pid = resolve_provider(cat, q)
        check_currency(cat, pid, q)
        out.setdefault(pid, []).append(q)
    return out


def _validate(text: str, name: str) -> None:
    """Build the catalog with the new file in place of `name`; CatalogError → one UserError."""
    from gpuwise.catalog import catalog as C
    from gpuwise.catalog import load as L

    folder = F.override_dir()
    folder.mkdir(parents=True, exist_ok=True)
    probe = folder / f".{name}.{os.getpid()}.check"
    probe.write_text(text, encoding="utf-8")
    try:
        probe_toml = probe.with_suffix(".toml")
        probe.replace(probe_toml)
        others = [p for p in F.override_files() if p.name != name and p != probe_toml]
        files = F.builtin_files() + F.feed_files() + others + [probe_toml]
        C.build(L.read_files(files), files)
    except CatalogError as exc:
        raise UserError("prices.quote_invalid", problem=exc.render()) from exc
    finally:
        probe.unlink(missing_ok=True)
        probe.with_suffix(".toml").unlink(missing_ok=True)


def write_import(cat: Catalog, quotes: list[Quote], origin: Path, now: dt.datetime) -> list[Path]:
    """One new file per provider: `import-<file stem>-<provider>-<time>.toml`."""
    stamp = now.strftime("%Y%m%d-%H%M%S")
    folder = F.override_dir()
    written = []
    plans = []
    for pid, qs in sorted(by_provider(cat, quotes).items()):
        name = _free_name(folder, f"import-{_safe(origin.stem)}-{pid}-{stamp}")
        tag = name.removesuffix(".toml").lower()  # unique like the file name
        sid, src = _source(pid, tag, origin.resolve().as_uri(), now.date(), origin.name)
        text = document(
            f"Imported by `gpuwise offers import {origin.name}` on {now:%Y-%m-%d %H:%M}.\n"
            "Your own prices: gpuwise never rewrites this file.",
            {sid: src},
            _provider_table(cat, pid, qs, sid),
            offers_of(qs, sid),
        )
        _validate(text, name)
        plans.append((folder / name, text))
    for path, text in plans:
        with path.open("x", encoding="utf-8") as fh:  # never replaces a file
            fh.write(text)
        written.append(path)
    return written


def add_quote(cat: Catalog, quote: Quote, now: dt.datetime) -> Path:
    """Add one quote to the provider's managed file (backup kept, written atomically)."""
    pid = resolve_provider(cat, quote)
    check_currency(cat, pid, quote)
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
        offers_of(quotes, sid),
    )
    _validate(text, path.name)
    if path.exists():
        bak = path.with_name(path.name + ".bak")
        bak.write_bytes(path.read_bytes())
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path


def _managed_quotes(path: Path) -> list[Quote]:
    """The quotes already in a managed file; a file gpuwise did not write is refused."""
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    first = text.splitlines()[0] if text else ""
    if MANAGED not in first:
        raise UserError("prices.not_managed", path=str(path))
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
                    currency=provider.get("currency"),
                    date=p.get("published"),
                    region=offer.get("price_region"),
                    note=p.get("note", ""),
                    vcpu=offer.get("vcpu"),
                    ram_gb=offer.get("ram_gb"),
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
