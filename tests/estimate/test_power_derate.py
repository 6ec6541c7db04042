"""Power-limited cards sustain less than their boost-clock tensor peak (estimate/power.py)."""

from __future__ import annotations

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.power import watts_per_tensor_tflop
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.resolve import resolve
from gpuwise.estimate.speed import SpeedInputs, inference_speed, tensor_peak
from gpuwise.estimate.speed_constants import SpeedConstants

CAT = load_catalog()
SC = SpeedConstants.from_catalog(CAT)
MC = MemoryConstants.from_catalog(CAT)


def _derate(gpu_id: str) -> float:
    return SC.power_derate(CAT.gpu_by_id(gpu_id))


def test_full_power_parts_and_cards_without_a_datacenter_sibling_keep_their_peak() -> None:
    for gpu_id in ("h100-sxm", "a100-80gb", "l40s", "b200", "mi325x", "rtx-4090", "rtx-3090"):
        assert _derate(gpu_id) == 1.0, gpu_id
    for gpu_id in ("t4", "rtx-5090", "rtx-pro-6000-blackwell", "apple-m3-max", "rx-7900-xtx"):
        assert _derate(gpu_id) == 1.0, gpu_id  # no full-power data-centre part of its SM version


def test_the_derate_is_the_cube_root_of_the_watts_per_tflop_ratio() -> None:
    """L4: 72 W for 121 TFLOPS; L40S (the sm_89 reference): 350 W for 362."""
    l4, l40s = CAT.gpu_by_id("l4"), CAT.gpu_by_id("l40s")
    ratio = watts_per_tensor_tflop(l4) / watts_per_tensor_tflop(l40s)  # type: ignore[operator]
    assert ratio == pytest.approx((72 / 121) / (350 / 362))
    assert _derate("l4") == pytest.approx(ratio ** (1 / 3), rel=1e-3)
    assert 0.8 < _derate("l4") < 0.9
    assert 0.8 < _derate("h100-pcie") < 0.9  # 350 W vs the H100 SXM's 700 W


def test_mamf_pairs_agree_with_the_exponent_within_eight_percent() -> None:
    """stas00's MAMF table (speed.toml spd-mamf): A100 PCIe/SXM 252.9/271.2, MI300X/MI325X
    668.4/784.9 — what the cube-root law predicts from board power alone."""
    assert _derate("a100-80gb-pcie") == pytest.approx(252.9 / 271.2, rel=0.03)
    assert _derate("mi300x") == pytest.approx(668.4 / 784.9, rel=0.08)


def test_prefill_and_the_reported_factors_use_the_sustained_peak() -> None:
    l4 = CAT.gpu_by_id("l4")
    peak, rate = tensor_peak(l4, "int8", SC)
    assert rate == "int8" and peak == pytest.approx(242.5e12 * _derate("l4"))
    r = resolve(
        MemoryRequest(model=CAT.model("qwen2.5:7b"), quant="q4_k_m", engine="llama.cpp"), MC
    )
    est = inference_speed(r, SC, SpeedInputs(gpu=l4))
    assert est.factors["power_derate"] == pytest.approx(_derate("l4"), abs=1e-3)
    assert "spd-dvfs-power" in est.factors["sources"]


def test_a_matmul_share_measured_on_the_card_is_not_derated_twice() -> None:
    """`gpuwise calibrate` measures the share of the datasheet peak, which includes the card's
    own derate; the speed model holds shares of the sustained peak."""
    import datetime as dt
    from dataclasses import replace

    from gpuwise.catalog.schema_bench import MeasuredRate

    l4 = CAT.gpu_by_id("l4")
    measured = MeasuredRate(
        gpu="l4",
        metric="matmul",
        fraction=0.6,
        measured_value=72.6,
        datasheet_value=121.0,
        unit="TFLOPS",
        measured_on=dt.date(2026, 12, 3),
        source="x",
    )
    sc = replace(SC, measured=(measured,))
    entry = sc.matmul_entry(l4)
    assert entry is not None
    assert entry.fraction * sc.power_derate(l4) == pytest.approx(0.6)
