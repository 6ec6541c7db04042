"""Recognised blocks → facts shaped like the probes' results, with where each came from.

Only what the paste shows becomes a fact. A probe with nothing pasted for it is absent (unknown),
never "Missing" (which means "not installed"), so no rule concludes anything from silence; and
nothing is read from the machine running gpuwise.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from gpuwise.doctor.paste import (
    collect_env,
    docker,
    errors,
    kernel,
    npu,
    ollama_log,
    packages,
    rocm,
    smi,
    tools,
)
from gpuwise.doctor.paste.model import Block, Text
from gpuwise.doctor.paste.routes import Acc, route
from gpuwise.parse.result import Failed, Found, ProbeResult
from gpuwise.parse.view import Facts

FINDERS = (
    smi.find,
    collect_env.find,
    packages.find,
    ollama_log.find,
    rocm.find,
    npu.find,
    docker.find,
    kernel.find,
    tools.find,
    errors.find,
)


@dataclass
class Pasted:
    """Facts by probe name, and for each probe the blocks its facts came from."""

    facts: Facts = field(default_factory=dict)
    origins: dict[str, list[str]] = field(default_factory=dict)
    blocks: list[tuple[str, Block]] = field(default_factory=list)


# Loose matches (a version named in prose, `pkg==x.y` lines): dropped inside the output of a
# tool that already read the same line in its context (the "Driver Version:" of an nvidia-smi
# table, the "[pip3] torch==…" lines of collect_env).
_READS_ALL = frozenset(
    {
        "nvidia-smi",
        "nvidia-smi -q",
        "nvidia-smi -q -x",
        "nvidia-smi error",
        "collect_env",
        "pip list",
        "conda list",
        "ollama serve log",
    }
)
_WEAK = frozenset(
    {
        "PyTorch version mentioned",
        "Python version mentioned",
        "driver version mentioned",
        "pip freeze",
    }
)


def _drop_nested_weak(found: list[Block]) -> list[Block]:
    strong = sorted((b for b in found if b.kind in _READS_ALL), key=lambda b: b.start)
    starts = [b.start for b in strong]
    reach: list[int] = []  # furthest end among the strong blocks starting up to here
    for b in strong:
        reach.append(max(b.end, reach[-1] if reach else 0))

    def inside(b: Block) -> bool:
        i = bisect.bisect_right(starts, b.start) - 1
        return i >= 0 and reach[i] >= b.end

    return [b for b in found if b.kind not in _WEAK or not inside(b)]


def find_blocks(texts: Iterable[Text]) -> list[tuple[Text, Block]]:
    """Every recognised block of every pasted text, in order of appearance."""
    out: list[tuple[Text, Block]] = []
    for src in texts:
        found = _drop_nested_weak([b for finder in FINDERS for b in finder(src.text)])
        out += [(src, b) for b in sorted(found, key=lambda b: b.start)]
    return out


def label(src: Text, b: Block) -> str:
    """ "nvidia-smi (report.txt, lines 3–20)"."""
    first, last = src.line(b.start), src.line(max(b.start, b.end - 1))
    where = f"{first}" if first == last else f"{first}–{last}"
    return f"{b.kind} ({src.name}:{where})"


# Which block wins when two disagree: a tool's own output over a report that quotes it
# (collect_env's "OS:" line, its nvcc version) over a version named in prose. Within a rank the
# first block wins, so the facts do not depend on the order things were pasted in.
_AUTHORITY = {
    **dict.fromkeys(
        (
            "nvidia-smi",
            "nvidia-smi -q",
            "nvidia-smi -q -x",
            "nvidia-smi error",
            "nvcc --version",
            "/etc/os-release",
            "uname -a",
            "WSL kernel",
            "rocm-smi --json",
            "rocm-smi",
            "npu-smi info",
            "npu-smi error",
            "docker info",
            "/proc/driver/nvidia/version",
            "dpkg -l",
            "lsmod",
            "pip list",
            "conda list",
        ),
        0,
    ),
    **dict.fromkeys(_WEAK, 2),
    "Python path in a traceback": 2,
}


def assemble(items: list[tuple[Text, Block]]) -> Pasted:
    """Facts for the rules, from the recognised blocks."""
    acc = Acc()
    labels = [label(src, b) for src, b in items]
    ranked = sorted(range(len(items)), key=lambda i: _AUTHORITY.get(items[i][1].kind, 1))
    for i in ranked:
        route(acc, items[i][1], labels[i])
    seen_at = {lbl: i for i, lbl in reversed(list(enumerate(labels)))}
    origins = {p: sorted(ws, key=lambda w: seen_at.get(w, 0)) for p, ws in acc.origins.items()}
    acc.smi_errors.sort(key=lambda e: seen_at.get(e[0], 0))
    out = Pasted(origins=origins, blocks=list(zip(labels, [b for _, b in items], strict=True)))
    out.facts = _results(acc)
    return out


def _results(acc: Acc) -> Facts:
    """Probe-shaped results: Found for what was seen, Failed for tools that reported errors."""
    smi_errors = acc.smi_errors
    out: Facts = {}
    for probe, data in acc.data.items():
        result = _result(probe, data)
        if result is not None:
            out[probe] = result
    if smi_errors:
        _, err = smi_errors[-1]
        detail = err["detail"] + (
            f" / NVML library version: {err['nvml_library']}" if err.get("nvml_library") else ""
        )
        facts = acc.data.get("nvidia_smi", {})
        out["nvidia_smi"] = Failed(err["reason"], detail, facts)
    if "system" in out:
        facts = dict(out["system"].facts)
        facts.setdefault("python_executable", "python")
        out["system"] = Found(facts)
    return out


def _result(probe: str, data: dict[str, Any]) -> ProbeResult | None:
    if probe == "ascend" and isinstance(data.get("dcmi_code"), int):
        return Failed("dcmi", f"ret is {data['dcmi_code']}", data)
    if probe == "nccl_smoke":
        if data.get("timeout"):
            return Failed("timeout", data["timeout"], data)
        detail = data.get("error") or "; ".join(data.get("stderr_tail") or [])
        if detail:
            return Failed("collective_failed", str(detail)[-500:], data)
        return None  # an NCCL log without errors says nothing about a failure
    if (
        probe == "torch"
        and data.get("import_error")
        and not (data.get("torch") or {}).get("version")
    ):
        return Failed("import_failed", str(data["import_error"]), data)
    if probe == "container":
        data.setdefault("in_container", False if data.get("docker") else None)
        data.setdefault("toolkit", {})
    return Found(data)
