"""Run every probe at once and stop at the deadline.

Each probe runs in a daemon thread (a probe stuck inside NVML or a hung tool cannot keep the
process alive); when the deadline passes, unfinished probes become :class:`TimedOut` and every
child process still running is killed. A probe that raises is reported as Failed("crashed"),
never as a traceback. An interrupt while waiting (Ctrl-C, or SIGTERM turned into an exception
by the command) kills every probe child before it propagates.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping

from gpuwise.parse.result import Failed, ProbeResult, TimedOut
from gpuwise.probe.context import ProbeContext
from gpuwise.probe.run import kill_all, shutdown

Probe = Callable[[ProbeContext], ProbeResult]


def default_probes(nccl: bool = False) -> dict[str, Probe]:
    """Every probe by name (imported here so that `gpuwise --help` stays fast)."""
    from gpuwise.probe.amd import probe_amd
    from gpuwise.probe.ascend import probe_ascend
    from gpuwise.probe.container import probe_container
    from gpuwise.probe.intel import probe_intel
    from gpuwise.probe.kernel import probe_kernel
    from gpuwise.probe.kmsg import probe_kmsg
    from gpuwise.probe.nccl import probe_nccl_env, probe_nccl_smoke
    from gpuwise.probe.nvml import probe_nvml
    from gpuwise.probe.ollama import probe_ollama
    from gpuwise.probe.pytorch import probe_torch
    from gpuwise.probe.smi import probe_nvidia_smi
    from gpuwise.probe.system import probe_system
    from gpuwise.probe.toolkit import probe_toolkit
    from gpuwise.probe.wsl import probe_wsl

    probes: dict[str, Probe] = {
        "system": probe_system,
        "kernel": probe_kernel,
        "kmsg": probe_kmsg,
        "wsl": probe_wsl,
        "container": probe_container,
        "nvidia_smi": probe_nvidia_smi,
        "nvml": probe_nvml,
        "toolkit": probe_toolkit,
        "torch": probe_torch,
        "amd": probe_amd,
        "intel": probe_intel,
        "ascend": probe_ascend,
        "ollama": probe_ollama,
        "nccl_env": probe_nccl_env,
    }
    if nccl:
        probes["nccl_smoke"] = probe_nccl_smoke
    return probes


def _guarded(probe: Probe, ctx: ProbeContext, out: dict[str, ProbeResult], name: str) -> None:
    try:
        result = probe(ctx)
    except Exception as exc:  # a probe bug must not become a traceback
        result = Failed("crashed", f"{type(exc).__name__}: {exc}"[:300])
    out[name] = result


def collect(ctx: ProbeContext, probes: Mapping[str, Probe]) -> dict[str, ProbeResult]:
    """Results of all `probes`, in their order; each one finished or TimedOut by the deadline."""
    started = time.monotonic()
    results: dict[str, ProbeResult] = {}
    threads = {}
    try:  # an interrupt while threads are still being started must kill children too
        for name, probe in probes.items():
            th = threading.Thread(
                target=_guarded,
                args=(probe, ctx, results, name),
                name=f"probe-{name}",
                daemon=True,
            )
            th.start()
            threads[name] = th
        for th in threads.values():
            th.join(max(0.0, ctx.deadline - time.monotonic()))
    except BaseException:  # KeyboardInterrupt, SystemExit from a signal handler
        shutdown()
        raise
    if any(th.is_alive() for th in threads.values()):
        kill_all()
    waited = round(time.monotonic() - started, 2)
    return {name: results.get(name) or TimedOut(waited) for name in probes}
