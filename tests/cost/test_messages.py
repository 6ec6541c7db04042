"""Keys the cost output builds at run time (bill items, billing modes, platforms, notes) exist
in both languages — the generic i18n test only sees literal keys."""

from __future__ import annotations

from dataclasses import replace

from gpuwise.catalog import Catalog
from gpuwise.catalog.schema_cloud import BILLINGS
from gpuwise.cost.model import busy_hours_per_month
from gpuwise.cost.own import own_cost
from gpuwise.cost.rent import HiddenRates, RentUsage, rent_cost
from gpuwise.cost.resolve import Context, resolve_own, resolve_rent
from gpuwise.i18n import messages

NOTE_KEYS = (
    "cost.note_launch_price",
    "cost.note_platform",
    "cost.note_no_psu",
    "cost.note_idle_from_tdp",
    "cost.note_no_tdp",
    "cost.note_no_resale",
    "cost.note_resale_from",
    "cost.note_spot_default",
)


def _both(key: str) -> bool:
    texts = messages().get(key, {})
    return bool(texts.get("en")) and bool(texts.get("zh"))


def test_dynamic_keys_exist(cat: Catalog, usd: Context) -> None:
    keys = [f"billing.{b}" for b in BILLINGS]
    keys += [f"per.{p}" for p in ("hour", "month", "year")]
    keys += [f"platform.{p.id}" for p in cat.extra("host_platform")]
    keys += [f"cost.be_always_{w}" for w in ("own", "rent", "equal")]
    keys += [f"ref.{r}" for r in ("card", "part", "tariff", "offer", "hidden", "fx")]
    keys += list(NOTE_KEYS)
    everything = RentUsage(
        data_gb=1, storage="both", egress_gb_per_month=1, snapshot_gb=1, nat=True
    )
    spot = resolve_rent(cat, usd, "aws:g4dn.xlarge:spot").spec
    items = set(rent_cost(spot, 10, 1, everything).items)
    bare = rent_cost(replace(spot, hidden=HiddenRates()), 10, 1, everything)
    items |= set(bare.unpriced)
    own = resolve_own(cat, usd, "h100-sxm", 8)
    cost = own_cost(own.spec, busy_hours_per_month(8), 12)
    items |= set(cost.items) | set(cost.unpriced)
    items |= {"cpu_board", "ram", "ssd", "psu", "chassis", "cooling", "server_barebone"}
    keys += [f"cost.item.{i}" for i in items]
    missing = [k for k in keys if not _both(k)]
    assert not missing, missing
