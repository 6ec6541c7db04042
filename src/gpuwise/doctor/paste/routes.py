"""Where each kind of recognised block puts its facts: one small handler per block kind.

The handlers fill an :class:`Acc` (facts per probe, in the probes' shapes, plus the blocks each
came from); assemble.py decides the order (most authoritative block first) and turns the result
into probe results. A table instead of one long if/elif chain: adding a block kind is one entry
and one function, and each handler can be read alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from gpuwise.doctor.paste.model import Block

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


class Acc:
    """Collects facts per probe and remembers the blocks they came from."""

    def __init__(self) -> None:
        self.data: dict[str, dict[str, Any]] = {}
        self.origins: dict[str, list[str]] = {}
        self.smi_errors: list[tuple[str, dict[str, Any]]] = []

    def put(self, probe: str, where: str, **facts: Any) -> dict[str, Any]:
        """Add facts; one already known is kept (blocks come most authoritative first)."""
        d = self.data.setdefault(probe, {})
        for k, v in facts.items():
            if k not in d or d[k] in (None, "", [], {}):
                d[k] = v
        if where not in self.origins.setdefault(probe, []):
            self.origins[probe].append(where)
        return d


Handler = Callable[[Acc, dict[str, Any], str], None]


def route(acc: Acc, b: Block, where: str) -> None:
    """Put one block's facts where the rules look for them (unknown kinds: a traceback)."""
    handler = ROUTES.get(b.kind)
    if handler is None:
        _traceback(acc, b, where)
    else:
        handler(acc, b.facts, where)


# ---------------------------------------------------------------- NVIDIA, AMD, Ascend


def _nvidia_smi(acc: Acc, f: dict[str, Any], where: str) -> None:
    keys = ("driver_version", "cuda_version", "gpus")
    acc.put("nvidia_smi", where, **{k: f.get(k) for k in keys})


def _nvidia_smi_error(acc: Acc, f: dict[str, Any], where: str) -> None:
    acc.smi_errors.append((where, f))
    acc.origins.setdefault("nvidia_smi", []).append(where)


def _amd(acc: Acc, f: dict[str, Any], where: str) -> None:
    d = acc.put("amd", where)
    d.setdefault("cards", []).extend(f.get("cards") or [])
    if f.get("driver_version"):
        d["driver_version"] = f["driver_version"]


def _kfd(acc: Acc, f: dict[str, Any], where: str) -> None:
    devices = {"kfd": True, "kfd_rw": f["kfd_rw"], "kfd_group": f["kfd_group"]}
    acc.put("kernel", where, devices=devices, groups=f["groups"])


def _ascend(acc: Acc, f: dict[str, Any], where: str) -> None:
    acc.put("ascend", where, **f)


def _driver_mentioned(acc: Acc, f: dict[str, Any], where: str) -> None:
    # kept where PyTorch's own report of the driver goes; listed as a driver fact
    acc.data.setdefault("torch", {}).setdefault("driver_version", f["driver_version"])
    acc.origins.setdefault("nvidia_smi", []).append(where)


# ---------------------------------------------------------------- containers, kernel, system


def _docker(acc: Acc, f: dict[str, Any], where: str) -> None:
    d = acc.put("container", where)
    d.setdefault("docker", {"installed": True}).update(f)


def _inside_container(acc: Acc, f: dict[str, Any], where: str) -> None:
    acc.put("container", where, in_container=True)


def _kmsg(acc: Acc, f: dict[str, Any], where: str) -> None:
    acc.put("kmsg", where, **f)


def _nvidia_module(acc: Acc, f: dict[str, Any], where: str) -> None:
    acc.put("kernel", where, nvidia_module_version=f["nvidia_module_version"])


def _lsmod(acc: Acc, f: dict[str, Any], where: str) -> None:
    acc.put("kernel", where, modules=f["modules"])


def _uname(acc: Acc, f: dict[str, Any], where: str) -> None:
    acc.put("system", where, os="Linux", kernel=f["kernel"])
    version = _wsl_version(f["kernel"])
    if version:
        acc.put("wsl", where, version=version, kernel=f["kernel"])


def _os_release(acc: Acc, f: dict[str, Any], where: str) -> None:
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


def _wsl_template(acc: Acc, f: dict[str, Any], where: str) -> None:
    acc.put("wsl", where, version=f["wsl_version"])
    acc.put("system", where, os="Linux")


def _dpkg(acc: Acc, f: dict[str, Any], where: str) -> None:
    acc.put("kernel", where, driver_packages=f["driver_packages"])
    # dpkg manages the packages: apt repairs them (os-release, when pasted, says more)
    acc.data.setdefault("system", {}).setdefault("package_manager", "apt")


def _hostnamectl(acc: Acc, f: dict[str, Any], where: str) -> None:
    name = f["os_name"]
    acc.put("system", where, os="Linux", distro_name=name, distro_id=_distro_id(name))


def _nvcc(acc: Acc, f: dict[str, Any], where: str) -> None:
    acc.put("toolkit", where, nvcc=[{"path": "nvcc", "version": f["version"], "error": ""}])


# ---------------------------------------------------------------- NCCL, Ollama


def _nccl_log(acc: Acc, f: dict[str, Any], where: str) -> None:
    acc.put("nccl_smoke", where, nccl_version=f["nccl_version"], stderr_tail=f["warns"])


