"""The host for one consumer card: an entry build, sized PSUs, and when the bigger desktop wins.

Issue 10, item 8: a user without a PC who buys one RTX 4060 pays for a 6-core CPU, a B650M
board, 32 GB DDR5, a 1 TB NVMe, a case, a cooler and a PSU sized from the card's TDP, not for
the two-card desktop (12-core CPU, x8/x8 board, 64 GB).
"""

from __future__ import annotations

import pytest

from gpuwise.catalog import Catalog
from gpuwise.catalog.schema_cost import HostPlatform
from gpuwise.catalog.schema_extra import HostPart, PsuSizing
from gpuwise.cost.own import psu_watts
from gpuwise.cost.resolve import Context, OwnOptions, ResolvedOwn, resolve_own


def _platform(cat: Catalog, pid: str) -> HostPlatform:
    platforms: list[HostPlatform] = list(cat.extra("host_platform"))
    return next(p for p in platforms if p.id == pid)


def _parts(cat: Catalog) -> dict[str, HostPart]:
    return {p.id: p for p in cat.extra("host_part")}


def _required_psu_w(cat: Catalog, tdp_w: float, count: int) -> float:
    """psu_sizing in owning.toml: (rest of the system + cards x TDP) x headroom."""
    s: PsuSizing = cat.extra("psu_sizing")[0]
    return psu_watts(s.base_system_w, tdp_w, count, s.headroom_factor)


def _psu(cat: Catalog, r: ResolvedOwn) -> HostPart:
    ids = [pid for pid, _ in r.host_parts if _parts(cat)[pid].kind == "psu"]
    assert len(ids) == 1, r.host_parts
    return _parts(cat)[ids[0]]


def test_one_rtx_4060_is_priced_as_the_entry_build(cat: Catalog, usd: Context) -> None:
    r = resolve_own(cat, usd, "rtx-4060", 1)
    assert r.platform == "desktop-entry"
    entry = _platform(cat, "desktop-entry")
    parts = _parts(cat)
    psu = _psu(cat, r)
    # every platform part once, then the PSU picked by watts
    assert [pid for pid, _ in r.host_parts] == [*entry.parts, psu.id]
    expected = sum(usd.money(parts[p].price, parts[p].currency) for p in entry.parts)
    expected += usd.money(psu.price, psu.currency)
    assert r.spec.host_price == pytest.approx(expected)
    assert not r.spec.unpriced_host
    # the 115 W card needs (400 + 115) x 1.1765 = 606 W: the 750 W unit is the cheapest that fits
    need_w = _required_psu_w(cat, 115, 1)
    assert r.psu_w == pytest.approx(need_w)
    assert psu.id == "psu-750w-cx750m" and psu.watts is not None and psu.watts >= need_w
    cheaper_fits = [
        p
        for p in parts.values()
        if p.kind == "psu"
        and (p.watts or 0) >= need_w
        and usd.money(p.price, p.currency) < usd.money(psu.price, psu.currency)
    ]
    assert not cheaper_fits
    # an expert's single-card build: 6 cores, one GPU slot, 32 GB, 1 TB
    assert (
        parts["cpu-ryzen5-7600x"].kind == "cpu_board"
        and "6 cores" in parts["cpu-ryzen5-7600x"].name
    )
    assert "32 GB" in parts["ram-ddr5-32gb-kit"].name
    assert "1 TB" in parts["ssd-nvme-1tb"].name
    # and it costs well under the two-card desktop the same card used to get
    desktop = resolve_own(cat, usd, "rtx-4060", 1, OwnOptions(platform="desktop"))
    assert r.spec.host_price is not None and desktop.spec.host_price is not None
    assert r.spec.host_price < 0.6 * desktop.spec.host_price


def test_every_part_price_is_dated_2026(cat: Catalog) -> None:
    """Memory and SSD prices rose 2-4x from mid-2025: the entry build uses 2026 prices."""
    parts = _parts(cat)
    entry = _platform(cat, "desktop-entry")
    for pid in entry.parts:
        assert parts[pid].date.year == 2026 or parts[pid].price_bound == "upper", pid
        assert parts[pid].source in cat.sources, pid
    assert parts["psu-750w-cx750m"].date.year == 2026
    assert "max_gpu_memory_gb" in entry.field_sources
    assert {"idle_w", "load_w", "max_gpus"} <= set(entry.field_sources)


def test_two_cards_use_the_desktop(cat: Catalog, usd: Context, cny: Context) -> None:
    for ctx in (usd, cny):
        two = resolve_own(cat, ctx, "rtx-4060", 2)
        assert two.platform == "desktop"
        assert "board-am5-x670e-x8x8" in [pid for pid, _ in two.host_parts]
        assert two.psu_w == pytest.approx(_required_psu_w(cat, 115, 2))


def test_a_24_gb_card_gets_the_desktop_ram(cat: Catalog, usd: Context) -> None:
    """32 GB of RAM is below twice a 24 GB card's VRAM: the 64 GB desktop is chosen."""
    for gpu in ("rtx-4090", "rtx-5090", "rtx-3090"):
        r = resolve_own(cat, usd, gpu, 1)
        assert r.platform == "desktop", gpu
        assert "ram-ddr5-64gb-kit" in [pid for pid, _ in r.host_parts], gpu


@pytest.mark.parametrize("platform", ["desktop-entry", None])
def test_a_5090_gets_a_psu_big_enough_for_its_tdp(
    cat: Catalog, usd: Context, platform: str | None
) -> None:
    """Forced into the entry build (--platform desktop-entry) or not, a 575 W card never gets
    the entry build's 750 W unit: the PSU is picked by watts."""
    gpu = cat.gpu("rtx-5090")
    assert gpu.tdp_w == 575
    r = resolve_own(cat, usd, "rtx-5090", 1, OwnOptions(platform=platform))
    need = _required_psu_w(cat, 575, 1)
    assert r.psu_w == pytest.approx(need)
    psu = _psu(cat, r)
    assert psu.id != "psu-750w-cx750m"
    assert psu.watts is not None and psu.watts >= need > 1100


def test_every_buyable_single_card_gets_a_host_that_fits(cat: Catalog, usd: Context) -> None:
    """Over the catalog: a card in the entry build has at most 16 GB and a PSU that carries
    it; a card bigger than that is never put in it."""
    entry = _platform(cat, "desktop-entry")
    assert entry.max_gpu_memory_gb == 16
    checked = 0
    for g in cat.gpus:
        if g.rent_only or g.whole_system or g.form_factor != "pcie" or g.cooling != "active":
            continue
        r = resolve_own(cat, usd, g.id, 1, OwnOptions(card_price=1000))
        vram = g.memory_gb * g.devices_per_card
        assert (r.platform == "desktop-entry") == (vram <= 16), (g.id, r.platform)
        if r.psu_w is not None:
            psu = _psu(cat, r)
            # PSUs are rated in whole watts (resolve._psu rounds the requirement)
            assert psu.watts is not None and psu.watts >= round(r.psu_w), (g.id, psu.id)
        checked += 1
    assert checked >= 10
