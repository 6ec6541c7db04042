"""The GPU's architecture against the driver and the PyTorch wheel, from the shared
compatibility table (catalog.compat, which `setup` reads too).

- A driver older than the first one that knows the GPU's architecture (the GA driver of the
  first CUDA toolkit that compiles for it: Ada and Hopper 520, Blackwell 570) does not drive it.
- A wheel without code for the GPU: too new (an RTX 50 / B-series card on a cu118..cu126 build)
  or too old (Pascal on cu128 from 2.8). The wheel's own arch list when known, else the table's
  row for that release and CUDA, else the rule that a build older than the architecture's first
  CUDA toolkit carries no code for it.
- "no kernel image is available" printed, with the facts to tell why missing.
"""

from __future__ import annotations

from typing import Any

from gpuwise.catalog.cuda_arch import split_arch_list, torch_runs_on
from gpuwise.catalog.versions import at_least, parse
from gpuwise.doctor import fixes
from gpuwise.doctor.inputs import Inputs
from gpuwise.doctor.model import Finding
from gpuwise.doctor.wheel_advice import advice_for, wheel_params
from gpuwise.parse.view import (
    capabilities,
    driver_version,
    nvidia_gpus,
    torch_devices,
    torch_info,
)

ARCH_QUERY = 'python -c "import torch; print(torch.__version__, torch.cuda.get_arch_list())"'


def driver_knows_gpu(inp: Inputs) -> list[Finding]:
    """The driver predates the GPU: it cannot drive it at all (no device, or "CUDA driver
    version is insufficient")."""
    driver = driver_version(inp.facts)
    if not driver:
        return []
    out = []
    for cc, name in sorted(_names(inp).items()):
        first = inp.tables.first_driver(cc, inp.host.windows)
        if first is None or at_least(driver, first[0]) is not False:
            continue
        need, row = first
        branch = inp.tables.install_branch(need, cc)
        params = {
            "driver": driver,
            "need": need,
            "cc": cc,
            "name": name or cc,
            "arch": row.arch.capitalize(),
            "cuda": row.first_cuda,
            "branch": branch or need.split(".")[0],
            "variant": "open" if row.open_modules_only else "",
        }
        package = f"{branch}-open" if branch and row.open_modules_only else branch
        ubuntu = inp.host.distro == "ubuntu"
        cmds = fixes.driver_install(inp.host, need=need, branch=package if ubuntu else branch)
        out.append(Finding("nvidia.driver_predates_gpu", "error", params, cmds))
    return out


def _names(inp: Inputs) -> dict[str, str]:
    """Compute capability → a GPU name, from the driver's list and PyTorch's devices."""
    names = {d.capability: d.name for d in torch_devices(inp.facts) if d.capability}
    names.update(
        {g.compute_capability: g.name for g in nvidia_gpus(inp.facts) if g.compute_capability}
    )
    return names


def arch_support(inp: Inputs) -> list[Finding]:
    """The wheel has no code for this GPU: too new (RTX 50 on cu126) or too old (Pascal on
    cu128); or the error says so and the facts to tell which are missing."""
    tt = torch_info(inp.facts)
    ccs = sorted(set(capabilities(inp.facts)))
    if not tt.get("cuda") or not ccs:
        return no_kernel_image(inp, tt)
    arch_list = [str(a) for a in tt.get("arch_list") or []] or _table_archs(inp, tt)
    if arch_list:
        sass, ptx = split_arch_list(arch_list)
        newest = max((parse(a) or () for a in sass + ptx), default=())
        lacking = [
            (cc, (parse(cc) or ()) > newest) for cc in ccs if torch_runs_on(arch_list, cc) is False
        ]
    else:  # no list: only what the table proves (a build older than the architecture)
        lacking = [(cc, True) for cc in ccs if _older_than_arch(inp, tt, cc)]
    if not lacking:
        return no_kernel_image(inp, tt) if not arch_list else []
    names = _names(inp)
    return [_no_code(inp, tt, cc, too_new, arch_list, names) for cc, too_new in lacking]


def _older_than_arch(inp: Inputs, tt: dict[str, Any], cc: str) -> bool:
    return inp.tables.wheel_has_code(str(tt["cuda"]), str(tt.get("version") or ""), cc) is False


def _no_code(
    inp: Inputs,
    tt: dict[str, Any],
    cc: str,
    too_new: bool,
    arch_list: list[str],
    names: dict[str, str],
) -> Finding:
    advice = advice_for(inp)
    params = {
        "cc": cc,
        "name": names.get(cc, "") or cc,
        "archs": " ".join(arch_list) or "—",
        "cuda": tt.get("cuda"),
        "version": tt.get("version", "?"),
        **wheel_params(inp, advice),
    }
    cmds = fixes.pip_install_torch(inp.host, advice)
    if advice.wheel is None and advice.newest is not None:
        cmds = (*fixes.driver_install(inp.host, need=advice.need_driver or ""), *cmds)
    key = "torch.gpu_too_new" if too_new else "torch.gpu_too_old"
    return Finding(key, "error", params, cmds)


def _table_archs(inp: Inputs, tt: dict[str, Any]) -> list[str]:
    """The arch list of a known wheel (release + CUDA) from the catalog, when the machine's own
    list is not known (a pasted report that named only "2.8.0+cu128")."""
    version, cuda = str(tt.get("version") or ""), str(tt.get("cuda") or "")
    if not parse(version) or not parse(cuda) or "+cu" not in version:
        return []
    archs = inp.tables.wheel_archs(cuda, version)
    if archs is None:
        return []
    sass, ptx = archs
    out = [f"sm_{a.replace('.', '')}" for a in sass]
    return out + ([f"compute_{ptx.replace('.', '')}"] if ptx else [])


def no_kernel_image(inp: Inputs, tt: dict[str, Any]) -> list[Finding]:
    """ "no kernel image is available" was reported and the facts above could not say why:
    with the GPU known, the wheel that carries its code; else the commands that tell."""
    if not tt.get("no_kernel_image"):
        return []
    params: dict[str, Any] = {"version": tt.get("version") or "?", "cuda": tt.get("cuda") or "?"}
    names = _names(inp)
    if names and not tt.get("cuda"):
        cc, name = sorted(names.items())[-1]
        advice = advice_for(inp)
        params.update(cc=cc, name=name or cc, variant="gpu_known", **wheel_params(inp, advice))
        return [
            Finding(
                "torch.no_kernel_image",
                "error",
                params,
                (*fixes.pip_install_torch(inp.host, advice), ARCH_QUERY),
            )
        ]
    if not tt.get("cuda"):
        params["variant"] = "build_unknown"
    return [Finding("torch.no_kernel_image", "error", params, (fixes.GPU_QUERY, ARCH_QUERY))]


RULES = (driver_knows_gpu, arch_support)
IDS = (
    "nvidia.driver_predates_gpu",
    "torch.gpu_too_new",
    "torch.gpu_too_old",
    "torch.no_kernel_image",
)
