"""Verdicts: healthy shares from the catalog, low figures with causes from monitor readings."""

from __future__ import annotations

from typing import Any

import pytest

from gpuwise.bench.figures import evaluate
from gpuwise.bench.identify import identify
from gpuwise.bench.verdict import causes, digest, healthy
from gpuwise.catalog import load_catalog
from gpuwise.estimate.speed_constants import SpeedConstants
from gpuwise.monitor.model import GpuProcess, GpuReading, Sample


def _sample(t: float, **fields: Any) -> Sample:
    return Sample(t=t, gpus=(GpuReading(vendor="nvidia", index=0, **fields),))


def _result(bf16_tflops: float, copy_gbps: float, decode_gbps: float) -> dict[str, Any]:
    best = {"shape": [8192, 8192, 8192], "median_flops": bf16_tflops * 1e12}
    return {
        "matmul": [{"dtype": "bf16", "status": "ok", "best": best, "shapes": [best]}],
        "memory_copy": {"status": "ok", "median_bps": copy_gbps * 1e9},
        "decode_stream": {"status": "ok", "median_bps": decode_gbps * 1e9},
        "host_device": {"status": "ok", "h2d_pinned_bps": 50e9},
        "allreduce": {"status": "ok", "ranks": 1, "sizes": []},
    }


@pytest.mark.parametrize(
    ("device", "expected"),
    [
        ("NVIDIA H200", "h200"),
        ("NVIDIA H100 80GB HBM3", "h100-sxm"),
        ("NVIDIA A100-SXM4-80GB", "a100-80gb"),
        ("NVIDIA A100-SXM4-40GB", "a100-40gb"),
        ("NVIDIA H100 NVL", "h100-nvl"),
        ("NVIDIA GeForce RTX 4090", "rtx-4090"),
        ("AMD Instinct MI300X", "mi300x"),
        ("x86_64", None),
    ],
)
def test_identify_driver_names(device: str, expected: str | None) -> None:
    gpu = identify(load_catalog(), device)
    assert (gpu.id if gpu else None) == expected


def test_digest_of_monitor_samples() -> None:
    samples = [
        _sample(
            0,
            temperature_c=60,
            power_w=500,
            power_limit_w=700,
            sm_clock_mhz=1980,
            throttle_reasons=("gpu_idle",),
            processes=(GpuProcess(pid=42),),
        ),
        _sample(
            1,
            temperature_c=88,
            power_w=690,
            power_limit_w=700,
            sm_clock_mhz=1600,
            throttle_reasons=("sw_thermal_slowdown",),
            processes=(GpuProcess(pid=42), GpuProcess(pid=7)),
        ),
    ]
    seen = digest(samples, "nvidia", 0, own_pid=42)
    assert seen["samples"] == 2
    assert seen["max_temperature_c"] == 88
    assert seen["min_sm_clock_mhz"] == 1600
    assert seen["throttle_reasons"] == ["sw_thermal_slowdown"]  # gpu_idle is not a slowdown
    assert seen["other_pids"] == [7]
    assert digest(samples, "nvidia", 1, 42)["samples"] == 0


def test_causes_from_readings() -> None:
    gpu = load_catalog().gpu("h200")
    assert gpu.tdp_w
    capped = {"power_limit_w": gpu.tdp_w - 200, "throttle_reasons": []}
    assert causes(capped, gpu, None, ("power_cap", "thermal")) == ["power_cap"]
    hot = {"power_limit_w": gpu.tdp_w, "throttle_reasons": ["hw_thermal_slowdown"]}
    assert causes(hot, gpu, None, ("power_cap", "thermal")) == ["thermal"]
    link = {"pcie_gen": 5, "pcie_gen_max": 5, "pcie_width": 8, "pcie_width_max": 16}
    assert causes({}, gpu, link, ("pcie_link",)) == ["pcie_link"]
    assert causes({}, gpu, {**link, "pcie_width": 16}, ("pcie_link",)) == []


