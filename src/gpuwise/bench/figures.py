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


Measured = tuple[str, str, str, float, float | None, str, Sequence[str]]
"""(figure, metric, dtype, value, datasheet peak, unit, causes to look for when it is low)."""
_LINK_CAUSES = ("pcie_link", "busy")


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
    for figure, metric, dtype, value, peak, unit, kinds in _measured(result, gpu, sc):
        ref = healthy(metric, dtype, gpu, sc, refs) if gpu else None
        out.append(judge(figure, value, peak, ref, causes(seen, gpu, link, kinds), unit))
    return out


def _measured(result: Mapping[str, Any], gpu: Gpu | None, sc: SpeedConstants) -> list[Measured]:
    """The figures a bench result holds, in report order, each with its datasheet peak."""
    out: list[Measured] = []
    for mm in result.get("matmul", []):
        if mm.get("status") == "ok":
            dtype = mm["dtype"]
            peak = getattr(gpu.tflops, dtype, None) if gpu else None
            unit = "TOPS" if dtype == "int8" else "TFLOPS"
            value = mm["best"]["median_flops"] / TERA
            out.append((f"matmul_{dtype}", "matmul", dtype, value, peak, unit, COMPUTE_CAUSES))
    bw = gpu.memory_bandwidth_gbps if gpu else None
    for name in ("memory_copy", "decode_stream"):
        got = result.get(name, {})
        if got.get("status") == "ok":
            out.append((name, name, "", got["median_bps"] / GIGA, bw, "GB/s", COMPUTE_CAUSES))
    host = result.get("host_device", {})
    if host.get("status") == "ok":
        peak = _pcie_peak(gpu, sc) if gpu else None
        value = host["h2d_pinned_bps"] / GIGA
        out.append(("h2d_pinned", "host_to_device", "", value, peak, "GB/s", _LINK_CAUSES))
    ar = result.get("allreduce", {})
    if ar.get("status") == "ok" and ar.get("ranks", 1) > 1 and ar.get("sizes"):
        top = max(ar["sizes"], key=lambda r: r["bytes"])
        peak = _link_peak(gpu, sc) if gpu else None
        value = top["busbw_bps"] / GIGA
        out.append(("allreduce_busbw", "allreduce", "", value, peak, "GB/s", _LINK_CAUSES))
    return out
