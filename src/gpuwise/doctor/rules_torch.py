"""PyTorch against this machine: installed?, the right build?, driver new enough?, does the
wheel contain code for this GPU?, can it see the GPU?

Covers the guide's §7 row "torch.cuda.is_available() returns False". The guide's advice to
compare with `nvcc --version` is misleading: pip/conda wheels bring their own CUDA runtime, so
only the driver matters (NVIDIA CUDA compatibility guide).
"""

from __future__ import annotations

import re
from typing import Any

from gpuwise.doctor import fixes
from gpuwise.doctor.arch import split_arch_list, torch_runs_on
from gpuwise.doctor.inputs import Inputs
from gpuwise.doctor.model import Finding
from gpuwise.doctor.recommend import Wheel, pick_wheel
from gpuwise.doctor.versions import at_least, major_minor, parse
from gpuwise.doctor.view import (
    any_facts,
    capabilities,
    driver_max_cuda,
    driver_version,
    found,
    nvidia_gpus,
    nvidia_present,
    pci_vendor_count,
    torch_info,
)
from gpuwise.i18n import t
from gpuwise.probe.result import Failed, Missing, TimedOut


def _wheel(inp: Inputs) -> Wheel | None:
    py = any_facts(inp.facts, "torch").get("python", {}).get("version") or found(
        inp.facts, "system"
    ).get("python", "")
    driver = driver_version(inp.facts) or None
    return pick_wheel(inp.tables, str(py), capabilities(inp.facts), driver, inp.host.windows)


def _wheel_params(wheel: Wheel | None) -> dict[str, Any]:
    """The `advice` sentence: which wheel fits this GPU and driver (or that none is known)."""
    if wheel is None:
        return {"advice": t("doctor.wheel_unknown")}
    advice = t("doctor.wheel_advice", torch=wheel.torch, cuda=wheel.cuda, index=wheel.index_url)
    return {"advice": advice}


def install_state(inp: Inputs) -> list[Finding]:
    """Not installed / broken import / the probe itself failed."""
    r = inp.facts.get("torch")
    h = inp.host
    if isinstance(r, TimedOut) or (isinstance(r, Failed) and r.reason == "timeout"):
        return [Finding("torch.probe_timeout", "warn", {"python": h.python})]
    if isinstance(r, Missing) and r.reason == "not_installed":
        if nvidia_present(inp.facts):
            wheel = _wheel(inp)
            cmds = fixes.pip_install_torch(h, wheel)
            return [
                Finding(
                    "torch.not_installed",
                    "info",
                    {"python": h.python, **_wheel_params(wheel)},
                    cmds,
                )
            ]
        return [
            Finding(
                "torch.not_installed_cpu",
                "info",
                {"python": h.python},
                fixes.pip_install_torch_cpu(h),
            )
        ]
    if isinstance(r, Missing):
        return [Finding("torch.python_missing", "error", {"python": h.python})]
    if isinstance(r, Failed):
        key = "torch.import_failed" if r.reason == "import_failed" else "torch.probe_failed"
        return [
            Finding(
                key,
                "error" if key == "torch.import_failed" else "warn",
                {"detail": r.detail, "python": h.python},
            )
        ]
    return []


def build_matches(inp: Inputs) -> list[Finding]:
    """CPU-only build on a GPU machine; driver too old for the build's CUDA."""
    t = torch_info(inp.facts)
    if not t:
        return []
    h = inp.host
    if nvidia_present(inp.facts) and not t.get("cuda") and not t.get("hip"):
        wheel = _wheel(inp)
        params = {"version": t.get("version", "?"), **_wheel_params(wheel)}
        return [Finding("torch.cpu_only", "error", params, fixes.pip_install_torch(h, wheel))]
    if t.get("cuda") and nvidia_present(inp.facts):
        return _driver_vs_build(inp, str(t["cuda"]), str(t.get("version", "?")))
    return []


def _driver_vs_build(inp: Inputs, cuda: str, version: str) -> list[Finding]:
    driver = driver_version(inp.facts)
    if not driver:
        return []
    h = inp.host
    family = inp.tables.family_min_driver(cuda)
    toolkit = inp.tables.toolkit_min_driver(cuda, h.windows)
    max_cuda = driver_max_cuda(inp.facts)
    params = {"version": version, "cuda": cuda, "driver": driver, "max_cuda": max_cuda or "?"}
    too_old = family is not None and at_least(driver, family) is False
    if family is None and max_cuda:
        mc, c = parse(max_cuda), parse(cuda)
        too_old = bool(mc and c and c[0] > mc[0])
    if too_old:
        wheel = _wheel(inp)
        cmds = (
            *fixes.driver_install(h),
            fixes.comment("or_older_wheel"),
            *fixes.pip_install_torch(h, wheel),
        )
        return [Finding("torch.driver_too_old", "error", {**params, "need": family or cuda}, cmds)]
    if toolkit and at_least(driver, toolkit) is False:
        return [
            Finding(
                "torch.driver_minor_compat",
                "warn",
                {**params, "need": toolkit},
                fixes.driver_install(h),
            )
        ]
    return []


