"""A company's round-the-clock service gets a server-grade host; a build no single PSU feeds
takes two (blind w47-03: two 600 W cards for a hospital's 24/7 service in a USD 65 mid-tower,
and four of them with the power supply left unpriced)."""

from __future__ import annotations

import pytest

from gpuwise.catalog import Catalog
from gpuwise.catalog.schema_cost import HostPlatform
from gpuwise.catalog.schema_extra import HostPart, PsuSizing
from gpuwise.cost.own import psu_watts
from gpuwise.cost.resolve import Context, OwnOptions, resolve_own


def _platforms(cat: Catalog) -> dict[str, HostPlatform]:
    return {p.id: p for p in cat.extra("host_platform")}


def _psus(cat: Catalog) -> list[HostPart]:
    return [p for p in cat.extra("host_part") if p.kind == "psu"]


def test_a_companys_24_7_service_is_never_priced_in_a_home_desktop(
    cat: Catalog, usd: Context
) -> None:
    plain = resolve_own(cat, usd, "rtx-pro-6000-blackwell", 2)
    graded = resolve_own(cat, usd, "rtx-pro-6000-blackwell", 2, OwnOptions(server_grade=True))
    platforms = _platforms(cat)
    assert platforms[plain.platform].pue == "home"  # the cards alone fit the desktop
    assert platforms[graded.platform].pue != "home"
    assert (graded.spec.host_price or 0) > (plain.spec.host_price or 0) > 0
    said = [n for n in graded.notes if n.key == "cost.note_server_grade"]
    assert [dict(n.params) for n in said] == [
        {"platform": graded.platform, "plain": plain.platform}
    ]
    assert not any(n.key == "cost.note_server_grade" for n in plain.notes)


def test_the_server_grade_note_is_silent_where_the_cards_already_need_a_server(
    cat: Catalog, usd: Context
) -> None:
    """Eight passive data-centre cards go in a server whatever the duty: nothing to say."""
    r = resolve_own(cat, usd, "l40s", 8, OwnOptions(server_grade=True))
    assert _platforms(cat)[r.platform].pue != "home"
    assert not any(n.key == "cost.note_server_grade" for n in r.notes)


def test_a_build_no_single_psu_feeds_takes_two_of_the_cheapest_that_carry_half(
    cat: Catalog, usd: Context
) -> None:
    r = resolve_own(cat, usd, "rtx-pro-6000-blackwell", 4)
    sizing: PsuSizing = cat.extra("psu_sizing")[0]
    gpu = cat.gpu("rtx-pro-6000-blackwell")
    assert gpu.tdp_w is not None
    need = psu_watts(sizing.base_system_w, gpu.tdp_w, 4, sizing.headroom_factor)
    largest = max(p.watts or 0.0 for p in _psus(cat))
    assert need > largest  # the case the rule is for
    assert "psu" not in r.spec.unpriced_host
    half = [p for p in _psus(cat) if (p.watts or 0.0) >= round(need / 2)]
    cheapest = min(half, key=lambda p: usd.money(p.price, p.currency))
    priced = dict(r.host_parts)
    assert priced[cheapest.id] == pytest.approx(2 * usd.money(cheapest.price, cheapest.currency))
    assert any(n.key == "cost.note_dual_psu" and dict(n.params)["units"] == 2 for n in r.notes)
