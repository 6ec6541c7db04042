"""PyTorch against this machine: installed?, the right build?, driver new enough?, does the
wheel contain code for this GPU?, which libraries did it really load?, can it see the GPU?

Covers the guide's §7 row "torch.cuda.is_available() returns False". The guide's advice to
compare with `nvcc --version` is misleading: pip/conda wheels bring their own CUDA runtime, so
only the driver matters (NVIDIA CUDA compatibility guide). A wheel is named only from known
facts (see :mod:`gpuwise.doctor.recommend`).
"""

from __future__ import annotations

import os
import re

from gpuwise.catalog.versions import at_least, major_minor, parse
from gpuwise.doctor import fixes
from gpuwise.doctor.inputs import Inputs
from gpuwise.doctor.model import Finding
from gpuwise.doctor.wheel_advice import advice_for, wheel_params
from gpuwise.i18n import t
from gpuwise.parse.result import Failed, Missing, TimedOut
from gpuwise.parse.view import (
    any_facts,
    driver_max_cuda,
    driver_version,
    found,
    nvidia_present,
    pci_vendor_count,
    torch_devices,
    torch_info,
)

ARCH_QUERY = 'python -c "import torch; print(torch.__version__, torch.cuda.get_arch_list())"'


def install_state(inp: Inputs) -> list[Finding]:
    """Not installed / broken import / the probe itself failed."""
    r = inp.facts.get("torch")
    h = inp.host
    if isinstance(r, TimedOut) or (isinstance(r, Failed) and r.reason == "timeout"):
        return [Finding("torch.probe_timeout", "warn", {"python": h.python})]
    if isinstance(r, Missing) and r.reason == "not_installed":
        if nvidia_present(inp.facts):
            advice = advice_for(inp)
            cmds = fixes.pip_install_torch(h, advice)
            params = {"python": h.python, **wheel_params(inp, advice)}
            return [Finding("torch.not_installed", "info", params, cmds)]
        if found(inp.facts, "wsl").get("version") == 1:
            return []  # WSL 1 hides any GPU: wsl.version1 says so; CPU advice would be wrong
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
    tt = torch_info(inp.facts)
    if not tt:
        return []
    h = inp.host
    cpu_build = (
        not tt.get("cuda")
        and not tt.get("hip")
        and bool(tt.get("version"))
        and not tt.get("build_unknown")
    )
    # "Torch not compiled with CUDA enabled" says a GPU was asked for even when none is seen
    if tt.get("cpu_build") or (cpu_build and nvidia_present(inp.facts)):
        advice = advice_for(inp)
        params = {"version": tt.get("version", "?"), **wheel_params(inp, advice)}
        cmds = fixes.pip_install_torch(h, advice)
        if advice.wheel is None and advice.newest is not None:
            cmds = (*fixes.driver_install(h, need=advice.need_driver or ""), *cmds)
        return [Finding("torch.cpu_only", "error", params, cmds)]
    if tt.get("cuda") and (nvidia_present(inp.facts) or tt.get("driver_too_old")):
        return _driver_vs_build(inp, str(tt["cuda"]), str(tt.get("version", "?")))
    return []


def _too_old(inp: Inputs, cuda: str) -> tuple[bool, str | None]:
    """(driver too old for a cuXY build?, the minimum it needs) from every known fact."""
    driver = driver_version(inp.facts)
    family = inp.tables.family_min_driver(cuda)
    if driver and family is not None:
        return at_least(driver, family) is False, family
    max_cuda = driver_max_cuda(inp.facts)
    mc, c = parse(max_cuda), parse(cuda)
    if mc and c:
        return c[0] > mc[0], family
    return bool(torch_info(inp.facts).get("driver_too_old")), family


