"""Probes run concurrently; a stuck one becomes TimedOut at the deadline, a broken one Failed."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from gpuwise.parse.result import Failed, Found, ProbeResult, TimedOut
from gpuwise.probe.collect import collect, default_probes
from gpuwise.probe.context import ProbeContext

_release = threading.Event()


def _quick(ctx: ProbeContext) -> ProbeResult:
    return Found({"ok": True})


def _stuck(ctx: ProbeContext) -> ProbeResult:
    _release.wait(30)  # a probe stuck inside a C call, say
    return Found({})


def _broken(ctx: ProbeContext) -> ProbeResult:
    raise RuntimeError("bug in a probe")


def _slow(ctx: ProbeContext) -> ProbeResult:
    time.sleep(0.3)
    return Found({"slow": True})


def test_deadline_and_crash(tmp_path: Path) -> None:
    ctx = ProbeContext(deadline=time.monotonic() + 0.8, env={}, root=tmp_path)
    start = time.monotonic()
    out = collect(ctx, {"a": _quick, "b": _stuck, "c": _broken, "d": _slow})
    elapsed = time.monotonic() - start
    _release.set()
    assert list(out) == ["a", "b", "c", "d"]
    assert isinstance(out["a"], Found)
    assert isinstance(out["b"], TimedOut)
    assert (
        isinstance(out["c"], Failed)
        and out["c"].reason == "crashed"
        and "bug in a probe" in out["c"].detail
    )
    assert isinstance(out["d"], Found)  # ran in parallel, finished in time
    assert elapsed < 1.5


def test_probe_registry() -> None:
    names = set(default_probes())
    assert {
        "system",
        "kernel",
        "wsl",
        "container",
        "nvidia_smi",
        "nvml",
        "toolkit",
        "torch",
    } <= names
    assert {"amd", "intel", "ascend", "ollama", "nccl_env"} <= names
    assert "nccl_smoke" not in names and "nccl_smoke" in default_probes(nccl=True)
