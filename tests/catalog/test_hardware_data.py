"""The hardware facts issue 10 relies on: gap-free GPU rates, multi-device cards, cards that cannot
be bought (cloud-only, export rules), passive cooling, whole-system Macs, and priced host builds.

Each test reads the real catalog files; a failure names the entry to fix in data/.
"""

from __future__ import annotations

import pytest

from gpuwise.catalog import Catalog, load_catalog
from gpuwise.catalog.schema import Gpu

CHINA_MARKET = ("h20", "l20", "rtx-4090d")
"""Cards made for mainland China under the US rules: buyable there, history in export_note."""

RESTRICTED_IN_CN = (
    "a100-40gb",
    "a100-80gb",
    "a100-80gb-pcie",
    "a800",
    "h100-sxm",
    "h100-pcie",
    "h800",
    "h200",
    "b200",
    "l40",
    "l40s",
    "rtx-4090",
    "rtx-5090",
    "rtx-6000-ada",
    "mi300x",
)


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog(use_overrides=False, use_cache=False)


def _gpu(cat: Catalog, gpu_id: str) -> Gpu:
    return cat.gpu_by_id(gpu_id)


def test_every_gpu_has_bandwidth_and_a_rate(cat: Catalog) -> None:
    """Speed estimates need memory bandwidth and a 16-bit (or at least FP32) peak."""
    for g in cat.gpus:
        assert g.memory_bandwidth_gbps, g.id
        tf = g.tflops
        assert tf.bf16 or tf.fp16 or tf.fp32, g.id


def test_datacenter_and_workstation_cards_have_a_16_bit_rate(cat: Catalog) -> None:
    for g in cat.gpus:
        if g.gpu_class in ("datacenter", "workstation"):
            assert g.tflops.bf16 or g.tflops.fp16, g.id


def test_l40_is_stored_at_dense_rates(cat: Catalog) -> None:
    """The L40 datasheet reads BF16 181.05 | 362.1* (sparse); the starred figure is not dense."""
    l40 = _gpu(cat, "l40")
    assert l40.tflops.bf16 == pytest.approx(181.05)
    assert l40.tflops.fp16 == pytest.approx(181.05)
    assert l40.tflops.fp8 == pytest.approx(362.0)
    assert l40.tflops.tf32 == pytest.approx(90.5)
    # the L40S really does run BF16 at twice the L40's rate; the L40 must stay below it
    l40s_bf16 = _gpu(cat, "l40s").tflops.bf16
    assert l40s_bf16 is not None and (l40.tflops.bf16 or 0) < l40s_bf16 * 0.6


def test_multi_device_cards_describe_one_device(cat: Catalog) -> None:
    duo = _gpu(cat, "atlas-300i-duo")
    assert duo.devices_per_card == 2
    assert duo.memory_gb == 48 and duo.memory_bandwidth_gbps == pytest.approx(204.8)
    assert duo.memory_gb * duo.devices_per_card == 96  # the card's 96 GB
    assert duo.tflops.int8 == pytest.approx(140.0)  # 280 TOPS per card
    mi250 = _gpu(cat, "mi250")
    assert mi250.devices_per_card == 2
    assert mi250.memory_gb * mi250.devices_per_card == 128
    assert mi250.memory_bandwidth_gbps == pytest.approx(1600)
    # one package shown as one device (Intel's default) stays one entry per card
    assert _gpu(cat, "max-1550").devices_per_card == 1
    assert all(g.devices_per_card == 1 for g in cat.gpus if g.vendor == "nvidia")


def test_cloud_only_chips_are_rent_only(cat: Catalog) -> None:
    for g in cat.gpus:
        if g.vendor in ("google", "aws") or g.form_factor == "tpu":
            assert g.rent_only, g.id
            assert "rent_only" in g.field_sources, g.id  # says where "cannot be bought" comes from
    assert _gpu(cat, "a10g").rent_only  # AWS's own A10 variant
    assert not _gpu(cat, "a10").rent_only
    assert not any(g.rent_only and g.prices for g in cat.gpus)


MODULES = ("sxm", "oam", "module")
"""Form factors sold only on baseboards or in racks: priced through purchasable systems."""

NEW_MODULES = ("b300", "gb300", "h20-141gb", "mi355x", "ascend-910c", "biren-br100")
"""Modules added with issue 29: no per-card price (a system catalog prices them)."""