def arch_support(inp: Inputs) -> list[Finding]:
    """The wheel has no code for this GPU: too new (RTX 50 on cu126) or too old (Volta on cu130)."""
    t = torch_info(inp.facts)
    arch_list = [str(a) for a in t.get("arch_list") or []]
    if not t.get("cuda") or not arch_list:
        return []
    out = []
    sass, ptx = split_arch_list(arch_list)
    newest = max((parse(a) or () for a in sass + ptx), default=())
    gpus = nvidia_gpus(inp.facts)
    names = {str(g.get("compute_capability")): str(g.get("name", "")) for g in gpus}
    for cc in sorted(set(capabilities(inp.facts))):
        if torch_runs_on(arch_list, cc) is not False:
            continue
        key = "torch.gpu_too_new" if (parse(cc) or ()) > newest else "torch.gpu_too_old"
        wheel = _wheel(inp)
        params = {
            "cc": cc,
            "name": names.get(cc, ""),
            "archs": " ".join(arch_list),
            "cuda": t.get("cuda"),
            "version": t.get("version", "?"),
            **_wheel_params(wheel),
        }
        out.append(Finding(key, "error", params, fixes.pip_install_torch(inp.host, wheel)))
    return out


def availability(inp: Inputs) -> list[Finding]:
    """Is the GPU usable from PyTorch; if not and nothing above explains it, say what it said."""
    t = torch_info(inp.facts)
    if not t:
        return []
    params = {
        "version": t.get("version", "?"),
        "build": f"CUDA {t['cuda']}"
        if t.get("cuda")
        else (f"ROCm {t['hip']}" if t.get("hip") else "CPU"),
        "count": len(t.get("devices") or []),
        "cudnn": t.get("cudnn") or "—",
        "nccl": t.get("nccl") or "—",
        "error": t.get("init_error") or "",
    }
    if t.get("is_available"):
        return [Finding("torch.ok", "ok", params)]
    if t.get("hip") and (
        pci_vendor_count(inp.facts, "amd") or found(inp.facts, "amd").get("cards")
    ):
        return [Finding("torch.rocm_unavailable", "error", params, _rocm_checks())]
    if t.get("cuda") and nvidia_present(inp.facts):
        cmds = ("nvidia-smi", fixes.comment("nvcc_irrelevant"))
        return [Finding("torch.cuda_unavailable", "error", params, cmds)]
    if found(inp.facts, "system").get("apple_silicon") and not t.get("mps_available"):
        return [Finding("torch.mps_unavailable", "warn", {**params, "built": t.get("mps_built")})]
    return [Finding("torch.cpu", "info", params)] if t.get("cuda") or t.get("hip") else []


def _rocm_checks() -> tuple[str, ...]:
    return ("ls -l /dev/kfd /dev/dri/render*", "groups", "sudo usermod -aG render,video $USER")


_CU_WHEEL = re.compile(r"^nvidia-[a-z0-9-]+-cu(\d+)$")


def mixed_wheels(inp: Inputs) -> list[Finding]:
    """NVIDIA library wheels of several CUDA majors in one environment (cu11 + cu12 …)."""
    pkgs = any_facts(inp.facts, "torch").get("packages") or {}
    majors: dict[str, list[str]] = {}
    for name in pkgs:
        m = _CU_WHEEL.match(name)
        if m:
            majors.setdefault(m.group(1), []).append(name)
    if len(majors) < 2:
        return []
    listing = "; ".join(f"cu{k}: {', '.join(sorted(v)[:3])}" for k, v in sorted(majors.items()))
    py = inp.host.python
    cmds = (f"{py} -m pip list 2>/dev/null | grep -i '^nvidia-'",)
    return [Finding("torch.mixed_cuda_wheels", "warn", {"listing": listing}, cmds)]


def nvcc_vs_torch(inp: Inputs) -> list[Finding]:
    """Building CUDA extensions needs an nvcc of the same major version as torch.version.cuda."""
    t = torch_info(inp.facts)
    nvccs = found(inp.facts, "toolkit").get("nvcc") or []
    first = next((n for n in nvccs if n.get("version")), None)
    if not t.get("cuda") or first is None:
        return []
    tv, nv = parse(t["cuda"]), parse(first["version"])
    if not tv or not nv or tv[0] == nv[0]:
        return []
    params = {"nvcc": first["version"], "path": first["path"], "cuda": major_minor(t["cuda"])}
    return [Finding("torch.nvcc_major_mismatch", "warn", params)]


RULES = (install_state, build_matches, arch_support, availability, mixed_wheels, nvcc_vs_torch)
IDS = (
    "torch.probe_timeout",
    "torch.not_installed",
    "torch.not_installed_cpu",
    "torch.python_missing",
    "torch.import_failed",
    "torch.probe_failed",
    "torch.cpu_only",
    "torch.driver_too_old",
    "torch.driver_minor_compat",
    "torch.gpu_too_new",
    "torch.gpu_too_old",
    "torch.ok",
    "torch.rocm_unavailable",
    "torch.cuda_unavailable",
    "torch.mps_unavailable",
    "torch.cpu",
    "torch.mixed_cuda_wheels",
    "torch.nvcc_major_mismatch",
)
