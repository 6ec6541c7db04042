"""Warnings about a sample (pure): memory nearly full, clocks cut by heat or power, Xid errors.

Each alert is a message key with its parameters, so `watch` shows it in the user's language
and `--json` gives it to scripts. Thresholds are in :mod:`gpuwise.monitor.policy`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpuwise.monitor.model import GpuReading, Sample
from gpuwise.monitor.policy import MEMORY_WARN_FRACTION, THROTTLE_WARN_REASONS

KNOWN_XIDS = frozenset({13, 31, 43, 48, 63, 64, 74, 79, 92, 94, 95, 119, 120, 154})
"""Xid codes with an explanation in i18n/monitor.toml (meanings from dcgm-exporter's
internal/pkg/collector/xid_errors.go @d5e5f51, research notes wave2.md §1)."""


@dataclass(frozen=True)
class Alert:
    """One warning: a message key, the device it is about, and the message's parameters."""

    key: str
    device: str
    params: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"key": self.key, "device": self.device, "params": self.params}


def xid_meaning_key(xid: int) -> str:
    """Message key explaining an Xid (a generic one for codes without a known meaning)."""
    return f"monitor.xid.x{xid}" if xid in KNOWN_XIDS else "monitor.xid.other"


def gpu_alerts(g: GpuReading) -> list[Alert]:
    """Warnings about one GPU reading."""
    out: list[Alert] = []
    frac = g.memory_fraction
    if frac is not None and frac > MEMORY_WARN_FRACTION:
        out.append(Alert("monitor.warn_memory", g.key, {"pct": round(frac * 100, 1)}))
    bad = sorted(set(g.throttle_reasons or ()) & THROTTLE_WARN_REASONS)
    if bad:
        out.append(Alert("monitor.warn_throttle", g.key, {"reasons": ", ".join(bad)}))
    for xid in g.xid_events:
        out.append(
            Alert("monitor.warn_xid", g.key, {"xid": xid, "meaning_key": xid_meaning_key(xid)})
        )
    return out


def sample_alerts(sample: Sample) -> list[Alert]:
    """Warnings about every GPU and every source that failed or hung in this sample."""
    out = [a for g in sample.gpus for a in gpu_alerts(g)]
    for vendor, status in sorted(sample.sources.items()):
        if status == "timeout" or status.startswith("failed:"):
            out.append(Alert("monitor.warn_source", vendor, {"status": status}))
    return out