def test_catalog_holds_at_least_100_cards(cat: Catalog) -> None:
    """Issue 29: the cards a buyer asks about at the end of 2026 (RTX 50, RTX PRO Blackwell,
    used Pascal/Turing, B300, MI355X, Strix Halo, DGX Spark, M3 Ultra, domestic parts)."""
    assert len(cat.gpus) >= 100
    for gpu_id in (
        "rtx-5050",
        "rtx-5060",
        "rtx-5060-ti-8gb",
        "rtx-5060-ti-16gb",
        "rtx-5070",
        "rtx-pro-4000-blackwell",
        "rtx-pro-6000-blackwell-max-q",
        "tesla-p40",
        "rtx-2080-ti-22gb",
        "arc-pro-b60",
        "radeon-ai-pro-r9700",
        "dgx-spark",
        "ryzen-ai-max-395",
        "apple-m3-ultra",
        "ascend-910c",
        "mtt-s4000",
        *NEW_MODULES,
    ):
        assert cat.gpu_by_id(gpu_id), gpu_id


UNPRICED_BUYABLE = {
    # Issues 26 and 29: every buyable card has a purchase price, except these, for which no
    # dated public price was found in the sources read (each entry's unpriced_reason says why).
    # The set may only shrink: a card priced later leaves it.
    # Sold by quote or inside servers only:
    "mtt-s4000",
    "mlu370-x8",
    "biren-br104",
    "l20",
    "rtx-pro-6000-blackwell-server",
    "mi210",
    # Data-centre PCIe cards whose prices found were not for this variant or undated:
    "a30",
    "a100-80gb-pcie",
    "h100-nvl",
    # Workstation cards with no dated public price found (searched 2026-12-05):
    "rtx-pro-4000-blackwell",
    "rtx-pro-4500-blackwell",
    "rtx-pro-5000-blackwell",
    "rtx-a4000",
    "rtx-a5000",
    # Consumer card with no dated price found:
    # Apple chips whose entry is the largest memory configuration, unpriced (older ones are
    # no longer sold new); the priced Mac Studio configurations are separate entries
    # (apple-m3-ultra-256gb, apple-m4-max-36gb):
    "apple-m1",
    "apple-m2-max",
    "apple-m2-ultra",
    "apple-m4-pro",
    "apple-m4-max",
}


def test_every_buyable_card_has_a_price_or_says_why(cat: Catalog) -> None:
    """A card a user can buy is priced (new or used, dated, sourced), or it is one of the
    explicit exceptions above and its entry says why not (sold by quote only, no dated public
    price found), so the planner's 'unpriced' is explained."""
    why_not = set()
    for g in cat.gpus:
        if g.rent_only or g.form_factor in MODULES:
            continue
        if g.prices:
            assert not g.unpriced_reason, g.id  # stale reason left behind
            continue
        assert g.unpriced_reason, f"{g.id}: buyable, no price and no unpriced_reason"
        assert "unpriced_reason" in g.field_sources, g.id
        why_not.add(g.id)
    assert why_not <= UNPRICED_BUYABLE, sorted(why_not - UNPRICED_BUYABLE)


def test_every_street_price_says_what_it_buys_and_where_it_was_seen(cat: Catalog) -> None:
    """Issue 26: a company buys new only, so a street price states its condition (new, used,
    mixed) and channel (list, retail, distributor, marketplace, report); a second-hand note and
    a 'used' condition agree."""
    for g in cat.gpus:
        for p in g.prices:
            if p.kind != "street":
                continue
            assert p.condition is not None and p.channel is not None, (g.id, p.amount)
            if "second-hand" in p.note:
                assert p.condition == "used", (g.id, p.amount)
            if p.channel == "marketplace":
                assert p.condition != "new", (g.id, p.amount)


def test_workstations_and_macs_an_institution_buys_have_a_new_price(cat: Catalog) -> None:
    """The blind review's hospital and local-235B cases: professional cards and Mac Studio
    configurations carry a new (list or shop) price."""
    for gpu_id in (
        "rtx-pro-6000-blackwell",
        "rtx-pro-6000-blackwell-max-q",
        "rtx-6000-ada",
        "rtx-5000-ada",
        "rtx-a6000",
        "l40s",
        "apple-m3-ultra-256gb",
        "apple-m4-max-36gb",
    ):
        new = [p for p in _gpu(cat, gpu_id).prices if p.bought_as == "new"]
        assert new and all(p.source in cat.sources for p in new), gpu_id


def test_modules_added_for_2026_are_priced_through_systems(cat: Catalog) -> None:
    for gpu_id in NEW_MODULES:
        g = _gpu(cat, gpu_id)
        assert g.form_factor in MODULES and not g.prices, gpu_id