def _nccl_error(acc: Acc, f: dict[str, Any], where: str) -> None:
    acc.put("nccl_smoke", where, error=f["nccl_error"])


def _nccl_timeout(acc: Acc, f: dict[str, Any], where: str) -> None:
    acc.put("nccl_smoke", where, timeout=f["nccl_timeout"])


def _ollama_log(acc: Acc, f: dict[str, Any], where: str) -> None:
    server = {"env": f["env"]} if f.get("env") is not None else {}
    acc.put("ollama", where, version=f["version"], log=f, server=server, unit_env=f["unit_env"])


# ---------------------------------------------------------------- PyTorch and Python


def _packages(acc: Acc, f: dict[str, Any], where: str) -> None:
    _add_packages(acc.put("torch", where), f["packages"])
    _torch(
        acc,
        where,
        version=f["torch_version"],
        cuda=f["cuda_build"],
        hip=f["rocm_build"],
        cpu_build=f["cpu_build"] or None,
        build_unknown=f["build_unknown"] or None,
    )


def _torch_mentioned(acc: Acc, f: dict[str, Any], where: str) -> None:
    _torch(acc, where, **f)


def _python_version(acc: Acc, f: dict[str, Any], where: str) -> None:
    d = acc.put("torch", where)
    d.setdefault("python", {"version": f["python_version"], "executable": "python"})


def _ld_library_path(acc: Acc, f: dict[str, Any], where: str) -> None:
    acc.put("torch", where, ld_library_path=f["ld_library_path"])


def _torch_npu_error(acc: Acc, f: dict[str, Any], where: str) -> None:
    acc.put("torch", where, import_error=f["npu_import_error"])


def _collect_env(acc: Acc, f: dict[str, Any], where: str) -> None:
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
        low = f["os"].lower()
        os_name = "Windows" if "windows" in low else ("Darwin" if "mac" in low else "Linux")
        acc.put(
            "system",
            where,
            os=os_name,
            distro_name=f["os"],
            distro_id=_distro_id(f["os"]),
            python=f["python"],
        )
    if f["nvcc_version"]:
        nvcc = [{"path": "nvcc (collect_env)", "version": f["nvcc_version"], "error": ""}]
        acc.put("toolkit", where, nvcc=nvcc)


def _traceback(acc: Acc, b: Block, where: str) -> None:
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


def _torch_dict(acc: Acc) -> dict[str, Any]:
    return acc.data.get("torch", {}).get("torch") or {}


def _torch(acc: Acc, where: str, **facts: Any) -> dict[str, Any]:
    """Set facts of the `torch` part (version, build, flags), keeping known ones."""
    d = acc.put("torch", where)
    t: dict[str, Any] = d.setdefault("torch", {})
    for k, v in facts.items():
        if v is not None and v != "" and (k not in t or t[k] in (None, "", "?")):
            t[k] = v
    return t


def _distro_id(name: str) -> str:
    low = name.lower()
    return next((v for k, v in _DISTRO_WORDS.items() if k in low), "")


def _wsl_version(kernel_release: str) -> int:
    low = kernel_release.lower()
    if "microsoft-standard" in low or "wsl2" in low:
        return 2
    return 1 if low.endswith("-microsoft") or re.search(r"-\d+-microsoft", low) else 0


def _kinds(handler: Handler, *kinds: str) -> dict[str, Handler]:
    return dict.fromkeys(kinds, handler)


ROUTES: dict[str, Handler] = {
    **_kinds(_nvidia_smi, "nvidia-smi", "nvidia-smi -q", "nvidia-smi -q -x"),
    "nvidia-smi error": _nvidia_smi_error,
    "collect_env": _collect_env,
    **_kinds(_packages, "pip list", "pip freeze", "conda list"),
    "ollama serve log": _ollama_log,
    **_kinds(_amd, "rocm-smi --json", "rocm-smi", "rocminfo / amd-smi", "lspci (AMD GPU)"),
    "/dev/kfd access": _kfd,
    **_kinds(_ascend, "npu-smi info", "npu-smi error", "CANN version"),
    **_kinds(_docker, "docker info", "docker run error"),
    **_kinds(_inside_container, "container shell prompt", "docker run -it (the rest ran inside)"),
    "dmesg (NVRM)": _kmsg,
    "/proc/driver/nvidia/version": _nvidia_module,
    "lsmod": _lsmod,
    **_kinds(_uname, "uname -a", "WSL kernel"),
    "/etc/os-release": _os_release,
    "WSL issue template": _wsl_template,
    "dpkg -l": _dpkg,
    "hostnamectl": _hostnamectl,
    "nvcc --version": _nvcc,
    "NCCL log": _nccl_log,
    "NCCL error": _nccl_error,
    "NCCL watchdog timeout": _nccl_timeout,
    "PyTorch version mentioned": _torch_mentioned,
    **_kinds(_python_version, "Python version mentioned", "Python path in a traceback"),
    "driver version mentioned": _driver_mentioned,
    "echo $LD_LIBRARY_PATH": _ld_library_path,
    "torch_npu import error": _torch_npu_error,
}
"""Block kind → handler; a kind not listed is a traceback line (torch, device, arch list)."""
