"""CSV price tables by header name → feed rows (pure): gpuhunt's catalog and SkyPilot's.

gpuhunt (github.com/dstackai/gpuhunt, `_internal/catalog.py`): `<base>/v2/version` names the
latest version; `<base>/v2/<version>/catalog.zip` holds one `<provider>.csv` per offline provider
with the columns of `CatalogItem` (instance_name, location, price, cpu, memory, gpu_count,
gpu_name, gpu_memory, spot, disk_size, …); prices are USD per hour for the whole instance.

SkyPilot (github.com/skypilot-org/skypilot-catalog, `catalogs/v8/<cloud>/vms.csv`): column order
differs per cloud, so columns are read by name (data-sources.md §2.2). GCP accelerator rows have
an empty InstanceType and price the GPU alone, without its host VM: left out.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable

from gpuwise.prices.normalize import FeedRow, Findings

GPUHUNT_COLUMNS = ("instance_name", "location", "price", "gpu_count", "gpu_name", "spot")
SKYPILOT_COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region")
GPUHUNT_PROVIDERS = {
    "aws": "aws",
    "azure": "azure",
    "gcp": "gcp",
    "lambdalabs": "lambda",
    "runpod": "runpod",
    "datacrunch": "datacrunch",
    "nebius": "nebius",
    "oci": "oci",
    "cloudrift": "cloudrift",
}
"""gpuhunt's offline providers (published keylessly) → gpuwise provider ids."""


class SchemaChanged(ValueError):
    """A table without a column it always had."""


def _float(text: str | None) -> float | None:
    try:
        return float(text) if text not in (None, "") else None
    except ValueError:
        return None


def _reader(lines: Iterable[str], required: tuple[str, ...]) -> csv.DictReader[str]:
    reader = csv.DictReader(line.lstrip("\ufeff") for line in lines)
    missing = [c for c in required if c not in (reader.fieldnames or [])]
    if missing:
        raise SchemaChanged(f"columns gone: {', '.join(missing)}")
    return reader


def gpuhunt_rows(lines: Iterable[str], provider: str, findings: Findings) -> list[FeedRow]:
    """Rows with GPUs of one gpuhunt provider file."""
    rows = []
    for r in _reader(lines, GPUHUNT_COLUMNS):
        count, price = _float(r.get("gpu_count")), _float(r.get("price"))
        if not count or not r.get("gpu_name"):
            continue
        if price is None:
            findings.add("unreadable_row", r.get("instance_name") or "")
            continue
        rows.append(
            FeedRow(
                provider=provider,
                instance=r["instance_name"],
                gpu_name=r["gpu_name"],
                gpu_count=count,
                region=r["location"],
                billing="spot" if str(r.get("spot")).lower() == "true" else "on-demand",
                price_per_hour=price,
                vcpu=_float(r.get("cpu")),
                ram_gb=_float(r.get("memory")),
                gpu_memory_gb=_float(r.get("gpu_memory")),
            )
        )
    return rows


def skypilot_rows(lines: Iterable[str], provider: str, findings: Findings) -> list[FeedRow]:
    """On-demand and spot rows of one SkyPilot vms.csv."""
    rows = []
    for r in _reader(lines, SKYPILOT_COLUMNS):
        if not r.get("AcceleratorName"):
            continue
        if not r.get("InstanceType"):
            findings.add("gpu_only_row", r["AcceleratorName"])
            continue
        count = _float(r.get("AcceleratorCount"))
        if not count:
            findings.add("unreadable_row", r["InstanceType"])
            continue
        common = {
            "provider": provider,
            "instance": r["InstanceType"],
            "gpu_name": r["AcceleratorName"],
            "gpu_count": count,
            "region": r["Region"],
            "vcpu": _float(r.get("vCPUs")),
            "ram_gb": _float(r.get("MemoryGiB")),
        }
        for billing, column in (("on-demand", "Price"), ("spot", "SpotPrice")):
            price = _float(r.get(column))
            if price is not None:
                rows.append(FeedRow(billing=billing, price_per_hour=price, **common))  # type: ignore[arg-type]
    return rows
