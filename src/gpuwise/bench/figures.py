"""Turn a bench result into figures with verdicts (pure): TFLOPS and GB/s beside the catalog.

Units shown: TFLOPS (10^12 operations/s; INT8 in TOPS) and GB/s (10^9 bytes/s), the catalog's.
Host↔device is judged against one direction of a x16 link of the card's PCIe generation
(speed.toml `host_memory.pcie_gbps_per_gen_x16`); all-reduce busbw against the per-direction
link rate the speed model uses (NVLink: half the catalog's bidirectional figure; else PCIe).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gpuwise.bench.verdict import COMPUTE_CAUSES, causes, healthy, judge
from gpuwise.catalog.schema import Gpu
from gpuwise.catalog.schema_bench import BenchReference
from gpuwise.estimate.speed_constants import SpeedConstants

TERA, GIGA = 1e12, 1e9


def _pcie_peak(gpu: Gpu, sc: SpeedConstants) -> float | None:
    return sc.host.pcie_gbps_per_gen_x16.get(str(gpu.pcie_gen)) if gpu.pcie_gen else None


def _link_peak(gpu: Gpu, sc: SpeedConstants) -> float | None:
    if gpu.interconnect != "none" and gpu.interconnect_gbps:
        return gpu.interconnect_gbps / 2
    return _pcie_peak(gpu, sc)


def evaluate(
    result: Mapping[str, Any],
    gpu: Gpu | None,
    sc: SpeedConstants,
    refs: Sequence[BenchReference],
    seen: Mapping[str, Any],
    link: Mapping[str, Any] | None,
) -> list[dict[str, Any]]:
    """Every measured figure with its datasheet peak, healthy share and verdict."""
    out: list[dict[str, Any]] = []

    def add(
        figure: str,
        metric: str,
        dtype: str,
        value: float,
        peak: float | None,
        unit: str,
        kinds: Sequence[str] = COMPUTE_CAUSES,
    ) -> None:
        ref = healthy(metric, dtype, gpu, sc, refs) if gpu else None
        out.append(judge(figure, value, peak, ref, causes(seen, gpu, link, kinds), unit))

    for mm in result.get("matmul", []):
        if mm.get("status") == "ok":
            peak = getattr(gpu.tflops, mm["dtype"], None) if gpu else None
            unit = "TOPS" if mm["dtype"] == "int8" else "TFLOPS"
            add(
                f"matmul_{mm['dtype']}",
                "matmul",
                mm["dtype"],
                mm["best"]["median_flops"] / TERA,
                peak,
                unit,
            )
    bw = gpu.memory_bandwidth_gbps if gpu else None
    copy = result.get("memory_copy", {})
    if copy.get("status") == "ok":
        add("memory_copy", "memory_copy", "", copy["median_bps"] / GIGA, bw, "GB/s")
    dec = result.get("decode_stream", {})
    if dec.get("status") == "ok":
        add("decode_stream", "decode_stream", "", dec["median_bps"] / GIGA, bw, "GB/s")
    host = result.get("host_device", {})
    if host.get("status") == "ok":
        peak = _pcie_peak(gpu, sc) if gpu else None
        add(
            "h2d_pinned",
            "host_to_device",
            "",
            host["h2d_pinned_bps"] / GIGA,
            peak,
            "GB/s",
            ("pcie_link", "busy"),
        )
    ar = result.get("allreduce", {})
    if ar.get("status") == "ok" and ar.get("ranks", 1) > 1 and ar.get("sizes"):
        top = max(ar["sizes"], key=lambda r: r["bytes"])
        peak = _link_peak(gpu, sc) if gpu else None
        add(
            "allreduce_busbw",
            "allreduce",
            "",
            top["busbw_bps"] / GIGA,
            peak,
            "GB/s",
            ("pcie_link", "busy"),
        )
    return out
