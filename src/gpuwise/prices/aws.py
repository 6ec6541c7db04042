"""AWS EC2 bulk price file (CSV) → feed rows, filtered line by line (pure).

Files: `https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/<region>/index.csv`
(keyless; hundreds of MB per region). A few metadata lines ("FormatVersion", "Disclaimer",
"Publication Date", "Version", "OfferCode") come before the header. Rows kept: on-demand, shared
tenancy, Linux, no pre-installed software, capacity "Used", hourly USD, with GPUs (the filter
gpuhunt's and SkyPilot's fetchers apply, data-sources.md §1, wave2.md §8). Raw lines are
tested for the quoted values first and only then parsed as CSV, so the stream is never held in
memory. The file states no GPU model: the instance family is matched to the catalog's.
"""

from __future__ import annotations

import csv
import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field

from gpuwise.prices.normalize import FeedRow, Findings

REQUIRED = (
    "Instance Type",
    "TermType",
    "PricePerUnit",
    "Unit",
    "Currency",
    "Tenancy",
    "Operating System",
    "CapacityStatus",
    "Pre Installed S/W",
    "GPU",
    "vCPU",
    "Memory",
)
_MUST_CONTAIN = ('"OnDemand"', '"Linux"', '"Shared"', '"Used"')


class SchemaChanged(ValueError):
    """The file is not shaped as before (a column gone)."""


def region_url(base: str, region: str) -> str:
    """The bulk CSV of one region."""
    return f"{base.rstrip('/')}/offers/v1.0/aws/AmazonEC2/current/{region}/index.csv"


@dataclass
class Parsed:
    """Rows kept, the file's publication date, and how many lines were read."""

    rows: list[FeedRow] = field(default_factory=list)
    published: dt.date | None = None
    lines: int = 0


def _memory_gb(text: str) -> float | None:
    try:
        return float(text.split()[0].replace(",", ""))  # as the catalog's AWS rows: "16 GiB" → 16
    except (ValueError, IndexError):
        return None


def parse_lines(
    lines: Iterable[str], region: str, families: dict[str, str], findings: Findings
) -> Parsed:
    """Stream one region's file; `families` maps an instance family (`p5`) to a catalog GPU."""
    out = Parsed()
    header: dict[str, int] | None = None
    for line in lines:
        out.lines += 1
        if header is None:
            cells = next(csv.reader([line.lstrip("\ufeff")]), [])
            if cells[:1] == ["Publication Date"] and len(cells) > 1:
                out.published = _date(cells[1])
            if cells[:1] == ["SKU"]:
                header = {name: i for i, name in enumerate(cells)}
                missing = [c for c in REQUIRED if c not in header]
                if missing:
                    raise SchemaChanged(f"columns gone: {', '.join(missing)}")
            continue
        if not all(s in line for s in _MUST_CONTAIN):
            continue
        row = next(csv.reader([line]), [])
        if len(row) < len(header):
            continue
        _keep(row, header, region, families, findings, out)
    if header is None:
        raise SchemaChanged("no header row")
    return out


def _keep(
    row: list[str],
    h: dict[str, int],
    region: str,
    families: dict[str, str],
    findings: Findings,
    out: Parsed,
) -> None:
    def col(name: str) -> str:
        return row[h[name]] if name in h else ""

    wanted = (
        col("TermType") == "OnDemand"
        and col("Tenancy") == "Shared"
        and col("Operating System") == "Linux"
        and col("CapacityStatus") == "Used"
        and col("Unit") == "Hrs"
        and col("Currency") == "USD"
        and col("Pre Installed S/W") in ("", "NA")
        and col("MarketOption") in ("", "OnDemand")
    )
    gpus = col("GPU")
    if not wanted or gpus in ("", "NA", "0"):
        return
    instance = col("Instance Type")
    gpu = families.get(instance.split(".")[0])
    if gpu is None:
        findings.add("unknown_instance", instance)
        return
    try:
        price, count = float(col("PricePerUnit")), float(gpus)
        vcpu = float(col("vCPU")) if col("vCPU") else None
    except ValueError:
        findings.add("unreadable_row", instance)
        return
    out.rows.append(
        FeedRow(
            provider="aws",
            instance=instance,
            gpu_name=gpu,
            gpu_count=count,
            region=col("Region Code") or region,
            billing="on-demand",
            price_per_hour=price,
            vcpu=vcpu,
            ram_gb=_memory_gb(col("Memory")),
            published=out.published,
        )
    )


def _date(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text.strip()[:10])
    except ValueError:
        return None
