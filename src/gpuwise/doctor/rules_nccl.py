"""NCCL: debugging variables left set, and the result of the `--nccl` smoke test.

Covers the guide's §7 row "NCCL error: unhandled system error". The guide's fix ("try the gloo
backend") only moves the job to the CPU; the usual causes are shared memory (containers),
peer-to-peer over PCIe (IOMMU/ACS in VMs) and network interface selection — NCCL's
troubleshooting guide. NVIDIA warns that the *_DISABLE variables are workarounds that cost
performance and must not stay set in production.
"""

from __future__ import annotations

from typing import Any

from gpuwise.doctor import fixes
from gpuwise.doctor.inputs import Inputs
from gpuwise.doctor.model import Finding
from gpuwise.parse.result import Failed, Found, Missing, TimedOut
from gpuwise.parse.view import found, nvidia_gpus, torch_info

_DEBUG_ONLY = ("NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_IB_DISABLE", "NCCL_NET_GDR_LEVEL")
_CAUSES = (
    ("error while creating shared memory segment", "shm"),
    ("error while attaching to shared memory segment", "shm"),
    ("posix_fallocate failed", "shm"),
    ("failed to extend /dev/shm", "shm"),
    ("no space left on device", "shm"),
    ("unhandled system error", "system"),
    ("ncclsystemerror", "system"),
    ("shm", "system"),
    ("unhandled cuda error", "cuda"),
    ("ncclunhandledcudaerror", "cuda"),
    ("invalid usage", "usage"),
    ("invalid argument", "usage"),
    ("duplicate gpu", "usage"),
    ("remote process exited", "remote"),
    ("ncclremoteerror", "remote"),
    ("connection refused", "network"),
    ("address already in use", "network"),
    ("timed out", "network"),
    ("timeout", "network"),
    ("socket", "network"),
)


def classify(text: str) -> str:
    """The likely cause of an NCCL/torch.distributed error message."""
    low = text.lower()
    return next((cause for needle, cause in _CAUSES if needle in low), "unknown")


def env_vars(inp: Inputs) -> list[Finding]:
    """Workaround variables left in the environment or in nccl.conf."""
    n = found(inp.facts, "nccl_env")
    if not n:
        return []
    places: dict[str, Any] = {"env": n.get("env") or {}}
    places.update(n.get("files") or {})
    out = []
    for var in _DEBUG_ONLY:
        where = [f"{src}: {var}={vals[var]}" for src, vals in places.items() if var in vals]
        if where:
            out.append(
                Finding(
                    "nccl.workaround_set",
                    "warn",
                    {"var": var, "where": "; ".join(where)},
                    (f"unset {var}",),
                )
            )
    env = places["env"]
    if "NCCL_ASYNC_ERROR_HANDLING" in env:
        out.append(
            Finding("nccl.deprecated_async", "info", {}, ("unset NCCL_ASYNC_ERROR_HANDLING",))
        )
    if str(env.get("NCCL_DEBUG", "")).upper() in ("INFO", "TRACE"):
        out.append(
            Finding(
                "nccl.debug_verbose", "info", {"value": env["NCCL_DEBUG"]}, ("unset NCCL_DEBUG",)
            )
        )
    return out


def smoke(inp: Inputs) -> list[Finding]:
    """The smoke test's verdict, or a hint to run it when there are several GPUs."""
    r = inp.facts.get("nccl_smoke")
    if r is None:
        if not inp.nccl_requested and len(nvidia_gpus(inp.facts)) > 1 and torch_info(inp.facts):
            return [Finding("nccl.not_tested", "info", {}, ("gpuwise doctor --nccl",))]
        return []
    if isinstance(r, TimedOut) or (isinstance(r, Failed) and r.reason == "timeout"):
        cmds = (
            "NCCL_DEBUG=INFO gpuwise doctor --nccl",
            "NCCL_P2P_DISABLE=1 gpuwise doctor --nccl",
            fixes.comment("acs_check"),
            "sudo lspci -vvv | grep -i acsctl",
        )
        seconds = round(r.seconds) if isinstance(r, TimedOut) else "?"
        return [Finding("nccl.hang", "error", {"seconds": seconds}, cmds)]
    if isinstance(r, Missing) and r.reason == "torch_missing":
        return [
            Finding(
                "nccl.no_torch",
                "warn",
                {"python": inp.host.python},
                (f"{inp.host.python} -m pip install torch",),
            )
        ]
    if isinstance(r, Failed | Missing):
        return [_failure(inp, r)]
    if isinstance(r, Found):
        return [_ok(r.facts)]
    return []


def _ok(f: dict[str, Any]) -> Finding:
    busbw = f.get("busbw_gbps")
    params = {
        "backend": f.get("backend", "?"),
        "world": f.get("world_size", "?"),
        "busbw": f"{busbw:.1f}" if isinstance(busbw, int | float) else "—",
        "algbw": f"{f.get('algbw_gbps', 0):.1f}",
        "mib": (f.get("size_bytes") or 0) // (1024 * 1024),
        "nccl": f.get("nccl_version") or "—",
    }
    key = "nccl.ok" if f.get("world_size", 0) > 1 else "nccl.ok_single"
    return Finding(key, "ok", params)


def _failure(inp: Inputs, r: Failed | Missing) -> Finding:
    text = " ".join([r.detail, *(r.facts.get("stderr_tail") or [])])
    cause = classify(text)
    docker_shm = (fixes.comment("host_side"), "docker run --shm-size=16g …   # or: --ipc=host")
    native_shm = ("df -h /dev/shm", "sudo mount -o remount,size=16G /dev/shm")
    place = inp.host.place
    shm_fix: tuple[str, ...] = docker_shm if place == "container" else native_shm
    if place == "unknown":
        shm_fix = ("df -h /dev/shm", fixes.comment("in_container_shm"), docker_shm[1])
    cmds = {
        "shm": shm_fix,
        "system": (
            "df -h /dev/shm",
            "NCCL_SHM_DISABLE=1 gpuwise doctor --nccl",
            "NCCL_P2P_DISABLE=1 gpuwise doctor --nccl",
        ),
        "cuda": ("nvidia-smi", "NCCL_DEBUG=INFO gpuwise doctor --nccl"),
        "network": ("NCCL_SOCKET_IFNAME=lo NCCL_DEBUG=INFO gpuwise doctor --nccl",),
        "usage": ("nvidia-smi -L", "echo $CUDA_VISIBLE_DEVICES"),
    }.get(cause, ("NCCL_DEBUG=INFO gpuwise doctor --nccl",))
    params = {
        "backend": r.facts.get("backend", "?"),
        "world": r.facts.get("world_size", "?"),
        "detail": (r.detail or "").splitlines()[-1][:300] if r.detail else r.reason,
        "cause": cause,
    }
    return Finding(f"nccl.failed_{cause}", "error", params, cmds)


RULES = (env_vars, smoke)
IDS = (
    "nccl.workaround_set",
    "nccl.deprecated_async",
    "nccl.debug_verbose",
    "nccl.not_tested",
    "nccl.hang",
    "nccl.no_torch",
    "nccl.ok",
    "nccl.ok_single",
    "nccl.failed_shm",
    "nccl.failed_system",
    "nccl.failed_cuda",
    "nccl.failed_network",
    "nccl.failed_usage",
    "nccl.failed_remote",
    "nccl.failed_unknown",
)