def _driver_vs_build(inp: Inputs, cuda: str, version: str) -> list[Finding]:
    h = inp.host
    too_old, family = _too_old(inp, cuda)
    driver = driver_version(inp.facts)
    params = {
        "version": version,
        "cuda": cuda,
        "driver": driver or "?",
        "max_cuda": driver_max_cuda(inp.facts) or "?",
        "place": t(f"doctor.place.{h.place}"),
    }
    if too_old:
        advice = advice_for(inp)
        need = family or (cuda if parse(cuda) else "?")
        cmds: tuple[str, ...] = fixes.driver_install(h, need=need if parse(need) else "")
        if advice.wheel is not None:
            cmds = (*cmds, fixes.comment("or_older_wheel"), *fixes.pip_install_torch(h, advice))
        params.update(need=need, **wheel_params(inp, advice))
        if not parse(cuda) or not parse(version):
            params["variant"] = "partial"  # only PyTorch's complaint is known (a paste)
        return [Finding("torch.driver_too_old", "error", params, cmds)]
    toolkit = inp.tables.toolkit_min_driver(cuda, h.windows)
    if driver and toolkit and at_least(driver, toolkit) is False:
        return [
            Finding(
                "torch.driver_minor_compat",
                "info",
                {**params, "need": toolkit},
                fixes.driver_install(h, need=toolkit),
            )
        ]
    return []


def availability(inp: Inputs) -> list[Finding]:
    """Is the GPU usable from PyTorch; if not and nothing above explains it, say what it said."""
    tt = torch_info(inp.facts)
    if not tt or tt.get("is_available") is None:
        return []
    params = {
        "version": tt.get("version", "?"),
        "build": f"CUDA {tt['cuda']}"
        if tt.get("cuda")
        else (f"ROCm {tt['hip']}" if tt.get("hip") else "CPU"),
        "count": len(tt.get("devices") or []),
        "cudnn": tt.get("cudnn") or "—",
        "nccl": tt.get("nccl") or "—",
        "error": tt.get("init_error") or "",
    }
    if tt.get("is_available"):
        return [Finding("torch.ok", "ok", params)]
    if tt.get("hip") and (
        pci_vendor_count(inp.facts, "amd") or found(inp.facts, "amd").get("cards")
    ):
        return [Finding("torch.rocm_unavailable", "error", params, _rocm_checks())]
    if tt.get("cuda") and nvidia_present(inp.facts):
        cmds = ("nvidia-smi", fixes.comment("nvcc_irrelevant"))
        return [Finding("torch.cuda_unavailable", "error", params, cmds)]
    if found(inp.facts, "system").get("apple_silicon") and not tt.get("mps_available"):
        return [Finding("torch.mps_unavailable", "warn", {**params, "built": tt.get("mps_built")})]
    return [Finding("torch.cpu", "info", params)] if tt.get("cuda") or tt.get("hip") else []


def _rocm_checks() -> tuple[str, ...]:
    return ("ls -l /dev/kfd /dev/dri/render*", "groups", "sudo usermod -aG render,video $USER")


def rocm_targets(inp: Inputs) -> list[Finding]:
    """A ROCm PyTorch build without code for this GPU's gfx target (HIP "invalid device
    function"), and the documented HSA_OVERRIDE_GFX_VERSION workaround when there is one."""
    tt = torch_info(inp.facts)
    if not tt.get("hip"):
        return []
    targets = {a.split(":")[0] for a in tt.get("arch_list") or [] if str(a).startswith("gfx")}
    gfxs = _gfx_targets(inp)
    override = str(found(inp.facts, "amd").get("hsa_override") or "")
    out = []
    if not gfxs and tt.get("hip_invalid_function"):
        params = {"gfx": "?", "targets": "—", "version": tt.get("version", "?"), "override": "—"}
        cmds_q = ("rocminfo | grep -m1 -o 'gfx[0-9a-f]*'", ARCH_QUERY)
        return [Finding("torch.rocm_gfx_unsupported", "error", params, cmds_q)]
    for gfx in sorted(gfxs):
        unsupported = (targets and gfx not in targets) or (
            not targets and tt.get("hip_invalid_function")
        )
        if not unsupported or override:
            continue
        value = inp.tables.gfx_override(gfx)
        params = {
            "gfx": gfx,
            "targets": " ".join(sorted(targets)) or "—",
            "version": tt.get("version", "?"),
        }
        cmds: tuple[str, ...] = (
            (f"export HSA_OVERRIDE_GFX_VERSION={value}", fixes.comment("override_caveat"))
            if value
            else (fixes.comment("rocm_no_override"),)
        )
        key = "torch.rocm_gfx_override" if value else "torch.rocm_gfx_unsupported"
        out.append(Finding(key, "error", {**params, "override": value or "—"}, cmds))
    return out


