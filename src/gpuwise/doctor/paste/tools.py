"""Other tools' output: `nvcc --version`, NCCL_DEBUG=INFO logs."""

from __future__ import annotations

import re

from gpuwise.doctor.paste.model import Block, fresh_hits, line_span
from gpuwise.parse.nvcc import parse_nvcc_version

_NVCC = re.compile(r"nvcc: NVIDIA \(R\) Cuda compiler driver")
_NCCL_LINE = re.compile(r"^.*\bNCCL (?:INFO|WARN|version)\b.*$", re.M)
_NCCL_VERSION = re.compile(r"NCCL version (\d+\.\d+\.\d+)")
_FAILURE = re.compile(r"error|fail|unhandled|no space|timeout|timed out", re.I)


def find(text: str) -> list[Block]:
    out: list[Block] = []
    for m in fresh_hits(_NVCC, text, out):
        window = text[m.start() : m.start() + 600]
        version = parse_nvcc_version(window)
        if version:
            out.append(
                Block("nvcc --version", m.start(), m.start() + len(window), {"version": version})
            )
    lines = [m for m in _NCCL_LINE.finditer(text)]
    if lines:
        body = [m.group(0).strip() for m in lines]
        warns = [ln for ln in body if "NCCL WARN" in ln and _FAILURE.search(ln)]
        found = _NCCL_VERSION.search(text)
        start, _ = line_span(text, lines[0].start())
        out.append(
            Block(
                "NCCL log",
                start,
                lines[-1].end(),
                {
                    "nccl_version": found.group(1) if found else "",
                    "warns": warns[-20:],
                    "lines": len(body),
                },
            )
        )
    return out