def test_cards_no_longer_sold_new_are_priced_at_their_second_hand_market(cat: Catalog) -> None:
    """A P40 or a 22 GB RTX 2080 Ti is bought second-hand: its newest street price is that
    market (said in the note), not its 2016 launch price; a modified card has no new price."""
    for gpu_id in ("tesla-p40", "tesla-p100-16gb", "rtx-2080-ti-22gb", "rtx-3090"):
        street = [p for p in _gpu(cat, gpu_id).prices if p.kind == "street"]
        assert street and all("second-hand" in p.note for p in street), gpu_id
    for g in cat.gpus:
        if g.modified:
            assert g.prices and all(
                p.kind != "launch" and "second-hand" in p.note for p in g.prices
            ), g.id
    cny = [p for p in _gpu(cat, "rtx-2080-ti-22gb").prices if p.currency == "CNY"]
    assert cny  # the 22 GB card is a Chinese second-hand market item


def test_every_priced_card_has_a_price_the_cost_model_buys_at(cat: Catalog) -> None:
    """cost/resolve buys at the newest street, else launch price; a card priced only `used`
    would be 'priced' for the planner yet unpriceable for the cost model."""
    for g in cat.gpus:
        if g.prices:
            assert {p.kind for p in g.prices} & {"launch", "street"}, g.id


def test_used_prices_stand_beside_new_ones(cat: Catalog) -> None:
    """RTX 50 cards: new on Amazon and the best resale deal of the same month, both dated."""
    for gpu_id in ("rtx-5050", "rtx-5060", "rtx-5060-ti-16gb", "rtx-5070", "rtx-5090"):
        prices = _gpu(cat, gpu_id).prices
        used = [p for p in prices if p.kind == "used"]
        new = [p for p in prices if p.kind == "street" and p.date == used[0].date]
        assert used and new and used[0].amount != new[0].amount, gpu_id


@pytest.mark.parametrize(
    ("gpu_id", "field", "expected"),
    [
        # NVIDIA RTX Blackwell whitepaper (RTX 5070), dense FP32-accumulate rates
        ("rtx-5070", "bf16", 61.7),
        ("rtx-5070", "int8", 246.9),
        # RTX PRO Blackwell whitepaper: Max-Q 438.9 BF16, Server Edition = Workstation 503.8
        ("rtx-pro-6000-blackwell-max-q", "bf16", 438.9),
        ("rtx-pro-6000-blackwell-server", "fp8", 1007.6),
        # AMD product page / datasheets: MI355X 2.5 PF dense BF16, R9700 383 INT8 dense
        ("mi355x", "bf16", 2500.0),
        ("radeon-ai-pro-r9700", "int8", 383.0),
        # Intel Arc Pro B60 datasheet: 197 INT8 TOPS dense
        ("arc-pro-b60", "int8", 197.0),
        # Blackwell Ultra B300: 4.5 PF dense FP8
        ("b300", "fp8", 4500.0),
        # Moore Threads MTT S4000 launch figures
        ("mtt-s4000", "bf16", 100.0),
    ],
)
def test_new_cards_match_their_datasheets(cat: Catalog, gpu_id: str, field: str, expected: float):
    assert getattr(_gpu(cat, gpu_id).tflops, field) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("gpu_id", "memory_gb", "bandwidth_gbps"),
    [
        ("rtx-5060-ti-16gb", 16, 448),  # 128-bit GDDR7 at 28 Gbps
        ("dgx-spark", 128, 273),  # NVIDIA: 128 GB LPDDR5x, 273 GB/s
        ("ryzen-ai-max-395", 128, 256),  # AMD/Framework: 256-bit LPDDR5x, 256 GB/s
        ("mi355x", 288, 8000),
        ("b300", 288, 8000),
        ("apple-m3-ultra", 512, 819),
        ("rtx-2080-ti-22gb", 22, 616),  # modified memory, the 2080 Ti's bus unchanged
    ],
)
def test_new_cards_memory_matches_the_vendor(
    cat: Catalog, gpu_id: str, memory_gb: float, bandwidth_gbps: float
) -> None:
    g = _gpu(cat, gpu_id)
    assert (g.memory_gb, g.memory_bandwidth_gbps) == (memory_gb, bandwidth_gbps)


def test_vendor_list_of_the_listing_path_matches_the_schema() -> None:
    """`gpus --vendor` reads a spelled-out tuple (no pydantic on that path); keep it equal."""
    from typing import get_args

    from gpuwise.catalog.query import VENDORS
    from gpuwise.catalog.schema import Vendor

    assert get_args(Vendor) == VENDORS


def test_export_restricted_cards_carry_the_rule(cat: Catalog) -> None:
    for gpu_id in RESTRICTED_IN_CN:
        g = _gpu(cat, gpu_id)
        assert g.export_restricted_in == ["cn"], gpu_id
    for g in cat.gpus:
        if g.export_restricted_in:
            assert "20" in g.export_note, g.id  # names the rule's year
            assert "export_note" in g.field_sources, g.id


