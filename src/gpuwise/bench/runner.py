"""Run a bench: pick the device, measure every figure, sample the device meanwhile, judge.

The monitor's :class:`~gpuwise.monitor.sampler.Sampler` reads the device in a background
thread while the kernels run (clocks, temperature, power and its limit, throttle reasons, other
processes), so a low figure comes with its likely cause. Results are kept as JSON in the state
directory (`bench/`), where `gpuwise calibrate` reads them.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from gpuwise.bench import measure
from gpuwise.bench.device import Device, device_uuid, import_torch, pick_device
from gpuwise.bench.figures import evaluate
from gpuwise.bench.identify import identify
from gpuwise.bench.plan import BenchPlan, cpu_plan, gpu_plan
from gpuwise.bench.verdict import digest, monitor_index
from gpuwise.monitor.model import Sample

Progress = Callable[[str], None]
VENDOR_OF_KIND = {"cuda": "nvidia", "npu": "ascend", "mps": "apple", "xpu": "intel"}


@dataclass(frozen=True)
class BenchOptions:
    """What the user asked for."""

    quick: bool = False
    device: str = "auto"
    index: int = 0
    gpu: str | None = None
    model: str = "llama3.1:8b"
    interval_s: float = 0.5


class MonitorThread:
    """Samples the machine every `interval_s` until stopped (nothing when no source opens)."""

    def __init__(self, interval_s: float) -> None:
        self.samples: list[Sample] = []
        self.statuses: dict[str, str] = {}
        self._interval = interval_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Open the samplers and start the background loop."""
        from gpuwise.monitor.sampler import Sampler, default_sources

        sampler = Sampler(default_sources(xid=False), host=False)
        self.statuses = sampler.open()
        if not sampler.vendors:
            sampler.close()
            return

        def loop() -> None:
            try:
                while not self._stop.is_set():
                    self.samples.append(sampler.sample())
                    self._stop.wait(self._interval)
            finally:
                sampler.close()

        self._thread = threading.Thread(target=loop, name="gpuwise-bench-monitor", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop sampling and wait for the loop to close its sources."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)


def pcie_link(index: int) -> dict[str, Any] | None:
    """Current and maximum PCIe width and generation of an NVIDIA device (NVML), or None."""
    from gpuwise.probe import nvml_lib
    from gpuwise.probe.nvml import device_facts

    try:
        with nvml_lib.session() as nv:
            facts = device_facts(nv, index)
    except Exception:
        return None
    keys = ("pcie_gen", "pcie_gen_max", "pcie_width", "pcie_width_max")
    return {k: facts.get(k) for k in keys}


def _measure(dev: Device, plan: BenchPlan, progress: Progress) -> dict[str, Any]:
    """Every figure of the plan, ticking `progress` once per unit of work."""
    out: dict[str, Any] = {"matmul": []}
    for dtype in plan.dtypes:
        out["matmul"].append(
            measure.matmul(
                dev,
                dtype,
                plan.shapes,
                plan.warmup,
                plan.iters,
                plan.flush_bytes,
                partial(progress, f"matmul {dtype}"),
            )
        )
    out["memory_copy"] = measure.memory_copy(dev, plan.copy_bytes, plan.warmup, plan.iters)
    progress("memory copy")
    out["host_device"] = measure.host_device(dev, plan.host_bytes, plan.warmup, plan.iters)
    progress("host-device")
    out["allreduce"] = measure.allreduce(dev, plan.allreduce_bytes, plan.warmup, plan.iters)
    progress("all-reduce")
    out["decode_stream"] = measure.decode_stream(
        dev, plan.decode_dims, plan.decode_dtype, plan.warmup, plan.iters
    )
    progress("decode")
    return out


def _dims(opts: BenchOptions, cat: Any) -> dict[str, Any]:
    """The decode shapes of `--model`, read as every command reads a model name (catalog.reading;
    only the architecture matters here, so an Ollama tag's file format does not)."""
    from gpuwise.catalog.reading import read_model_name

    m = read_model_name(cat, opts.model).model
    return {
        "model": m.id,
        "hidden": m.hidden_size,
        "intermediate": m.intermediate_size,
        "heads": m.heads,
        "kv_heads": m.kv_heads,
    }


def run_bench(
    opts: BenchOptions, progress: Progress, started: Callable[[int], None]
) -> dict[str, Any]:
    """Measure, judge and return the result (the JSON of `bench --json`)."""
    from gpuwise import __version__
    from gpuwise.catalog import load_catalog
    from gpuwise.estimate.speed_constants import SpeedConstants

    cat = load_catalog()
    dims = _dims(opts, cat)
    gpu_given = cat.gpu(opts.gpu) if opts.gpu else None
    torch = import_torch()
    dev = pick_device(torch, opts.device, opts.index)
    layer = {k: v for k, v in dims.items() if k != "model"}
    plan = cpu_plan(layer) if dev.kind == "cpu" else gpu_plan(opts.quick, layer)
    started(plan.steps)
    monitor = MonitorThread(opts.interval_s)
    if dev.kind != "cpu":
        monitor.start()
    begin = dt.datetime.now(dt.timezone.utc)
    try:
        results = _measure(dev, plan, progress)
    finally:
        monitor.stop()
    gpu = gpu_given or (identify(cat, dev.name) if dev.kind != "cpu" else None)
    vendor = "amd" if getattr(torch.version, "hip", None) else VENDOR_OF_KIND.get(dev.kind, "")
    where = monitor_index(monitor.samples, vendor, dev.index, device_uuid(dev), os.environ)
    seen = digest(monitor.samples, vendor, where, os.getpid())
    link = pcie_link(where) if vendor == "nvidia" and where is not None else None
    sc = SpeedConstants.from_catalog(cat)
    figures = evaluate(results, gpu, sc, cat.extra("bench_reference"), seen, link)
    return {
        "schema": 1,
        "measured_at": begin.isoformat(timespec="seconds"),
        "seconds": (dt.datetime.now(dt.timezone.utc) - begin).total_seconds(),
        "gpuwise_version": __version__,
        "device": {
            "kind": dev.kind,
            "index": dev.index,
            "name": dev.name,
            "count": dev.count,
            "build": dev.build,
        },
        "gpu": gpu.id if gpu else None,
        "plan": plan.name,
        "smoke": dev.kind == "cpu",
        "decode_model": dims["model"],
        "monitor": {**seen, "sources": monitor.statuses},
        "pcie_link": link,
        "results": results,
        "figures": figures,
    }


def bench_dir() -> Path:
    """Where bench results are kept (beside the run store)."""
    from gpuwise.dirs import state_dir

    return state_dir() / "bench"


def save(result: dict[str, Any]) -> Path:
    """Keep a result as `bench/<time>-<device>.json` (written atomically; never replaces)."""
    folder = bench_dir()
    folder.mkdir(parents=True, exist_ok=True)
    stamp = result["measured_at"].replace(":", "").replace("+", "Z")[:17]
    path = folder / f"{stamp}-{result['device']['kind']}{result['device']['index']}.json"
    n = 1
    while path.exists():
        n += 1
        path = path.with_name(f"{path.stem.split('~')[0]}~{n}.json")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(result, indent=2, sort_keys=True, default=str), encoding="utf-8")
    tmp.replace(path)
    return path


def saved_results() -> list[Path]:
    """Kept results, oldest first."""
    folder = bench_dir()
    return sorted(folder.glob("*.json")) if folder.is_dir() else []
