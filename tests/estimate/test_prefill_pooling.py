"""A card measured at one tensor rate informs its share at another (speed_constants)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.catalog.schema_speed import PrefillEfficiency
from gpuwise.estimate.speed_constants import FIT_SOURCE, SpeedConstants

SC = SpeedConstants.from_catalog(load_catalog())


def _share(engine: str, arch: str, rate: str) -> PrefillEfficiency:
    hit = SC._prefill_entry(engine, "cuda", arch, rate)
    assert hit is not None, (engine, arch, rate)
    return hit


def test_a_missing_rate_takes_the_architectures_share_at_another_rate() -> None:
    """Without the H100's FP16-accumulate share, its INT8 share × llama.cpp's ratio between the
    two rates over all cards stands in (not the all-card FP16-accumulate average)."""
    arch = "hopper sm_90"
    dropped = tuple(
        p
        for p in SC.prefill
        if not (
            p.engine == "llama.cpp" and p.architecture.lower() == arch and p.rate == "fp16_acc16"
        )
    )
    sc = replace(SC, prefill=dropped)
    int8 = _share("llama.cpp", arch, "int8").fraction
    ratio = (
        _share("llama.cpp", "any", "fp16_acc16").fraction
        / _share("llama.cpp", "any", "int8").fraction
    )
    got = sc.prefill_fraction("llama.cpp", "cuda", "Hopper sm_90", "fp16_acc16")
    assert got.fraction == pytest.approx(int8 * ratio)
    assert got.source == FIT_SOURCE and got.architecture.lower() == arch
    everyone = _share("llama.cpp", "any", "fp16_acc16").fraction
    assert abs(got.fraction - everyone) > 0.05  # the H100's kernels are not the average card's


def test_a_measured_share_and_a_hand_set_one_still_win() -> None:
    direct = SC.prefill_fraction("llama.cpp", "cuda", "Hopper sm_90", "int8")
    assert direct == _share("llama.cpp", "hopper sm_90", "int8")
    mine = PrefillEfficiency(
        engine="llama.cpp",
        backend="cuda",
        architecture="Hopper",
        rate="fp16",
        fraction=0.42,
        source="me",
    )
    sc = replace(SC, prefill=(*SC.prefill, mine))
    assert sc.prefill_fraction("llama.cpp", "cuda", "Hopper sm_90", "fp16").fraction == 0.42
