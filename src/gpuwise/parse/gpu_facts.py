"""One NVIDIA GPU as the doctor's rules read it, whichever source listed it.

NVML (live), `nvidia-smi -q -x` (live or pasted), and the pasted nvidia-smi table or `-q` text
all list GPUs under the same keys in their probe facts (the `--json` shape stays those keys).
The rules read them through :class:`NvidiaGpu` so that a misspelt key is a type error rather
than a silent None, and so that "the source did not say" is one typed None for every field.
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


def _int(value: Any) -> int | None:
    """An integer fact, or None when absent or unreadable (a paste may carry text)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _float(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


@dataclass(frozen=True)
class GpuProcess:
    """A process holding memory on a GPU (`type` C compute, G graphics, C+G both)."""

    pid: int | None
    name: str = ""
    type: str = ""
    used_memory_bytes: int | None = None

    @classmethod
    def from_facts(cls, raw: Mapping[str, Any]) -> GpuProcess:
        """From a probe's process entry."""
        return cls(
            pid=_int(raw.get("pid")),
            name=str(raw.get("name") or ""),
            type=str(raw.get("type") or ""),
            used_memory_bytes=_int(raw.get("used_memory_bytes")),
        )


@dataclass(frozen=True)
class NvidiaGpu:
    """What any source said about one NVIDIA GPU; None where that source does not say.

    `compute_capability_from` is "name" when the capability came from the catalog by the card's
    name (nvidia-smi's table names cards without their capability)."""

    index: int | None
    name: str = ""
    uuid: str = ""
    pci_bus_id: str = ""
    architecture: str = ""
    memory_total_bytes: int | None = None
    memory_used_bytes: int | None = None
    compute_capability: str | None = None
    compute_capability_from: str | None = None
    mig_mode: str | None = None
    ecc_mode: str | None = None
    ecc_corrected_volatile: int | None = None
    ecc_uncorrected_volatile: int | None = None
    ecc_corrected_aggregate: int | None = None
    ecc_uncorrected_aggregate: int | None = None
    retired_pages: int | None = None
    retired_pending: bool = False
    remapped_rows_pending: bool = False
    remapped_rows_failure: bool = False
    throttle_active: tuple[str, ...] = ()
    performance_state: str | None = None
    temperature_c: float | None = None
    power_w: float | None = None
    power_limit_w: float | None = None
    pcie_gen: int | None = None
    pcie_gen_max: int | None = None
    pcie_width: int | None = None
    pcie_width_max: int | None = None
    nvlink_active: int | None = None
    driver_model: str | None = None
    compute_mode: str | None = None
    processes: tuple[GpuProcess, ...] = ()

    @classmethod
    def from_facts(cls, raw: Mapping[str, Any]) -> NvidiaGpu:
        """From one entry of a probe's `gpus` list (NVML, nvidia-smi, or a paste)."""
        counts = {
            key: _int(raw.get(key))
            for key in (
                "ecc_corrected_volatile",
                "ecc_uncorrected_volatile",
                "ecc_corrected_aggregate",
                "ecc_uncorrected_aggregate",
                "retired_pages",
                "pcie_gen",
                "pcie_gen_max",
                "pcie_width",
                "pcie_width_max",
                "nvlink_active",
            )
        }
        return cls(
            index=_int(raw.get("index")),
            name=str(raw.get("name") or ""),
            uuid=str(raw.get("uuid") or ""),
            pci_bus_id=str(raw.get("pci_bus_id") or ""),
            architecture=str(raw.get("architecture") or ""),
            memory_total_bytes=_int(raw.get("memory_total_bytes")),
            memory_used_bytes=_int(raw.get("memory_used_bytes")),
            compute_capability=_text(raw.get("compute_capability")) or None,
            compute_capability_from=_text(raw.get("compute_capability_from")),
            mig_mode=_text(raw.get("mig_mode")),
            ecc_mode=_text(raw.get("ecc_mode")),
            retired_pending=bool(raw.get("retired_pending")),
            remapped_rows_pending=bool(raw.get("remapped_rows_pending")),
            remapped_rows_failure=bool(raw.get("remapped_rows_failure")),
            throttle_active=tuple(str(r) for r in raw.get("throttle_active") or ()),
            performance_state=_text(raw.get("performance_state")),
            temperature_c=_float(raw.get("temperature_c")),
            power_w=_float(raw.get("power_w")),
            power_limit_w=_float(raw.get("power_limit_w")),
            driver_model=_text(raw.get("driver_model")),
            compute_mode=_text(raw.get("compute_mode")),
            processes=tuple(
                GpuProcess.from_facts(p)
                for p in raw.get("processes") or ()
                if isinstance(p, Mapping)
            ),
            **counts,
        )


def gpus_from_facts(raw: Any) -> list[NvidiaGpu]:
    """The typed GPUs of a probe's `gpus` list (entries that are not mappings are skipped)."""
    if not isinstance(raw, list | tuple):
        return []
    return [NvidiaGpu.from_facts(g) for g in raw if isinstance(g, Mapping)]


@dataclass(frozen=True)
class TorchDevice:
    """A GPU as PyTorch reported it (live: torch.cuda.get_device_properties; pasted: a
    traceback naming the card, or the names collect_env lists with their capability from
    the catalog, then `capability_from` is "name"). `gcn_arch` is an AMD GPU's gfx target."""

    index: int | None = None
    name: str = ""
    capability: str | None = None
    capability_from: str | None = None
    total_memory_bytes: int | None = None
    gcn_arch: str | None = None

    @classmethod
    def from_facts(cls, raw: Mapping[str, Any]) -> TorchDevice:
        """From one entry of the PyTorch facts' `devices` list."""
        return cls(
            index=_int(raw.get("index")),
            name=str(raw.get("name") or ""),
            capability=_text(raw.get("capability")) or None,
            capability_from=_text(raw.get("capability_from")),
            total_memory_bytes=_int(raw.get("total_memory_bytes")),
            gcn_arch=_text(raw.get("gcn_arch")) or None,
        )


def torch_devices_from_facts(raw: Any) -> list[TorchDevice]:
    """The typed devices of the PyTorch facts' `devices` list (non-mappings skipped)."""
    if not isinstance(raw, list | tuple):
        return []
    return [TorchDevice.from_facts(d) for d in raw if isinstance(d, Mapping)]