def test_china_market_cards_are_buyable_in_china(cat: Catalog) -> None:
    for gpu_id in CHINA_MARKET:
        g = _gpu(cat, gpu_id)
        assert g.export_restricted_in == [], gpu_id
        assert g.export_note, gpu_id
    assert "2025" in _gpu(cat, "h20").export_note  # the April 2025 licence requirement


def test_server_cards_are_passively_cooled(cat: Catalog) -> None:
    """Data-center PCIe cards and SXM/OAM modules have no fan: they need a server's airflow."""
    for g in cat.gpus:
        if g.rent_only or g.whole_system:
            continue
        if g.gpu_class == "datacenter":
            assert g.cooling == "passive", g.id
            assert "cooling" in g.field_sources, g.id
        else:
            assert g.cooling == "active", g.id


def test_desktops_take_only_active_cards_and_servers_take_passive(cat: Catalog) -> None:
    platforms = {p.id: p for p in cat.extra("host_platform")}
    assert {"desktop", "workstation", "server-pcie", "server-hgx"} <= set(platforms)
    assert platforms["desktop"].coolings == ["active"]
    assert platforms["workstation"].coolings == ["active"]
    assert "passive" in platforms["server-pcie"].coolings
    assert "passive" in platforms["server-hgx"].coolings
    assert platforms["desktop"].max_gpus == 2 and platforms["workstation"].max_gpus == 4
    assert set(platforms["server-hgx"].form_factors) >= {"sxm", "oam"}
    # every buyable card has a platform that takes its form factor and cooling
    for g in cat.gpus:
        if g.rent_only or g.whole_system:
            continue
        takes = [
            g.form_factor in p.form_factors and g.cooling in p.coolings for p in platforms.values()
        ]
        assert any(takes), g.id


def test_platform_parts_are_priced_for_what_they_need(cat: Catalog) -> None:
    """Desktop and workstation builds are fully priced; a server kind without a price is named
    as unpriced in the platform's notes (shown as unpriced, never as free)."""
    parts = {p.id: p for p in cat.extra("host_part")}
    for plat in cat.extra("host_platform"):
        kinds = {parts[pid].kind for pid in plat.parts}  # KeyError: a part id that does not exist
        assert all(parts[pid].price > 0 and parts[pid].date for pid in plat.parts)
        missing = [k for k in plat.needs if k not in kinds and k != "psu"]
        if plat.id in ("desktop", "desktop-entry", "workstation", "server-entry"):
            assert not missing, (plat.id, missing)
        elif missing:
            assert "unpriced" in plat.notes, (plat.id, missing)
        if plat.load_w_per_gpu:
            assert "load_w_per_gpu" in plat.field_sources, plat.id


def test_psus_cover_desktop_builds(cat: Catalog) -> None:
    psus = sorted((p.watts or 0, p) for p in cat.extra("host_part") if p.kind == "psu")
    watts = [w for w, _ in psus]
    for want in (850, 1000, 1200, 1600):
        assert want in watts, want
    for _, p in psus:
        if p.price_bound != "point":
            assert p.price_bound in p.notes or "bound" in p.notes, p.id


def test_apple_entries_are_whole_systems(cat: Catalog) -> None:
    apple = [g for g in cat.gpus if g.vendor == "apple"]
    assert apple
    for g in apple:
        assert g.whole_system, g.id
        frac = g.usable_memory_fraction
        assert frac is not None and "usable_memory_fraction" in g.field_sources, g.id
        # Metal's default working set: 2/3 of memory up to 32 GB, 3/4 above
        assert frac == pytest.approx(2 / 3 if g.memory_gb <= 32 else 0.75, abs=1e-3), g.id
    priced = [g for g in apple if g.prices]
    assert priced  # at least the Mac mini M4 32 GB


def test_whole_systems_are_unified_memory_computers_priced_as_machines(cat: Catalog) -> None:
    """Besides the Macs, the DGX Spark and the Ryzen AI Max+ 395 mini PCs are whole computers:
    their prices are the machine's, and no discrete card is marked as one."""
    systems = [g for g in cat.gpus if g.whole_system]
    others = {g.id for g in systems if g.vendor != "apple"}
    assert others == {"dgx-spark", "ryzen-ai-max-395"}
    for g in systems:
        assert g.unified_memory and g.form_factor == "soc" and g.max_per_host == 1, g.id
        for p in g.prices:
            assert "whole computer" in p.note.lower(), (g.id, p.note)
