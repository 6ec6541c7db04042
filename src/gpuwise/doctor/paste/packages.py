"""`pip list`, `pip freeze` and `conda list` output: the PyTorch build and NVIDIA wheels.

A local version tag says the build: "2.5.1+cu124" is CUDA 12.4, "+cpu" a CPU build; conda's
pytorch build string says "cuda12.1" or "cpu". Only GPU-related packages are kept.
"""

from __future__ import annotations

import re
from typing import Any

from gpuwise.doctor.paste.model import Block, fresh_hits

_KEEP = (
    "torch",
    "nvidia-",
    "triton",
    "pytorch",
    "cudatoolkit",
    "cuda-version",
    "jax",
    "vllm",
    "xformers",
    "flash-attn",
    "bitsandbytes",
    "onnxruntime",
    "tensorflow",
    "cupy",
)
_PIP_HEADER = re.compile(r"^Package\s+Version\s*$\n^-+\s+-+", re.M)
_PIP_ROW = re.compile(r"^([A-Za-z0-9_.-]+)\s+(\d[^\s]*)\s*(?:\S*)$", re.M)
_FREEZE = re.compile(
    r"(?<![\w.-])(torch(?:[-_]npu|vision|audio)?|nvidia-[a-z0-9-]+|triton)==(\d[0-9A-Za-z.+]*)"
)
_CONDA_HEADER = re.compile(r"^# packages in environment at", re.M)
_CONDA_ROW = re.compile(r"^([A-Za-z0-9_.-]+)\s+(\d\S*)\s+(\S+)(?:\s+(\S+))?\s*$", re.M)


def _keep(name: str) -> bool:
    return name.lower().replace("_", "-").startswith(_KEEP)


def summarize(pkgs: dict[str, str], conda_builds: dict[str, str] | None = None) -> dict[str, Any]:
    """The torch build from the package list: version, CUDA or CPU, torch_npu."""
    torch = pkgs.get("torch") or pkgs.get("pytorch") or ""
    cuda = ""
    cpu = False
    tag = re.search(r"\+(cu(\d+)|cpu|rocm([\d.]+))", torch)
    if tag and tag.group(2):
        digits = tag.group(2)
        cuda = f"{digits[:-1]}.{digits[-1]}"
    elif tag and tag.group(1) == "cpu":
        cpu = True
    build = (conda_builds or {}).get("pytorch", "")
    m = re.search(r"cuda(\d+\.\d+)", build)
    if m:
        cuda = m.group(1)
    elif build.startswith("cpu"):
        cpu = True
    return {
        "packages": pkgs,
        "torch_version": torch,
        "cuda_build": cuda,
        "cpu_build": cpu,
        "rocm_build": tag.group(3) if tag and tag.group(3) else "",
        # PyPI's untagged wheel is a CUDA build on Linux and a CPU build on Windows: unknown here
        "build_unknown": bool(torch) and not cuda and not cpu and not (tag and tag.group(3)),
    }


def find(text: str) -> list[Block]:
    out: list[Block] = []
    for m in fresh_hits(_PIP_HEADER, text, out):
        end = text.find("\n\n", m.end())
        end = len(text) if end < 0 else end
        pkgs = {
            r.group(1).lower().replace("_", "-"): r.group(2)
            for r in _PIP_ROW.finditer(text, m.end(), end)
            if _keep(r.group(1))
        }
        if pkgs:
            out.append(Block("pip list", m.start(), end, summarize(pkgs)))
    frozen = list(_FREEZE.finditer(text))
    if frozen:
        pkgs = {r.group(1).lower().replace("_", "-"): r.group(2) for r in frozen}
        out.append(Block("pip freeze", frozen[0].start(), frozen[-1].end(), summarize(pkgs)))
    for m in fresh_hits(_CONDA_HEADER, text, out):
        end = text.find("\n\n", m.end())
        end = len(text) if end < 0 else end
        pkgs, builds = {}, {}
        for r in _CONDA_ROW.finditer(text, m.end(), end):
            if _keep(r.group(1)):
                key = r.group(1).lower().replace("_", "-")
                pkgs[key], builds[key] = r.group(2), r.group(3)
        if pkgs:
            out.append(Block("conda list", m.start(), end, summarize(pkgs, builds)))
    return out
