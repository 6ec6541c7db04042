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
        if plat.id in ("desktop", "desktop-entry", "workstation"):
            assert not missing, (plat.id, missing)
        else:
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
    assert all(p.note and "whole computer" in p.note.lower() for g in priced for p in g.prices)
    assert not any(g.whole_system for g in cat.gpus if g.vendor != "apple")
