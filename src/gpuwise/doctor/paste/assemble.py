"""Recognised blocks → facts shaped like the probes' results, with where each came from.

Only what the paste shows becomes a fact. A probe with nothing pasted for it is absent (unknown),
never "Missing" (which means "not installed"), so no rule concludes anything from silence; and
nothing is read from the machine running gpuwise.
"""

from __future__ import annotations

import bisect
import re
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
_DISTRO_WORDS = {
    "ubuntu": "ubuntu",
    "debian": "debian",
    "centos": "centos",
    "rocky": "rocky",
    "red hat": "rhel",
    "fedora": "fedora",
    "opensuse": "opensuse",
    "arch": "arch",
    "openeuler": "openeuler",
    "kylin": "kylin",
}


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


class _Acc:
    """Collects facts per probe and remembers the blocks they came from."""

    def __init__(self) -> None:
        self.data: dict[str, dict[str, Any]] = {}
        self.origins: dict[str, list[str]] = {}

    def put(self, probe: str, where: str, **facts: Any) -> dict[str, Any]:
        """Add facts; one already known is kept (blocks come most authoritative first)."""
        d = self.data.setdefault(probe, {})
        for k, v in facts.items():
            if k not in d or d[k] in (None, "", [], {}):
                d[k] = v
        if where not in self.origins.setdefault(probe, []):
            self.origins[probe].append(where)
        return d


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
    acc = _Acc()
    errors_seen: list[tuple[str, dict[str, Any]]] = []
    labels = [label(src, b) for src, b in items]
    ranked = sorted(range(len(items)), key=lambda i: _AUTHORITY.get(items[i][1].kind, 1))
    for i in ranked:
        _route(acc, items[i][1], labels[i], errors_seen)
    seen_at = {lbl: i for i, lbl in reversed(list(enumerate(labels)))}
    origins = {p: sorted(ws, key=lambda w: seen_at.get(w, 0)) for p, ws in acc.origins.items()}
    errors_seen.sort(key=lambda e: seen_at.get(e[0], 0))
    out = Pasted(origins=origins, blocks=list(zip(labels, [b for _, b in items], strict=True)))
    out.facts = _results(acc, errors_seen)
    return out


def _route(acc: _Acc, b: Block, where: str, smi_errors: list[tuple[str, dict[str, Any]]]) -> None:
    f = b.facts
    kind = b.kind
    if kind in ("nvidia-smi", "nvidia-smi -q", "nvidia-smi -q -x"):
        acc.put(
            "nvidia_smi", where, **{k: f.get(k) for k in ("driver_version", "cuda_version", "gpus")}
        )
    elif kind == "nvidia-smi error":
        smi_errors.append((where, f))
        acc.origins.setdefault("nvidia_smi", []).append(where)
    elif kind == "collect_env":
        _collect_env(acc, f, where)
    elif kind in ("pip list", "pip freeze", "conda list"):
        d = acc.put("torch", where)
        _add_packages(d, f["packages"])
        _torch(
            acc,
            where,
            version=f["torch_version"],
            cuda=f["cuda_build"],
            hip=f["rocm_build"],
            cpu_build=f["cpu_build"] or None,
            build_unknown=f["build_unknown"] or None,
        )
    elif kind == "ollama serve log":
        server = {"env": f["env"]} if f.get("env") is not None else {}
        acc.put("ollama", where, version=f["version"], log=f, server=server, unit_env=f["unit_env"])
    elif kind in ("rocm-smi --json", "rocm-smi", "rocminfo / amd-smi", "lspci (AMD GPU)"):
        d = acc.put("amd", where)
        d.setdefault("cards", []).extend(f.get("cards") or [])
        if f.get("driver_version"):
            d["driver_version"] = f["driver_version"]
    elif kind == "/dev/kfd access":
        devices = {"kfd": True, "kfd_rw": f["kfd_rw"], "kfd_group": f["kfd_group"]}
        acc.put("kernel", where, devices=devices, groups=f["groups"])
    elif kind in ("npu-smi info", "npu-smi error", "CANN version"):
        acc.put("ascend", where, **f)
    elif kind in ("docker info", "docker run error"):
        d = acc.put("container", where)
        d.setdefault("docker", {"installed": True}).update(f)
    elif kind in ("container shell prompt", "docker run -it (the rest ran inside)"):
        acc.put("container", where, in_container=True)
    else:
        _route_more(acc, b, where)


