"""Azure Retail Prices API pages → feed rows (pure).

API: https://learn.microsoft.com/rest/api/cost-management/retail-prices/azure-retail-prices
(unauthenticated; a page is `{"Items": [...], "NextPageLink": url-or-null, ...}`; filter values
are case-sensitive from api-version 2023-01-01-preview). Spot meters carry "Spot" in
`meterName`/`skuName`; "Low Priority" meters and Windows products are other products and are
left out (the same filters gpuhunt and SkyPilot's fetcher apply, wave2.md §8). The API states
no GPU model or count, so only SKUs whose specs the catalog knows become offers.
"""

from __future__ import annotations

import datetime as dt
import json
import urllib.parse
from collections.abc import Iterable
from typing import Any

from gpuwise.catalog.schema_cloud import Offer
from gpuwise.prices.normalize import FeedRow, Findings

API_VERSION = "2023-01-01-preview"
GPU_SKU_PREFIX = "Standard_N"
"""Azure's GPU families are the N series (NC, ND, NG, NV)."""
REQUIRED = ("armSkuName", "armRegionName", "retailPrice", "unitOfMeasure", "meterName")


class SchemaChanged(ValueError):
    """The answer is not shaped as documented (a field gone, a type changed)."""


def page_url(base: str, region: str) -> str:
    """First page for one region's GPU VM consumption prices."""
    flt = (
        "serviceName eq 'Virtual Machines' and priceType eq 'Consumption' "
        f"and armRegionName eq '{region}' and contains(armSkuName, '{GPU_SKU_PREFIX}')"
    )
    query = urllib.parse.urlencode({"api-version": API_VERSION, "$filter": flt})
    return f"{base.rstrip('/')}/api/retail/prices?{query}"


def parse_page(body: bytes) -> tuple[list[dict[str, Any]], str | None]:
    """Items and the next page link of one answer; anything else shaped is SchemaChanged."""
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SchemaChanged(f"not JSON: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("Items"), list):
        raise SchemaChanged("no Items list")
    if "NextPageLink" not in data:
        raise SchemaChanged("no NextPageLink")
    link = data["NextPageLink"]
    return data["Items"], link if isinstance(link, str) and link else None


def _date(value: object) -> dt.date | None:
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        return dt.date.fromisoformat(value[:10])
    except ValueError:
        return None


def rows_from_items(
    items: Iterable[dict[str, Any]], known: dict[str, Offer], findings: Findings
) -> list[FeedRow]:
    """Linux pay-as-you-go and Spot hourly USD rows of SKUs the catalog knows."""
    rows = []
    for item in items:
        missing = [k for k in REQUIRED if k not in item]
        if missing:
            raise SchemaChanged(f"item without {', '.join(missing)}")
        meter, product = str(item["meterName"]), str(item.get("productName", ""))
        if "Windows" in product or "Low Priority" in meter or item["unitOfMeasure"] != "1 Hour":
            continue
        if item.get("currencyCode", "USD") != "USD" or item.get("type", "Consumption") != (
            "Consumption"
        ):
            continue
        sku = str(item["armSkuName"])
        offer = known.get(sku)
        if offer is None:
            findings.add("unknown_instance", sku)
            continue
        try:
            price = float(item["retailPrice"])
        except (TypeError, ValueError) as exc:
            raise SchemaChanged(f"retailPrice {item['retailPrice']!r}") from exc
        rows.append(
            FeedRow(
                provider="azure",
                instance=sku,
                gpu_name=offer.gpu,
                gpu_count=offer.gpu_count,
                region=str(item["armRegionName"]),
                billing="spot" if "Spot" in meter else "on-demand",
                price_per_hour=price,
                vcpu=offer.vcpu,
                ram_gb=offer.ram_gb,
                published=_date(item.get("effectiveStartDate")),
            )
        )
    return rows
