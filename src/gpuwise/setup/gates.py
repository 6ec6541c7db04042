"""What cannot run at all, refused before any version is picked (exit 1, with what would work).

In order: a target the catalog does not know (an invented compute capability or gfx target), a
vendor's GPU on an operating system its compute stack does not run on (NVIDIA on macOS), a stack
setup does not write for the vendor, a package that cannot run on the vendor / OS /
architecture, a driver older than the first one that knows the GPU, and Ollama's own
requirements. Every refusal carries the catalog sources it rests on. Pure.
"""

from __future__ import annotations

from typing import Any

from gpuwise.catalog.versions import at_least
from gpuwise.setup.model import Refusal, Target
from gpuwise.setup.tables import SetupTables

_NEAREST = {
    "vllm": ("setup.nearest.stack", {"stack": "ollama"}),
    "bitsandbytes": ("setup.nearest.stack", {"stack": "pytorch"}),
    "flash-attn": ("setup.nearest.sdpa", {}),
}
_PACKAGE_OF_STACK = {"vllm": "vllm", "qlora": "bitsandbytes"}
_DISPLAY = {"nvidia": "NVIDIA", "amd": "AMD", "macos": "macOS", "windows": "Windows"}


def gate(t: SetupTables, target: Target, stack: str, flash_attn: bool) -> Refusal | None:
    """The first reason the stack cannot run on the target, or None."""
    refusal = known_target(t, target) or _os_gate(t, target)
    if refusal is not None:
        return refusal
    if target.vendor == "ascend" and (stack != "pytorch" or flash_attn):
        return Refusal(
            "setup.refuse.ascend_stack",
            {"stack": stack},
            "setup.nearest.stack",
            {"stack": "pytorch"},
        )
    packages = [_PACKAGE_OF_STACK[stack]] if stack in _PACKAGE_OF_STACK else []
    if flash_attn:
        packages.append("flash-attn")
    for package in packages:
        refusal = _requirement(t, target, package, stack)
        if refusal is not None:
            return refusal
    refusal = driver_gate(t, target)
    if refusal is None and stack == "ollama":
        return _ollama_gate(t, target)
    return refusal


def known_target(t: SetupTables, target: Target) -> Refusal | None:
    """A compute capability or gfx target no GPU the catalog knows has (a typo, or invented)."""
    cc, gfx = target.compute_capability, target.gfx
    if target.vendor == "nvidia" and cc and not t.compat.known_cc(cc):
        known = ", ".join(t.compat.known_ccs())
        ids = tuple(s for r in t.compat.gpu_arch_support for s in r.source_ids())
        return Refusal(
            "setup.refuse.unknown_cc",
            {"cc": cc, "known": known},
            "setup.nearest.known_cc",
            {"known": known},
            tuple(dict.fromkeys(ids)),
        )
    if target.vendor == "amd" and gfx and gfx.lower() not in t.known_gfx():
        known = ", ".join(sorted(t.known_gfx(), key=_gfx_key))
        return Refusal(
            "setup.refuse.unknown_gfx",
            {"gfx": gfx, "known": known},
            "setup.nearest.known_gfx",
            {"known": known},
        )
    return None


def _gfx_key(gfx: str) -> tuple[int, str]:
    return len(gfx), gfx


def _os_gate(t: SetupTables, target: Target) -> Refusal | None:
    """A vendor's GPU compute stack that does not run on the target's OS at all."""
    row = t.compat.os_support(target.vendor, target.os) if target.os else None
    if row is None or row.supported:
        return None
    vendor = _DISPLAY.get(target.vendor, target.vendor)
    params = {"vendor": vendor, "os": _DISPLAY.get(target.os, target.os)}
    params["last_cuda"] = row.last_cuda or "-"
    return Refusal(
        "setup.refuse.os_vendor",
        params,
        "setup.nearest.os_vendor",
        {"vendor": vendor},
        tuple(row.source_ids()),
    )


