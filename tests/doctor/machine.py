"""A faked machine for replaying real reports: fake tools on PATH (tests/fakebin), a fake file
tree (/proc, /sys, /dev, /etc), a fake Python that prints what PyTorch would, and a real
loopback HTTP server standing in for Ollama. The probes run unchanged against it.

NVML is left out: it loads the real libnvidia-ml of whatever machine runs the tests, which no
fake tree can replace; nvidia-smi (faked) carries the same facts.
"""

from __future__ import annotations

import json
import os
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpuwise.doctor.report import make_report
from gpuwise.probe.collect import collect, default_probes
from gpuwise.probe.context import ProbeContext
from tests.doctor.build import tables
from tests.probe.ollama_server import serve
from tests.probe.support import FAKEBIN, SYSTEM_PATH

MIB = 1024 * 1024
UBUNTU = (
    'NAME="Ubuntu"\nVERSION_ID="22.04"\nID=ubuntu\nID_LIKE=debian\n'
    'PRETTY_NAME="Ubuntu 22.04.4 LTS"\n'
)


@dataclass
class Machine:
    """What the replayed machine has. `tools` maps a tool to (mode, text): mode "ok" prints
    text, "fail" prints it and exits 1, "hang" sleeps."""

    files: dict[str, str] = field(default_factory=dict)
    tools: dict[str, tuple[str, str]] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    python: dict[str, Any] | None = None
    ollama: dict[str, Any] | None = None
    container: bool = False
    nccl: bool = False
    os_release: str = UBUNTU
    kernel: str = "6.8.0-45-generic"
    modes: dict[str, int] = field(default_factory=dict)  # path → chmod mode
    render_group: bool = True  # the user is in the group owning /dev/kfd and /dev/dri/*


def smi_xml(driver: str, cuda: str, gpus: list[tuple[str, int]]) -> str:
    """A minimal `nvidia-smi -q -x` document (built by the test, not a recording)."""
    rows = "".join(
        f'<gpu id="00000000:{i + 1:02X}:00.0"><product_name>{name}</product_name>'
        f"<fb_memory_usage><total>{mib} MiB</total><used>1 MiB</used></fb_memory_usage></gpu>"
        for i, (name, mib) in enumerate(gpus)
    )
    return (
        f'<?xml version="1.0" ?><nvidia_smi_log><driver_version>{driver}</driver_version>'
        f"<cuda_version>{cuda}</cuda_version><attached_gpus>{len(gpus)}</attached_gpus>"
        f"{rows}</nvidia_smi_log>"
    )


def pci(
    vendor: str = "0x10de",
    device: str = "0x2684",
    cls: str = "0x030000",
    addr: str = "0000:01:00.0",
) -> dict[str, str]:
    base = f"/sys/bus/pci/devices/{addr}"
    return {f"{base}/vendor": vendor, f"{base}/device": device, f"{base}/class": cls}


