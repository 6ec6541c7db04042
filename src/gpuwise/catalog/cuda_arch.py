"""GPU architecture (compute capability) against what a PyTorch build contains.

CUDA binaries (SASS) built for sm_XY run on GPUs of the same major version X with minor ≥ Y;
PTX built for compute_XY can be JIT-compiled by the driver for any GPU of capability ≥ X.Y.
(CUDA C++ Programming Guide, "Binary Compatibility" / "PTX Compatibility".)
"""

from __future__ import annotations

import re

from gpuwise.catalog.versions import parse

_ARCH = re.compile(r"^(sm|compute)_(\d+)([a-z]?)$")


def arch_to_cc(arch: str) -> tuple[str, str] | None:
    """ "sm_86" → ("sass", "8.6"); "compute_120" → ("ptx", "12.0"); None for gfx targets."""
    m = _ARCH.match(arch.strip())
    if not m or len(m.group(2)) < 2:
        return None
    digits = m.group(2)
    kind = "sass" if m.group(1) == "sm" else "ptx"
    return kind + ("-exact" if m.group(3) else ""), f"{int(digits[:-1])}.{digits[-1]}"


def covered(cc: str, sass: list[str], ptx: list[str]) -> bool:
    """Whether a GPU of capability `cc` can run code built for these SASS / PTX targets."""
    gpu = parse(cc)
    if not gpu or len(gpu) < 2:
        return True  # unknown capability: nothing to say
    for target in sass:
        t = parse(target)
        if t and len(t) >= 2 and t[0] == gpu[0] and t[1] <= gpu[1]:
            return True
    return any((p := parse(target)) is not None and p <= gpu for target in ptx)


def split_arch_list(arch_list: list[str]) -> tuple[list[str], list[str]]:
    """torch.cuda.get_arch_list() as (SASS capabilities, PTX capabilities)."""
    sass: list[str] = []
    ptx: list[str] = []
    for arch in arch_list:
        parsed = arch_to_cc(arch)
        if parsed is None or parsed[0] == "sass-exact":
            continue
        (ptx if parsed[0].startswith("ptx") else sass).append(parsed[1])
    return sass, ptx


def torch_runs_on(arch_list: list[str], cc: str) -> bool | None:
    """Whether a PyTorch build with this arch list can run on a GPU of capability `cc`.

    None when the list says nothing about CUDA targets (CPU or ROCm builds, or an empty list).
    """
    sass, ptx = split_arch_list(arch_list)
    if not sass and not ptx:
        return None
    return covered(cc, sass, ptx)
