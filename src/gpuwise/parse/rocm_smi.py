"""`rocm-smi --json` output parsed into cards and the driver version (pure).

`rocm-smi --json` prints one object per card ("card0", …) with string values, plus "system"
(driver version). Key spellings changed across ROCm releases ("Card series" / "Card Series").
"""

from __future__ import annotations

import json
from typing import Any


def _first(card: dict[str, Any], *keys: str) -> str:
    for key in keys:
        value = card.get(key)
        if isinstance(value, str) and value and value != "N/A":
            return value
    return ""


def _int(text: str) -> int | None:
    return int(text) if text.strip().isdigit() else None


def rocm_smi_object(text: str) -> dict[str, Any]:
    """The JSON object `rocm-smi --json` printed (it may print warnings before it); ValueError
    when there is none."""
    start = text.find("{")
    try:
        data = json.loads(text[start:]) if start >= 0 else None
    except json.JSONDecodeError as exc:
        raise ValueError(f"bad JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ValueError("no JSON object")
    return data


def parse_rocm_smi_json(text: str) -> dict[str, Any]:
    """Cards (name, gfx target, VRAM total/used) and the driver; ValueError when not JSON."""
    data = rocm_smi_object(text)
    cards = []
    for key in sorted(k for k in data if k.startswith("card")):
        card = data[key] if isinstance(data[key], dict) else {}
        cards.append(
            {
                "card": key,
                "name": _first(card, "Card Series", "Card series", "Device Name", "Card SKU"),
                "gfx": _first(card, "GFX Version"),
                "memory_total_bytes": _int(_first(card, "VRAM Total Memory (B)")),
                "memory_used_bytes": _int(_first(card, "VRAM Total Used Memory (B)")),
            }
        )
    system = data.get("system") if isinstance(data.get("system"), dict) else {}
    return {"cards": cards, "driver_version": _first(system or {}, "Driver version")}
