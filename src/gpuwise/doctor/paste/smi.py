"""nvidia-smi as people paste it: the table, `-q` text, `-q -x` XML, and its error messages.

The table header carries the driver and the highest CUDA it supports ("CUDA Version", not the
toolkit); each GPU row names the card (cut short with "..." by older drivers), the driver model
on Windows (WDDM/TCC) and, one row down, the memory in use.
"""

from __future__ import annotations

import re
from typing import Any

from gpuwise.doctor.paste.model import Block, fresh_hits, hits, line_span
from gpuwise.parse.nvidia_smi import classify_error, parse_nvidia_smi_xml

MIB = 1024 * 1024
_HEADER = re.compile(
    r"NVIDIA-SMI\s+(\S+)\s+Driver Version:\s*(\S+)(?:\s+CUDA Version:\s*([\d.]+|ERR!|N/A))?"
)
_GPU_ROW = re.compile(
    r"^\|\s+(\d+)\s+(.+?)\s+(On|Off|WDDM|TCC)\s*\|\s+([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d)"
)
_MEM = re.compile(r"(\d+)MiB\s*/\s*(\d+)MiB")
_PROC = re.compile(r"^\|\s+(\d+)\s+(?:\S+\s+\S+\s+)?(\d+)\s+([CG+]+)\s+(.+?)\s+(\d+)MiB\s*\|")
_ERRORS = re.compile(
    r"NVIDIA-SMI has failed because it couldn'?.t communicate with the NVIDIA driver[^\n]*"
    r"|Failed to initialize NVML:[^\n]*"
    r"|No devices were found"
    r"|Unable to determine the device handle for GPU[^\n]*"
    r"|nvidia-smi: (?:command )?not found"
)
_NVML_LIB = re.compile(r"NVML library version:\s*(\d+(?:\.\d+)+)")
_Q_ANCHOR = re.compile(r"=+NVSMI LOG=+")
_XML_ANCHOR = re.compile(r"<nvidia_smi_log")
_Q_FIELD = re.compile(
    r"^\s*(Driver Version|CUDA Version|Attached GPUs|Product Name|Total)\s*:\s*(.+?)\s*$", re.M
)


def _table_end(text: str, pos: int) -> int:
    """End of a table: the first line after `pos` that is not part of it."""
    for m in re.finditer(r"\n", text[pos : pos + 200_000]):
        nxt = text[pos + m.end() : pos + m.end() + 2]
        if nxt and nxt[0] not in "|+ \t" and not nxt.startswith("\n"):
            return pos + m.end()
    return min(len(text), pos + 200_000)


def parse_table(chunk: str) -> dict[str, Any]:
    """Driver, CUDA, GPUs (name, bus, memory, Windows driver model), processes from a table."""
    head = _HEADER.search(chunk)
    lines = chunk.splitlines()
    gpus: list[dict[str, Any]] = []
    procs: list[dict[str, Any]] = []
    for i, line in enumerate(lines):
        m = _GPU_ROW.match(line)
        if m:
            name = m.group(2).strip()
            model = next((w for w in ("WDDM", "TCC") if re.search(rf"\b{w}\b", line)), "")
            name = re.sub(r"\s+(WDDM|TCC)$", "", name).strip()
            mem = _MEM.search(lines[i + 1]) if i + 1 < len(lines) else None
            gpus.append(
                {
                    "index": int(m.group(1)),
                    "name": name,
                    "pci_bus_id": m.group(4),
                    "driver_model": model or None,
                    "memory_used_bytes": int(mem.group(1)) * MIB if mem else None,
                    "memory_total_bytes": int(mem.group(2)) * MIB if mem else None,
                    "compute_capability": None,
                    "processes": [],
                    "throttle_active": [],
                }
            )
            continue
        p = _PROC.match(line)
        if p and gpus:
            procs.append(
                {
                    "gpu": int(p.group(1)),
                    "pid": int(p.group(2)),
                    "type": p.group(3),
                    "name": p.group(4)[:200],
                    "used_memory_bytes": int(p.group(5)) * MIB,
                }
            )
    for proc in procs:
        for g in gpus:
            if g["index"] == proc["gpu"]:
                g["processes"].append({k: v for k, v in proc.items() if k != "gpu"})
    cuda = head.group(3) if head and head.group(3) not in (None, "ERR!", "N/A") else ""
    return {
        "smi_version": head.group(1) if head else "",
        "driver_version": head.group(2) if head else "",
        "cuda_version": cuda,
        "gpus": gpus,
    }


def find_tables(text: str) -> list[Block]:
    out: list[Block] = []
    for m in fresh_hits(_HEADER, text, out):
        start, _ = line_span(text, m.start())
        end = _table_end(text, m.end())
        out.append(Block("nvidia-smi", start, end, parse_table(text[start:end])))
    return out


def find_query(text: str) -> list[Block]:
    """`nvidia-smi -q` text: driver, CUDA and product names."""
    out: list[Block] = []
    for m in fresh_hits(_Q_ANCHOR, text, out):
        end = min(len(text), m.end() + 60_000)
        chunk = text[m.end() : end]
        fields: dict[str, list[str]] = {}
        for f in _Q_FIELD.finditer(chunk):
            fields.setdefault(f.group(1), []).append(f.group(2))
        names = fields.get("Product Name") or []
        totals = [int(x.split()[0]) for x in fields.get("Total") or [] if x.split()[0].isdigit()]
        gpus: list[dict[str, Any]] = [
            {
                "index": i,
                "name": n,
                "compute_capability": None,
                "processes": [],
                "throttle_active": [],
                "memory_total_bytes": totals[i * 3] * MIB if len(totals) > i * 3 else None,
            }
            for i, n in enumerate(names)
        ]
        out.append(
            Block(
                "nvidia-smi -q",
                m.start(),
                end,
                {
                    "driver_version": (fields.get("Driver Version") or [""])[0],
                    "cuda_version": (fields.get("CUDA Version") or [""])[0],
                    "gpus": gpus,
                },
            )
        )
    return out


def find_xml(text: str) -> list[Block]:
    out: list[Block] = []
    for m in fresh_hits(_XML_ANCHOR, text, out):
        end_tag = text.find("</nvidia_smi_log>", m.start())
        nxt = text.find("<nvidia_smi_log", m.end())  # an unclosed document ends at the next
        end = len(text) if end_tag < 0 else end_tag + len("</nvidia_smi_log>")
        end = end if nxt < 0 else min(end, nxt)
        try:
            facts = parse_nvidia_smi_xml(text[m.start() : end])
        except ValueError:
            continue
        out.append(Block("nvidia-smi -q -x", m.start(), end, facts))
    return out


def find_errors(text: str) -> list[Block]:
    """nvidia-smi / NVML failures, with the library version a mismatch message adds."""
    out: list[Block] = []
    for m in hits(_ERRORS, text):
        start, end = line_span(text, m.start())
        msg = m.group(0).strip()
        nxt = _NVML_LIB.search(text, m.end(), min(len(text), m.end() + 200))
        if "not found" in msg:
            reason = "not_installed"
        elif "couldn" in msg:
            reason = "driver_not_loaded"
        else:
            reason = classify_error(msg)
        out.append(
            Block(
                "nvidia-smi error",
                start,
                nxt.end() if nxt else end,
                {
                    "reason": reason,
                    "detail": msg[:300],
                    "nvml_library": nxt.group(1) if nxt else "",
                },
            )
        )
    return out


def find(text: str) -> list[Block]:
    """Every nvidia-smi block: tables, -q text, XML, and failures."""
    return [*find_tables(text), *find_query(text), *find_xml(text), *find_errors(text)]