def driver_gate(t: SetupTables, target: Target) -> Refusal | None:
    """A driver older than the first one that knows this GPU's architecture sees no device."""
    if target.vendor != "nvidia" or not target.driver or not target.compute_capability:
        return None
    first = t.compat.first_driver(target.compute_capability, target.os == "windows")
    if first is None or at_least(target.driver, first[0]):
        return None
    need, row = first
    params = {
        "driver": target.driver,
        "need": need,
        "cc": target.compute_capability,
        "arch": row.arch.capitalize(),
        "cuda": row.first_cuda,
    }
    ids = [*row.source_ids(), *_toolkit_sources(t, row.first_cuda)]
    return Refusal(
        "setup.refuse.gpu_driver",
        params,
        "setup.nearest.upgrade_driver",
        {"need": need.split(".")[0]},
        tuple(dict.fromkeys(ids)),
    )


def _toolkit_sources(t: SetupTables, cuda: str) -> list[str]:
    return [s for r in t.compat.cuda_driver if r.cuda == cuda for s in r.source_ids()][:1]


def _requirement(t: SetupTables, target: Target, package: str, stack: str) -> Refusal | None:
    row = t.requirement(package)
    if row is None:
        return None
    nearest, near = _NEAREST.get(package, ("setup.nearest.none_plain", {}))
    params: dict[str, Any] = {"package": package, "vendor": target.vendor, "stack": stack}
    ids = tuple(row.source_ids())
    if target.vendor not in row.vendors:
        return Refusal("setup.refuse.vendor", params, nearest, near, ids)
    if row.linux_only and target.os in ("macos", "windows"):
        return Refusal("setup.refuse.linux_only", {**params, "os": target.os}, nearest, near, ids)
    cc = target.compute_capability
    needs = row.min_compute_capability
    if target.vendor == "nvidia" and needs and cc and not at_least(cc, needs):
        params.update(cc=cc, need=needs)
        return Refusal("setup.refuse.package_arch", params, nearest, near, ids)
    if target.vendor == "amd" and package == "vllm":
        if target.gfx not in row.gfx_targets:
            params.update(gfx=target.gfx or "?", known=", ".join(row.gfx_targets))
            return Refusal("setup.refuse.package_gfx", params, nearest, near, ids)
        pin = t.pins("vllm")[0]
        return Refusal(
            "setup.refuse.vllm_rocm",
            {**params, "version": pin.version},
            nearest,
            near,
            (*ids, *pin.source_ids()),
        )
    return None


def _ollama_gate(t: SetupTables, target: Target) -> Refusal | None:
    """Ollama's documented GPU requirements (the ollama_gpu_req rows)."""
    req = t.compat.ollama_requirement(target.vendor)
    if req is None:
        return None
    ids = tuple(req.source_ids())
    if target.vendor == "nvidia":
        cc, driver = target.compute_capability, target.driver
        if cc and req.min_compute_capability and not at_least(cc, req.min_compute_capability):
            return Refusal(
                "setup.refuse.ollama_cc",
                {"cc": cc, "need": req.min_compute_capability},
                "setup.nearest.cpu",
                {},
                ids,
            )
        need = req.min_driver
        legacy = req.legacy_max_compute_capability
        if cc and legacy and at_least(legacy, cc) and req.legacy_min_driver:
            need = req.legacy_min_driver
        if driver and need and not at_least(driver, need):
            return Refusal(
                "setup.refuse.ollama_driver",
                {"driver": driver, "need": need},
                "setup.nearest.upgrade_driver",
                {"need": need},
                ids,
            )
    gfx = target.gfx
    unsupported = gfx and gfx not in req.gfx_targets and not t.compat.gfx_override(gfx)
    if target.vendor == "amd" and unsupported:
        known = ", ".join(req.gfx_targets)
        params = {"gfx": target.gfx, "known": known}
        return Refusal("setup.refuse.ollama_gfx", params, "setup.nearest.cpu", {}, ids)
    return None
