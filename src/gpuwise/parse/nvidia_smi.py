"""`nvidia-smi -q -x` XML and nvidia-smi's error text, parsed into plain facts (pure: no I/O).

Used by the live probe (probe/smi.py runs the tool) and by `doctor --from` (a pasted output).
The XML schema changed over driver generations; the parser reads both old and new names:

- clock limits: ``clocks_throttle_reasons/clocks_throttle_reason_*`` (older drivers) and
  ``clocks_event_reasons/clocks_event_reason_*`` (renamed around the 535/550 drivers);
- ECC: ``ecc_errors/*/single_bit|double_bit/total`` (Pascal-era) and
  ``ecc_errors/*/dram_uncorrectable`` + ``sram_uncorrectable*`` (newer);
- power: ``power_readings/power_draw`` (older) and ``gpu_power_readings/*_power_draw``.

Values are unit-suffixed strings ("8188 MiB", "41 C", "16x") or "N/A"; the parser turns them
into numbers or None.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

MIB = 1024 * 1024
_NUM = re.compile(r"^\s*(-?\d+(?:\.\d+)?)")

# Messages nvidia-smi prints instead of XML, and what they mean (reason codes for the rules).
_ERRORS = (
    ("blocked by the operating system", "os_blocked"),
    ("couldn't communicate with the nvidia driver", "driver_not_loaded"),
    ("driver/library version mismatch", "version_mismatch"),
    ("no devices were found", "no_devices"),
    ("insufficient permissions", "no_permission"),
    ("gpu is lost", "gpu_lost"),
    ("unable to determine the device handle", "gpu_lost"),
    ("failed to initialize nvml: unknown error", "nvml_lost"),
    ("failed to initialize nvml", "nvml_init_failed"),
)


def number(text: str | None) -> float | None:
    """The leading number of "8188 MiB" / "41 C" / "16x" / "11.26 W"; None for N/A or junk."""
    if text is None:
        return None
    m = _NUM.match(text)
    return float(m.group(1)) if m else None


def classify_error(text: str) -> str:
    """A reason code for nvidia-smi's error output ("unknown" when we do not recognise it)."""
    low = text.lower()
    for needle, reason in _ERRORS:
        if needle in low:
            return reason
    return "unknown"


def _text(node: ET.Element | None, path: str) -> str | None:
    found = node.find(path) if node is not None else None
    if found is None or found.text is None:
        return None
    value = found.text.strip()
    return None if value in ("", "N/A") or value.startswith("Requested functionality") else value


def _int(node: ET.Element | None, path: str) -> int | None:
    value = number(_text(node, path))
    return int(value) if value is not None else None


def _bytes(node: ET.Element | None, path: str) -> int | None:
    mib = number(_text(node, path))
    return int(mib * MIB) if mib is not None else None


def throttle_reasons(gpu: ET.Element) -> list[str]:
    """Active clock-limit reasons, named without prefix (gpu_idle, sw_power_cap, …)."""
    out: list[str] = []
    for block, prefix in (
        ("clocks_event_reasons", "clocks_event_reason_"),
        ("clocks_throttle_reasons", "clocks_throttle_reason_"),
    ):
        for child in gpu.findall(f"{block}/*"):
            if (child.text or "").strip() == "Active" and child.tag.startswith(prefix):
                out.append(child.tag[len(prefix) :])
    return sorted(set(out))


def ecc_counts(gpu: ET.Element, scope: str) -> tuple[int | None, int | None]:
    """(corrected, uncorrected) ECC errors in `scope` (volatile / aggregate), either schema."""
    base = gpu.find(f"ecc_errors/{scope}")
    if base is None:
        return None, None
    corr = _int(base, "single_bit/total")
    unc = _int(base, "double_bit/total")
    if corr is None and unc is None:
        parts = [_int(base, t) for t in ("dram_correctable", "sram_correctable")]
        corr = sum(p for p in parts if p is not None) if any(p is not None for p in parts) else None
        tags = ("dram_uncorrectable", "sram_uncorrectable", "sram_uncorrectable_parity")
        uparts = [_int(base, t) for t in (*tags, "sram_uncorrectable_secded")]
        vals = [p for p in uparts if p is not None]
        unc = sum(vals) if vals else None
    return corr, unc


