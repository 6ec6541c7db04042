"""`ollama serve` logs (journalctl, docker logs, server.log), with or without OLLAMA_DEBUG.

The server prints its configuration once ("server config" env="map[…]"), one "inference
compute" line per device it will use (library=cpu when none), and says why it skipped a GPU
("amdgpu is not supported (supported types:[…]) gpu_type=gfx1031", "NVIDIA driver too old").
"""

from __future__ import annotations

import re
from typing import Any

from gpuwise.doctor.paste.model import Block, line_span
from gpuwise.parse.ollama import relevant

_ANCHORS = re.compile(
    r'msg="server config"|server config env=|Listening on \S+ \(version|msg="inference compute"'
    r"|no compatible GPUs were discovered|amdgpu is not supported|NVIDIA driver too old"
    r"|offloaded \d+/\d+ layers to GPU|looking for compatible GPUs"
)
_VERSION = re.compile(r"Listening on \S+ \(version ([^)\s]+)\)")
_ENV = re.compile(r'env="?map\[([^\n]{0,8000}?)\]"?[ \t]*$', re.M)
_PAIR = re.compile(r"(?:^|\s)([A-Za-z_][A-Za-z0-9_]*):")
_COMPUTE = re.compile(r'msg="inference compute"(.*)$', re.M)
_KV = re.compile(r'(\w+)=("([^"]*)"|\S+)')
_AMD = re.compile(
    r"amdgpu is not supported \(supported types:\[([^\]\n]{0,2000})\]\)\"?\s+gpu_type=(\S+)"
)
_OFFLOAD = re.compile(r"offloaded (\d+)/(\d+) layers to GPU")
_UNIT_ENV = re.compile(r'Environment="?([A-Z][A-Z0-9_]*)=([^"\s]*)"?')
_WINDOW = 400_000


def parse_env_map(body: str) -> dict[str, str]:
    """KEY:value pairs of Go's map[...] print, values may be empty or contain spaces."""
    keys = list(_PAIR.finditer(body))
    out: dict[str, str] = {}
    for i, m in enumerate(keys):
        end = keys[i + 1].start() if i + 1 < len(keys) else len(body)
        out[m.group(1)] = body[m.end() : end].strip()
    return out


def parse(chunk: str) -> dict[str, Any]:
    """Server version, its environment, devices found, and why GPUs were skipped."""
    version = _VERSION.search(chunk)
    env_m = _ENV.search(chunk)
    env = parse_env_map(env_m.group(1)) if env_m else {}
    env = {k: v for k, v in env.items() if relevant(k) and v not in ("", "0", "false")}
    compute = []
    for m in _COMPUTE.finditer(chunk):
        kv = {
            k.group(1): (k.group(3) if k.group(3) is not None else k.group(2))
            for k in _KV.finditer(m.group(1))
        }
        compute.append(
            {k: kv.get(k, "") for k in ("library", "compute", "driver", "name", "total")}
        )
    offload = _OFFLOAD.findall(chunk)
    gpu_found = any(c["library"] not in ("", "cpu") for c in compute)
    unit_env = {m.group(1): m.group(2) for m in _UNIT_ENV.finditer(chunk) if relevant(m.group(1))}
    return {
        "version": version.group(1) if version else "",
        "env": env if env_m else None,
        "compute": compute,
        "no_gpu": "no compatible GPUs were discovered" in chunk
        or (bool(compute) and not gpu_found),
        "amd_unsupported": [
            {"gfx": m.group(2).strip('"'), "supported": m.group(1).split()}
            for m in _AMD.finditer(chunk)
        ],
        "driver_too_old": "NVIDIA driver too old" in chunk,
        "offload": [f"{a}/{b}" for a, b in offload][-3:],
        "unit_env": unit_env,
    }


def find(text: str) -> list[Block]:
    first = _ANCHORS.search(text)
    if first is None:
        return []
    last = first
    for m in _ANCHORS.finditer(text, first.start()):
        last = m
    unit = _UNIT_ENV.search(text)
    if unit and unit.start() < first.start():
        first = unit  # the unit's Environment= quoted before the log belongs to it
    start, _ = line_span(text, first.start())
    _, end = line_span(text, last.end())
    chunk = text[start : min(end, start + _WINDOW)]
    return [Block("ollama serve log", start, start + len(chunk), parse(chunk))]
