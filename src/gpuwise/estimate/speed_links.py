"""Bandwidth between GPUs: NVLink/Infinity Fabric, PCIe, or the network across hosts."""

from __future__ import annotations

from gpuwise.catalog.schema import Gpu
from gpuwise.estimate.speed_constants import (
    SpeedConstants,
)


def collective_bps(gpu: Gpu, sc: SpeedConstants, gpus: int) -> float:
    """Achievable all-reduce bandwidth between `gpus` of this card (link rate × bus share)."""
    return link_bandwidth_bps(gpu, sc, gpus) * sc.link(gpu, gpus).bus_bandwidth_fraction


def pcie_bps(gpu: Gpu, sc: SpeedConstants) -> float:
    """One direction of a x16 link of the card's PCIe generation."""
    per_gen = sc.host.pcie_gbps_per_gen_x16
    return per_gen.get(str(gpu.pcie_gen or 4), per_gen["4"]) * 1e9


def link_bandwidth_bps(gpu: Gpu, sc: SpeedConstants, gpus: int = 1) -> float:
    """Per-direction bandwidth between GPUs: NVLink/IF when present (half the bidirectional),
    PCIe otherwise, the network NIC when the job spans hosts."""
    if gpus > gpu.max_per_host:
        return min(sc.host.network_gbps.values()) * 1e9
    if gpu.interconnect != "none" and gpu.interconnect_gbps:
        return gpu.interconnect_gbps / 2 * 1e9
    return pcie_bps(gpu, sc)
