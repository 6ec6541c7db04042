"""GPUs and models as plain dicts from the listing cache: no pydantic, no TOML on this path."""

from __future__ import annotations

from typing import Any

from gpuwise.catalog import files


def load_listing() -> dict[str, list[dict[str, Any]]]:
    """The --json shapes of every GPU and model, rebuilt through the full loader when stale."""
    paths = files.builtin_files() + files.override_files()
    key = files.fingerprint(paths)
    cached = files.load_cached(key, kind="listing")
    if isinstance(cached, dict) and "gpus" in cached and "findings" in cached:
        if cached["findings"]:  # a user file left out: warn as the full loader does
            from gpuwise.catalog.catalog import warn_left_out

            warn_left_out([(f["key"], tuple(f["params"])) for f in cached["findings"]])
        return cached
    from gpuwise.catalog.catalog import load_catalog
    from gpuwise.catalog.serialize import listing_of

    cat = load_catalog()
    listing = listing_of(cat)
    listing["findings"] = [{"key": k, "params": list(p)} for k, p in cat.findings]
    files.store_cached(key, listing, kind="listing")
    return listing


def gpu_by_name(listing: dict[str, list[dict[str, Any]]], name: str) -> dict[str, Any]:
    """One GPU dict by any of its names; unknown names raise the catalog's UserError."""
    from gpuwise.catalog.names import normalize

    key = normalize(name)
    for g in listing["gpus"]:
        if key in {normalize(n) for n in (g["id"], g["name"], *g["aliases"])}:
            return g
    from gpuwise.catalog.catalog import load_catalog

    load_catalog().gpu(name)  # raises with suggestions
    raise AssertionError("unreachable")