def _gfx_targets(inp: Inputs) -> set[str]:
    """gfx targets of the AMD GPUs (rocm-smi, rocminfo, or what PyTorch reported)."""
    cards = found(inp.facts, "amd").get("cards") or []
    out = {str(c["gfx"]).split(":")[0] for c in cards if c.get("gfx")}
    out |= {d.gcn_arch.split(":")[0] for d in torch_devices(inp.facts) if d.gcn_arch}
    return {g for g in out if g.startswith("gfx")}


_SHADOWABLE = re.compile(r"^(libcudnn|libcublas|libcublasLt|libnccl)[._]")


def loaded_libraries(inp: Inputs) -> list[Finding]:
    """A system cuDNN/cuBLAS/NCCL loaded instead of the one the wheel ships, and where from
    (LD_LIBRARY_PATH or ld.so.conf); or PyTorch's own "cuDNN version incompatibility"."""
    data = any_facts(inp.facts, "torch")
    tt = torch_info(inp.facts)
    libs: dict[str, str] = data.get("loaded_libs") or {}
    prefix = str((data.get("python") or {}).get("prefix") or "")
    outside = {n: p for n, p in libs.items() if _SHADOWABLE.match(n) and not _inside_env(p, prefix)}
    error = str(tt.get("cudnn_error") or "")
    if not outside and "incompatib" not in error.lower():
        return []
    ld_path = str(data.get("ld_library_path") or "")
    conf = found(inp.facts, "kernel").get("ld_conf_gpu_libs") or {}
    dirs = sorted({os.path.dirname(p) for p in outside.values()})
    if not dirs and error:  # only the error is known: suspect the GPU-library entries
        dirs = [d for d in ld_path.split(":") if d and re.search(r"cudnn|cuda|nccl|cublas", d)]
    via = [d for d in dirs if d in ld_path.split(":")]
    via_conf = [d for d in dirs if d in conf]
    params = {
        "libs": "; ".join(f"{n} → {p}" for n, p in sorted(outside.items())) or "—",
        "error": error[:300] or "—",
        "via": ", ".join(
            [*(f"LD_LIBRARY_PATH: {d}" for d in via), *(f"ld.so.conf: {d}" for d in via_conf)]
        )
        or "—",
    }
    cmds = ["echo $LD_LIBRARY_PATH"]
    if via or not via_conf:
        keep = ":".join(p for p in ld_path.split(":") if p and p not in via) if ld_path else ""
        cmds.append(f"export LD_LIBRARY_PATH={keep}" if keep else "unset LD_LIBRARY_PATH")
    if via_conf:
        cmds += [fixes.comment("ld_conf_remove", dirs=", ".join(via_conf)), "sudo ldconfig"]
    if error:
        return [Finding("torch.lib_shadowed", "error", params, tuple(cmds))]
    return [Finding("torch.lib_shadowed", "warn", params, tuple(cmds))]


def _inside_env(path: str, prefix: str) -> bool:
    """A library inside the Python environment (the wheel's copy), not a system one."""
    return ("site-packages" in path or "dist-packages" in path) or bool(
        prefix and path.startswith(prefix + "/")
    )


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
    tt = torch_info(inp.facts)
    nvccs = found(inp.facts, "toolkit").get("nvcc") or []
    first = next((n for n in nvccs if n.get("version")), None)
    if not tt.get("cuda") or first is None:
        return []
    tv, nv = parse(tt["cuda"]), parse(first["version"])
    if not tv or not nv or tv[0] == nv[0]:
        return []
    params = {"nvcc": first["version"], "path": first["path"], "cuda": major_minor(tt["cuda"])}
    return [Finding("torch.nvcc_major_mismatch", "warn", params)]


RULES = (
    install_state,
    build_matches,
    availability,
    rocm_targets,
    loaded_libraries,
    mixed_wheels,
    nvcc_vs_torch,
)
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
    "torch.ok",
    "torch.rocm_unavailable",
    "torch.rocm_gfx_override",
    "torch.rocm_gfx_unsupported",
    "torch.cuda_unavailable",
    "torch.mps_unavailable",
    "torch.cpu",
    "torch.lib_shadowed",
    "torch.mixed_cuda_wheels",
    "torch.nvcc_major_mismatch",
)