def _power(gpu: ET.Element) -> tuple[float | None, float | None]:
    for block, draw in (
        ("gpu_power_readings", "instant_power_draw"),
        ("gpu_power_readings", "power_draw"),
        ("power_readings", "power_draw"),
    ):
        node = gpu.find(block)
        if node is not None and _text(node, draw) is not None:
            limit = _text(node, "current_power_limit") or _text(node, "power_limit")
            return number(_text(node, draw)), number(limit)
    return None, None


def _processes(gpu: ET.Element) -> list[dict[str, Any]]:
    out = []
    for p in gpu.findall("processes/process_info"):
        out.append(
            {
                "pid": _int(p, "pid"),
                "type": _text(p, "type") or "",
                "name": (_text(p, "process_name") or "")[:200],
                "used_memory_bytes": _bytes(p, "used_memory"),
            }
        )
    return out


def parse_gpu(gpu: ET.Element, index: int) -> dict[str, Any]:
    """One <gpu> element as a flat dict (keys shared with the NVML probe)."""
    corr_v, unc_v = ecc_counts(gpu, "volatile")
    corr_a, unc_a = ecc_counts(gpu, "aggregate")
    power_w, power_limit_w = _power(gpu)
    link = "pci/pci_gpu_link_info"
    retired = [
        _int(gpu, f"retired_pages/{k}/retired_count")
        for k in ("multiple_single_bit_retirement", "double_bit_retirement")
    ]
    return {
        "index": index,
        "name": _text(gpu, "product_name") or "",
        "architecture": _text(gpu, "product_architecture") or "",
        "uuid": _text(gpu, "uuid") or "",
        "pci_bus_id": gpu.get("id", ""),
        "memory_total_bytes": _bytes(gpu, "fb_memory_usage/total"),
        "memory_used_bytes": _bytes(gpu, "fb_memory_usage/used"),
        "mig_mode": _text(gpu, "mig_mode/current_mig"),
        "ecc_mode": _text(gpu, "ecc_mode/current_ecc"),
        "ecc_corrected_volatile": corr_v,
        "ecc_uncorrected_volatile": unc_v,
        "ecc_corrected_aggregate": corr_a,
        "ecc_uncorrected_aggregate": unc_a,
        "retired_pages": sum(r for r in retired if r is not None)
        if any(r is not None for r in retired)
        else None,
        "retired_pending": _text(gpu, "retired_pages/pending_retirement") == "Yes",
        "remapped_rows_pending": _text(gpu, "remapped_rows/remapped_row_pending") == "Yes",
        "remapped_rows_failure": _text(gpu, "remapped_rows/remapped_row_failure") == "Yes",
        "throttle_active": throttle_reasons(gpu),
        "performance_state": _text(gpu, "performance_state"),
        "temperature_c": number(_text(gpu, "temperature/gpu_temp")),
        "power_w": power_w,
        "power_limit_w": power_limit_w,
        "pcie_gen": _int(gpu, f"{link}/pcie_gen/current_link_gen"),
        "pcie_gen_max": _int(gpu, f"{link}/pcie_gen/max_link_gen"),
        "pcie_width": _int(gpu, f"{link}/link_widths/current_link_width"),
        "pcie_width_max": _int(gpu, f"{link}/link_widths/max_link_width"),
        "driver_model": _text(gpu, "driver_model/current_dm"),
        "compute_mode": _text(gpu, "compute_mode"),
        "compute_capability": None,
        "processes": _processes(gpu),
    }


def parse_nvidia_smi_xml(text: str) -> dict[str, Any]:
    """Facts from `nvidia-smi -q -x` output; raises ValueError when it is not that XML."""
    start = text.find("<nvidia_smi_log")
    if start < 0:
        raise ValueError("no <nvidia_smi_log> element")
    try:
        root = ET.fromstring(text[start:])
    except ET.ParseError as exc:
        raise ValueError(f"bad XML: {exc}") from exc
    gpus = [parse_gpu(g, i) for i, g in enumerate(root.findall("gpu"))]
    return {
        "driver_version": _text(root, "driver_version") or "",
        "cuda_version": _text(root, "cuda_version") or "",
        "attached_gpus": _int(root, "attached_gpus"),
        "gpus": gpus,
    }
