"""`python -m torch.utils.collect_env` (also pasted by vLLM/LLaMA-Factory issue templates).

Its "CUDA runtime version" is the system nvcc, not the wheel's runtime, and its "cuDNN version"
lists system files: neither is used as a fact about PyTorch here (env-knowledge §6).
"""

from __future__ import annotations

import re
from typing import Any

from gpuwise.doctor.paste.model import Block, fresh_hits

_ANCHOR = re.compile(r"^\s*PyTorch version:\s*(\S+)", re.M)
_FIELD = re.compile(r"^\s*([A-Za-z][A-Za-z /()_-]+?):\s*(.*?)\s*$", re.M)
_GPU_LINE = re.compile(r"GPU\s+\d+:\s*(.+)")
_LIB = re.compile(r"^\s*\[(pip3?|conda)\]\s+(\S+?)(?:==|\s+)(\S+)", re.M)
_NONE = ("", "could not collect", "none", "n/a", "no cuda")
_SPAN = 12_000


def _value(fields: dict[str, str], key: str) -> str:
    v = fields.get(key, "").strip()
    return "" if v.lower() in _NONE else v


def parse(chunk: str) -> dict[str, Any]:
    """Facts of one collect_env report."""
    fields: dict[str, str] = {}
    for m in _FIELD.finditer(chunk):
        fields.setdefault(m.group(1).strip(), m.group(2))
    gpus_text = fields.get("GPU models and configuration", "")
    start = chunk.find("GPU models and configuration")
    names: list[str] = []
    if start >= 0:
        tail = chunk[start : start + 2000].splitlines()
        names = [g.group(1).strip() for ln in tail[:17] if (g := _GPU_LINE.search(ln))]
        if not names and gpus_text and gpus_text.lower() not in _NONE:
            names = [gpus_text.strip()]
    avail = fields.get("Is CUDA available", "").strip().lower()
    packages: dict[str, str] = {}
    for m in _LIB.finditer(chunk):
        packages.setdefault(m.group(2).lower().replace("_", "-"), m.group(3))
    python = re.match(r"(\d+\.\d+(?:\.\d+)?)", fields.get("Python version", "").strip())
    return {
        "torch_version": _value(fields, "PyTorch version"),
        "cuda_build": _value(fields, "CUDA used to build PyTorch"),
        "rocm_build": _value(fields, "ROCM used to build PyTorch"),
        "is_available": {"true": True, "yes": True, "false": False, "no": False}.get(avail),
        "os": _value(fields, "OS"),
        "python": python.group(1) if python else "",
        "driver_version": _value(fields, "Nvidia driver version"),
        "nvcc_version": _value(fields, "CUDA runtime version"),
        "gpu_names": names,
        "packages": packages,
        "hip_runtime": _value(fields, "HIP runtime version"),
    }


def find(text: str) -> list[Block]:
    out: list[Block] = []
    for m in fresh_hits(_ANCHOR, text, out):
        window = text[m.start() : m.start() + _SPAN]
        if "Is CUDA available" not in window and "CUDA used to build" not in window:
            continue
        end = m.start() + len(window)
        out.append(Block("collect_env", m.start(), end, parse(window)))
    return out
