"""The plan as data for `--json` and `--explain`: each pin with its reason and the URL and
retrieval date of every table row behind it."""

from __future__ import annotations

from typing import Any

from gpuwise.i18n import t
from gpuwise.setup.model import Pin, Plan, Refusal
from gpuwise.setup.tables import SetupTables


def _sources(tables: SetupTables, ids: tuple[str, ...]) -> list[dict[str, str]]:
    out = []
    for sid in ids:
        url, retrieved = tables.sources.get(sid, ("", ""))
        out.append({"id": sid, "url": url, "retrieved": retrieved})
    return out


def pin_dict(tables: SetupTables, pin: Pin) -> dict[str, Any]:
    """One pin: name, version, why (current language), sources."""
    return {
        "name": pin.name,
        "version": pin.version,
        "why": t(pin.why, name=pin.name, version=pin.version, **pin.params),
        "sources": _sources(tables, pin.sources),
    }


def refusal_dict(tables: SetupTables, r: Refusal) -> dict[str, Any]:
    """Why not, and the nearest combination that works."""
    return {
        "reason_id": r.reason.rsplit(".", 1)[-1],
        "reason": t(r.reason, **r.params),
        "nearest": t(r.nearest, **r.nearest_params),
        "sources": _sources(tables, r.sources),
    }


def plan_dict(tables: SetupTables, plan: Plan, files: list[str]) -> dict[str, Any]:
    """The JSON shape of a plan (stable keys)."""
    images = [p for p in (plan.base_image, plan.uv_image) if p is not None]
    return {
        "stack": plan.stack,
        "target": plan.target.as_dict(),
        "ok": plan.refusal is None,
        "refusal": refusal_dict(tables, plan.refusal) if plan.refusal else None,
        "pins": [pin_dict(tables, p) for p in plan.pins],
        "images": [pin_dict(tables, p) for p in images],
        "index_url": plan.index_url,
        "extra_index_url": plan.extra_index_url,
        "environment": dict(plan.env),
        "need_driver": plan.need_driver,
        "notes": [t(key, **params) for key, params in plan.notes],
        "files": files,
    }
