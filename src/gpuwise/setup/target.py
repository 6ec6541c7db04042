"""The target machine: from flags (`--gpu rtx-5090 --driver 550.54 …`) or from the doctor's
probe results for this machine. Bad flags are one-line UserErrors; nothing here probes."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gpuwise.errors import UserError
from gpuwise.setup.model import Target, Vendor

_DRIVER = re.compile(r"^\d{2,4}(\.\d{1,3}){0,2}$")
_PY = re.compile(r"^3\.\d{1,2}$")
_ROCM = re.compile(r"^\d{1,2}\.\d{1,2}(\.\d{1,2})?$")
_GFX = re.compile(r"^gfx[0-9a-f]{3,5}$")
_CC = re.compile(r"^\d{1,2}\.\d$")
_OS = {
    "ubuntu20.04": ("ubuntu20.04", "native"),
    "ubuntu22.04": ("ubuntu22.04", "native"),
    "ubuntu24.04": ("ubuntu24.04", "native"),
    "wsl2": ("", "wsl2"),
    "macos": ("macos", "native"),
    "windows": ("windows", "windows"),
}
_GPU_VENDORS = {
    "nvidia": "nvidia",
    "amd": "amd",
    "apple": "apple",
    "huawei": "ascend",
    "ascend": "ascend",
}
_CANN = re.compile(r"^\d{1,2}\.\d{1,2}(\.(\d{1,2}|RC\d))?$", re.IGNORECASE)


@dataclass(frozen=True)
class TargetFlags:
    """The target flags as typed by the user (None = not given)."""

    gpu: str | None = None
    vendor: str | None = None
    cc: str | None = None
    gfx: str | None = None
    driver: str | None = None
    rocm: str | None = None
    os: str | None = None
    python: str | None = None
    cpu: bool = False
    ascend: str | None = None
    cann: str | None = None

    def any_machine_flag(self) -> bool:
        """Whether a flag describes another machine (then nothing is probed)."""
        return self.cpu or any(
            v is not None
            for v in (
                self.gpu,
                self.vendor,
                self.cc,
                self.gfx,
                self.driver,
                self.rocm,
                self.ascend,
                self.cann,
            )
        )


def _check(value: str | None, pattern: re.Pattern[str], key: str) -> str:
    if value is None:
        return ""
    value = value.strip()
    if not pattern.match(value):
        raise UserError(key, value=value)
    return value


def check_python(value: str | None) -> str:
    """A Python "X.Y" from --python ("" when not given); anything else is a UserError."""
    return _check(value, _PY, "setup.bad_python")


def _os_of(flags: TargetFlags) -> tuple[str, str]:
    if flags.os is None:
        return "", "native"
    key = flags.os.strip().lower().replace("-", "")
    if key not in _OS:
        raise UserError("setup.bad_os", value=flags.os, known=", ".join(_OS))
    return _OS[key]


def _conflict(a: str, b: str) -> UserError:
    return UserError("setup.conflict", first=a, second=b)


def from_flags(flags: TargetFlags, cat: Any, default_python: str) -> Target:
    """A target described on the command line; every value checked, contradictions refused."""
    driver = _check(flags.driver, _DRIVER, "setup.bad_driver")
    rocm = _check(flags.rocm, _ROCM, "setup.bad_rocm")
    python = _check(flags.python, _PY, "setup.bad_python") or default_python
    gfx = _check(flags.gfx.lower() if flags.gfx else None, _GFX, "setup.bad_gfx")
    cc = _check(flags.cc, _CC, "setup.bad_cc")
    cann = _check(flags.cann, _CANN, "setup.bad_cann")
    os_name, place = _os_of(flags)
    if flags.ascend:
        if flags.gpu:
            raise _conflict("--ascend", "--gpu")
        flags = TargetFlags(**{**flags.__dict__, "gpu": "ascend-" + flags.ascend.strip().lower()})
    if flags.cpu:
        given = {"--gpu": flags.gpu, "--vendor": flags.vendor, "--gfx": gfx, "--cc": cc}
        for name, value in {**given, "--driver": driver, "--rocm": rocm}.items():
            if value:
                raise _conflict("--cpu", name)
        return Target(vendor="cpu", python=python, os=os_name, place=place)
    gpu_id, name, vendor = "", "", ""
    if flags.gpu:
        gpu = cat.gpu(flags.gpu)  # unknown names: a UserError with suggestions
        vendor = _GPU_VENDORS.get(gpu.vendor, "")
        if not vendor:
            raise UserError("setup.vendor_unsupported", gpu=gpu.id, vendor=gpu.vendor)
        gpu_id, name = gpu.id, gpu.name
        cc = cc or (gpu.stack.cuda_cc or "")
        gfx = gfx or (gpu.stack.rocm_gfx or "")
    vendor = _vendor(flags, vendor, {"cc": cc, "driver": driver, "gfx": gfx, "rocm": rocm}, cann)
    return Target(
        vendor=vendor,
        python=python,
        gpu=gpu_id,
        gpu_name=name,
        compute_capability=cc,
        gfx=gfx,
        driver=driver,
        rocm=rocm,
        cann=cann,
        os=os_name or ("macos" if vendor == "apple" else ""),
        place=place,
        origin="flags",
    )


def _vendor(flags: TargetFlags, from_gpu: str, given: dict[str, str], cann: str) -> Vendor:
    """The vendor: the card's, `--vendor`, or what the other flags imply; flags that belong to
    another vendor (`--gfx` on NVIDIA, `--cc` on AMD, `--cann` off Ascend) are refused."""
    vendor = from_gpu
    if flags.vendor:
        asked = flags.vendor.strip().lower()
        if asked not in _GPU_VENDORS:
            raise UserError("setup.bad_vendor", value=flags.vendor)
        if vendor and asked != vendor:
            raise _conflict(f"--gpu {flags.gpu}", f"--vendor {flags.vendor}")
        vendor = asked
    amd, nvidia = given["gfx"] or given["rocm"], given["cc"] or given["driver"]
    if not vendor:
        vendor = "amd" if amd else "nvidia" if nvidia else "ascend" if cann else ""
    if not vendor:
        raise UserError("setup.no_target")
    if vendor != "amd" and amd:
        raise _conflict(f"--vendor {vendor}", "--gfx/--rocm")
    if vendor != "nvidia" and nvidia:
        raise _conflict(f"--vendor {vendor}", "--cc/--driver")
    if vendor != "ascend" and cann:
        raise _conflict(f"--vendor {vendor}", "--cann")
    return vendor  # type: ignore[return-value]


def from_facts(facts: dict[str, Any], python: str | None = None) -> Target:
    """This machine, from the doctor's probe results (see gpuwise.parse.view)."""
    from gpuwise.parse import view

    system = view.found(facts, "system")
    host = view.host(facts)
    py = python or ".".join(str(system.get("python", "")).split(".")[:2])
    os_name = _os_from_system(system)
    place = host.place if host.place != "unknown" else "native"
    gpus = view.nvidia_gpus(facts)
    if gpus or view.capabilities(facts):
        ccs = view.capabilities(facts)
        return Target(
            vendor="nvidia",
            python=py,
            gpu_name=gpus[0].name if gpus else "",
            compute_capability=min(ccs, key=_cc_key) if ccs else "",
            driver=view.driver_version(facts),
            os=os_name,
            place=place,
            origin="probe",
        )
    cards = view.found(facts, "amd").get("cards") or []
    if cards:
        gfx = str(cards[0].get("gfx") or "").lower()
        return Target(
            vendor="amd",
            python=py,
            gpu_name=str(cards[0].get("name", "")),
            gfx=gfx,
            os=os_name,
            place=place,
            origin="probe",
        )
    ascend = view.found(facts, "ascend")
    if ascend.get("npus") or ascend.get("davinci"):
        return Target(
            vendor="ascend",
            python=py,
            cann=str(ascend.get("cann_version") or ""),
            os=os_name,
            place=place,
            origin="probe",
        )
    if system.get("os") == "Darwin" and system.get("machine") == "arm64":
        return Target(vendor="apple", python=py, os="macos", place="native", origin="probe")
    return Target(vendor="cpu", python=py, os=os_name, place=place, origin="probe")


def _cc_key(cc: str) -> tuple[int, ...]:
    return tuple(int(p) for p in cc.split(".") if p.isdigit())


def _os_from_system(system: dict[str, Any]) -> str:
    if system.get("os") == "Darwin":
        return "macos"
    if system.get("os") == "Windows":
        return "windows"
    if system.get("distro_id") == "ubuntu" and system.get("distro_version"):
        return f"ubuntu{system['distro_version']}"
    return ""