def torch_json(
    version: str,
    cuda: str | None,
    *,
    python: str = "3.11.9",
    available: bool = True,
    devices: list[dict[str, Any]] | None = None,
    arch_list: list[str] | None = None,
    packages: dict[str, str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """What the PyTorch child prints for an installed torch (the `GPUWISE_JSON:` object)."""
    t = {
        "version": version,
        "cuda": cuda,
        "hip": extra.pop("hip", None),
        "is_available": available,
        "devices": devices or [],
        "arch_list": arch_list or [],
        "cudnn": None,
        "nccl": None,
        **{k: v for k, v in extra.items() if k not in ("loaded_libs", "ld_library_path")},
    }
    return {
        "python": {
            "version": python,
            "executable": "/opt/venv/bin/python",
            "prefix": "/opt/venv",
            "venv": True,
            "conda": False,
        },
        "packages": packages or {"torch": version},
        "torch": t,
        "warnings": [],
        "loaded_libs": extra.get("loaded_libs", {}),
        "ld_library_path": extra.get("ld_library_path", ""),
    }


def _other_id(taken: int) -> int:
    """An id that is not `taken` (the fake user must differ from the files' real owner)."""
    return 1000 if taken != 1000 else 1001


def _status(render_group: bool) -> str:
    """/proc/self/status of a plain user (never root, never the owner of the fake files), in
    the group owning the fake device nodes (the test runner's group) or only in `video`."""
    uid = _other_id(os.getuid())
    groups = os.getgid() if render_group else _other_id(os.getgid())
    return (
        f"Uid:\t{uid}\t{uid}\t{uid}\t{uid}\n"
        f"Gid:\t{groups}\t{groups}\t{groups}\t{groups}\n"
        f"Groups:\t{groups}\n"
    )


def _write(root: Path, path: str, text: str) -> None:
    target = root / path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


def build(tmp: Path, m: Machine) -> tuple[ProbeContext, ExitStack]:
    """The probe context of the faked machine (and what must be closed after the run)."""
    root = tmp / "root"
    files = {
        "/etc/os-release": m.os_release,
        "/proc/sys/kernel/osrelease": m.kernel + "\n",
        "/proc/modules": "",
        "/proc/self/status": _status(m.render_group),
        "/etc/group": f"render:x:{os.getgid()}:\nvideo:x:{_other_id(os.getgid())}:\n",
        **m.files,
    }
    if m.container:
        files["/.dockerenv"] = ""
    for path, text in files.items():
        _write(root, path, text)
    for path, bits in {"/dev/kfd": 0o660, **m.modes}.items():
        if (root / path.lstrip("/")).exists():
            (root / path.lstrip("/")).chmod(bits)
    bindir = tmp / "bin"
    bindir.mkdir()
    env = {"PATH": f"{bindir}{os.pathsep}{SYSTEM_PATH}", "HOME": str(tmp / "home"), **m.env}
    for tool in {"dmesg", *m.tools}:
        (bindir / tool).symlink_to(FAKEBIN / "_fake.sh")
    for tool, (mode, text) in m.tools.items():
        var = tool.upper().replace("-", "_")
        env[f"FAKE_{var}_MODE"] = mode
        out = tmp / f"{tool}.out"
        out.write_text(text)
        env[f"FAKE_{var}_FILE" if mode == "ok" else f"FAKE_{var}_MSG"] = (
            str(out) if mode == "ok" else text
        )
    env["FAKE_PYTHON_JSON"] = json.dumps(
        m.python
        or {
            "python": {"version": "3.11.9"},
            "packages": {},
            "torch": None,
            "import_error": "ModuleNotFoundError: No module named 'torch'",
        }
    )
    stack = ExitStack()
    url = "http://127.0.0.1:9"
    if m.ollama is not None:
        version = json.dumps({"version": m.ollama.get("version", "0.5.7")}).encode()
        ps = json.dumps({"models": m.ollama.get("ps", [])}).encode()
        url = stack.enter_context(
            serve({"/api/version": (200, version, 0.0), "/api/ps": (200, ps, 0.0)})
        )
    ctx = ProbeContext(
        deadline=time.monotonic() + 8.0,
        env=env,
        root=root,
        python=str(FAKEBIN / "fake-python"),
        ollama_url=url,
        home=tmp / "home",
    )
    return ctx, stack


def run(tmp: Path, m: Machine) -> dict[str, Any]:
    """Probe the faked machine and diagnose it: the --json report."""
    ctx, stack = build(tmp, m)
    with stack:
        probes = {k: v for k, v in default_probes(nccl=m.nccl).items() if k != "nvml"}
        start = time.monotonic()
        facts = collect(ctx, probes)
        typed = make_report(facts, tables(), time.monotonic() - start, nccl=m.nccl)
    report = typed.model_dump(mode="json")  # what --json prints
    json.dumps(report)
    return report