def _route_more(acc: _Acc, b: Block, where: str) -> None:
    f = b.facts
    kind = b.kind
    if kind == "dmesg (NVRM)":
        acc.put("kmsg", where, **f)
    elif kind == "/proc/driver/nvidia/version":
        acc.put("kernel", where, nvidia_module_version=f["nvidia_module_version"])
    elif kind == "lsmod":
        acc.put("kernel", where, modules=f["modules"])
    elif kind in ("uname -a", "WSL kernel"):
        acc.put("system", where, os="Linux", kernel=f["kernel"])
        version = _wsl_version(f["kernel"])
        if version:
            acc.put("wsl", where, version=version, kernel=f["kernel"])
    elif kind == "/etc/os-release":
        rel = f["os_release"]
        acc.put(
            "system",
            where,
            os="Linux",
            distro_id=rel.get("ID", ""),
            distro_version=rel.get("VERSION_ID", ""),
            distro_name=rel.get("PRETTY_NAME") or rel.get("NAME", ""),
            package_manager=f["package_manager"],
        )
    elif kind == "WSL issue template":
        acc.put("wsl", where, version=f["wsl_version"])
        acc.put("system", where, os="Linux")
    elif kind == "dpkg -l":
        acc.put("kernel", where, driver_packages=f["driver_packages"])
        # dpkg manages the packages: apt repairs them (os-release, when pasted, says more)
        acc.data.setdefault("system", {}).setdefault("package_manager", "apt")
    elif kind == "hostnamectl":
        acc.put(
            "system",
            where,
            os="Linux",
            distro_name=f["os_name"],
            distro_id=_distro_id(f["os_name"]),
        )
    elif kind == "nvcc --version":
        acc.put("toolkit", where, nvcc=[{"path": "nvcc", "version": f["version"], "error": ""}])
    elif kind == "NCCL log":
        acc.put("nccl_smoke", where, nccl_version=f["nccl_version"], stderr_tail=f["warns"])
    elif kind == "NCCL error":
        acc.put("nccl_smoke", where, error=f["nccl_error"])
    elif kind == "NCCL watchdog timeout":
        acc.put("nccl_smoke", where, timeout=f["nccl_timeout"])
    elif kind in ("PyTorch version mentioned",):
        _torch(acc, where, **f)
    elif kind == "Python version mentioned":
        d = acc.put("torch", where)
        d.setdefault("python", {"version": f["python_version"], "executable": "python"})
    elif kind == "driver version mentioned":
        # kept where PyTorch's own report of the driver goes; listed as a driver fact
        acc.data.setdefault("torch", {}).setdefault("driver_version", f["driver_version"])
        acc.origins.setdefault("nvidia_smi", []).append(where)
    elif kind == "echo $LD_LIBRARY_PATH":
        acc.put("torch", where, ld_library_path=f["ld_library_path"])
    elif kind == "Python path in a traceback":
        d = acc.put("torch", where)
        d.setdefault("python", {"version": f["python_version"], "executable": "python"})
    elif kind == "torch_npu import error":
        acc.put("torch", where, import_error=f["npu_import_error"])
    else:
        _traceback(acc, b, where)


def _traceback(acc: _Acc, b: Block, where: str) -> None:
    f = dict(b.facts)
    device = f.pop("device", None)
    if device is not None:
        t = _torch(acc, where, cuda="?" if not _torch_dict(acc).get("cuda") else None)
        t.setdefault("devices", []).append(device)
    if "arch_list" in f:
        _torch(acc, where, arch_list=f.pop("arch_list"))
    if f.get("driver_too_old") and not _torch_dict(acc).get("cuda"):
        f["cuda"] = "?"  # a CUDA build, newer than the driver; which one is not shown
    if f:
        _torch(acc, where, **f)


def _add_packages(d: dict[str, Any], packages: dict[str, str]) -> None:
    known = d.setdefault("packages", {})
    for name, version in packages.items():
        known.setdefault(name, version)


def _torch_dict(acc: _Acc) -> dict[str, Any]:
    return acc.data.get("torch", {}).get("torch") or {}


def _torch(acc: _Acc, where: str, **facts: Any) -> dict[str, Any]:
    """Set facts of the `torch` part (version, build, flags), keeping known ones."""
    d = acc.put("torch", where)
    t: dict[str, Any] = d.setdefault("torch", {})
    for k, v in facts.items():
        if v is not None and v != "" and (k not in t or t[k] in (None, "", "?")):
            t[k] = v
    return t


def _collect_env(acc: _Acc, f: dict[str, Any], where: str) -> None:
    d = acc.put("torch", where, driver_version=f["driver_version"])
    _add_packages(d, f["packages"])
    if f["python"]:
        d.setdefault("python", {"version": f["python"], "executable": "python"})
    t = _torch(
        acc,
        where,
        version=f["torch_version"],
        cuda=f["cuda_build"],
        hip=f["rocm_build"],
        is_available=f["is_available"],
    )
    if f["gpu_names"]:
        t["gpu_names"] = f["gpu_names"]
    if f["os"]:
        os_name = (
            "Windows"
            if "windows" in f["os"].lower()
            else ("Darwin" if "mac" in f["os"].lower() else "Linux")
        )
        acc.put(
            "system",
            where,
            os=os_name,
            distro_name=f["os"],
            distro_id=_distro_id(f["os"]),
            python=f["python"],
        )
    if f["nvcc_version"]:
        acc.put(
            "toolkit",
            where,
            nvcc=[{"path": "nvcc (collect_env)", "version": f["nvcc_version"], "error": ""}],
        )


def _distro_id(name: str) -> str:
    low = name.lower()
    return next((v for k, v in _DISTRO_WORDS.items() if k in low), "")


def _wsl_version(kernel_release: str) -> int:
    low = kernel_release.lower()
    if "microsoft-standard" in low or "wsl2" in low:
        return 2
    return 1 if low.endswith("-microsoft") or re.search(r"-\d+-microsoft", low) else 0


def _results(acc: _Acc, smi_errors: list[tuple[str, dict[str, Any]]]) -> Facts:
    """Probe-shaped results: Found for what was seen, Failed for tools that reported errors."""
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