def test_healthy_share_comes_from_the_catalog() -> None:
    cat = load_catalog()
    sc = SpeedConstants.from_catalog(cat)
    refs = cat.extra("bench_reference")
    hopper = healthy("matmul", "bf16", cat.gpu("h200"), sc, refs)
    assert hopper is not None
    assert hopper.healthy_fraction == pytest.approx(0.80)  # MAMF H100 SXM 794.5 / 989
    assert "spd-mamf" in hopper.sources
    fp8 = healthy("matmul", "fp8", cat.gpu("h200"), sc, refs)
    assert fp8 is not None and fp8.healthy_fraction == pytest.approx(0.70)  # unlisted: 70 %


def test_evaluate_healthy_and_low_with_cause() -> None:
    cat = load_catalog()
    sc = SpeedConstants.from_catalog(cat)
    gpu = cat.gpu("h200")
    refs = cat.extra("bench_reference")
    good = evaluate(_result(800, 4200, 3800), gpu, sc, refs, {}, None)
    by = {f["figure"]: f for f in good}
    assert {f["verdict"] for f in good} == {"healthy"}
    assert by["matmul_bf16"]["datasheet"] == 989.0
    assert by["matmul_bf16"]["fraction"] == pytest.approx(800 / 989)
    assert by["memory_copy"]["datasheet"] == gpu.memory_bandwidth_gbps
    assert "allreduce_busbw" not in by  # one rank: nothing to judge
    seen = {"throttle_reasons": ["sw_power_cap"], "power_limit_w": 400}
    bad = {f["figure"]: f for f in evaluate(_result(400, 2000, 1500), gpu, sc, refs, seen, None)}
    assert bad["matmul_bf16"]["verdict"] == "low"
    assert bad["matmul_bf16"]["causes"] == ["power_cap"]
    unknown = {f["figure"]: f for f in evaluate(_result(400, 2000, 1500), gpu, sc, refs, {}, None)}
    assert unknown["memory_copy"]["causes"] == ["unknown"]
    nothing = evaluate(_result(1, 1, 1), None, sc, refs, {}, None)
    assert {f["verdict"] for f in nothing} == {"no_reference"}


def _two_gpus() -> list[Sample]:
    gpus = (
        GpuReading(vendor="nvidia", index=0, uuid="GPU-1111aaaa-0000-0000-0000-000000000000"),
        GpuReading(vendor="nvidia", index=1, uuid="GPU-2222bbbb-0000-0000-0000-000000000000"),
    )
    return [Sample(t=1.0, gpus=gpus)]


@pytest.mark.parametrize(
    ("torch_index", "uuid", "env", "expected"),
    [
        (0, None, {}, 0),  # nothing renumbers: the same index
        (0, None, {"CUDA_VISIBLE_DEVICES": "1"}, 1),  # PyTorch's cuda:0 is NVML's GPU 1
        (1, None, {"CUDA_VISIBLE_DEVICES": "1,0"}, 0),
        (0, None, {"CUDA_VISIBLE_DEVICES": "GPU-2222"}, 1),  # a UUID prefix
        (1, None, {"CUDA_VISIBLE_DEVICES": "0"}, None),  # not visible: no readings, not GPU 1's
        (0, None, {"CUDA_VISIBLE_DEVICES": "GPU-"}, None),  # ambiguous prefix
        # the device's own UUID wins over the order (CUDA_DEVICE_ORDER=FASTEST_FIRST)
        (0, "GPU-2222BBBB-0000-0000-0000-000000000000", {}, 1),
    ],
)
def test_monitor_index_follows_visible_devices(
    torch_index: int, uuid: str | None, env: dict[str, str], expected: int | None
) -> None:
    from gpuwise.bench.verdict import monitor_index

    assert monitor_index(_two_gpus(), "nvidia", torch_index, uuid, env) == expected


def test_digest_of_no_device_is_empty() -> None:
    assert digest(_two_gpus(), "nvidia", None, 1)["samples"] == 0
