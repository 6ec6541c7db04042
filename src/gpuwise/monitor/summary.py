"""What a recorded run comes to (pure functions over stored rows): peaks, energy, cost, estimate.

Formulas:

- Peak memory of a GPU: the largest sampled "used" value; the run's share is that minus the
  memory in use before the command started (``baseline_used_bytes``), which removes other
  tenants present at the start. Sampling misses spikes shorter than the interval (noted).
- Energy of a GPU: the device's energy counter at the end minus at the start (NVML, mJ since
  driver load) when the run lasted at least ``ENERGY_COUNTER_MIN_S`` and the counter moved;
  otherwise ∫ power dt = Σ power_w × span_s over the samples (rectangle rule; each stored row
  covers ``span_s`` seconds).
- kWh = J ÷ 3.6e6; cost = kWh × the tariff's price per kWh (catalog `tariff` presets, each with
  its source), converted to the display currency with the catalog's dated exchange rates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpuwise.monitor.policy import ENERGY_COUNTER_MIN_S
from gpuwise.monitor.store import RunRecord

J_PER_KWH = 3.6e6


def _max(rows: Sequence[Mapping[str, Any]], col: str) -> float | None:
    values = [float(r[col]) for r in rows if r.get(col) is not None]
    return max(values) if values else None


def _mean(rows: Sequence[Mapping[str, Any]], col: str) -> float | None:
    pairs = [(float(r[col]), float(r["span_s"])) for r in rows if r.get(col) is not None]
    weight = sum(w for _, w in pairs)
    if not pairs:
        return None
    return sum(v * w for v, w in pairs) / weight if weight > 0 else pairs[0][0]


def integral_energy_j(rows: Sequence[Mapping[str, Any]]) -> float | None:
    """Σ power × span over rows with a power reading; None when none has one."""
    pairs = [(r["power_w"], r["span_s"]) for r in rows if r.get("power_w") is not None]
    return sum(p * s for p, s in pairs) if pairs else None


def gpu_energy(
    rows: Sequence[Mapping[str, Any]], start_counter_j: float | None, duration_s: float
) -> tuple[float | None, str | None]:
    """Energy of one GPU in J and how it was found: 'counter', 'integral' or None."""
    counters = [r["energy_j"] for r in rows if r.get("energy_j") is not None]
    start = start_counter_j if start_counter_j is not None else (counters[0] if counters else None)
    if counters and start is not None and duration_s >= ENERGY_COUNTER_MIN_S:
        delta = counters[-1] - start
        if delta > 0:
            return delta, "counter"
    integral = integral_energy_j(rows)
    return (integral, "integral") if integral is not None else (None, None)


def duration_s(
    run: RunRecord, gpu_rows: Sequence[Mapping[str, Any]], host_rows: Sequence[Mapping[str, Any]]
) -> float:
    """Run length: end − start, or up to the last sample for a run that never finished."""
    if run.ended_at is not None:
        return max(0.0, run.ended_at - run.started_at)
    last = max((r["t"] for r in (*gpu_rows, *host_rows)), default=run.started_at)
    return max(0.0, last - run.started_at)


def _gpu_summary(
    meta: Mapping[str, Any], rows: Sequence[Mapping[str, Any]], dur: float
) -> dict[str, Any]:
    peak = _max(rows, "memory_used_max_bytes")
    base = meta.get("baseline_used_bytes")
    energy, method = gpu_energy(rows, meta.get("energy_start_j"), dur)
    throttle = sorted(
        {n for r in rows if r.get("throttle") for n in str(r["throttle"]).split(",") if n}
    )
    return {
        "vendor": meta["vendor"],
        "gpu": meta["index"],
        "name": meta.get("name", ""),
        "memory_total_bytes": meta.get("memory_total_bytes"),
        "baseline_used_bytes": base,
        "peak_used_bytes": int(peak) if peak is not None else None,
        "peak_run_bytes": int(max(0.0, peak - base))
        if peak is not None and base is not None
        else None,
        "peak_temperature_c": _max(rows, "temperature_max_c"),
        "peak_power_w": _max(rows, "power_max_w"),
        "mean_power_w": _mean(rows, "power_w"),
        "mean_utilization_pct": _mean(rows, "utilization_pct"),
        "energy_j": energy,
        "energy_method": method,
        "throttle": throttle,
    }


def _gpu_metas(run: RunRecord, gpu_rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The run's GPUs: from its metadata, plus any device seen only in the samples."""
    metas = [dict(g) for g in run.gpus]
    known = {(g["vendor"], g["index"]) for g in metas}
    for r in gpu_rows:
        if (r["vendor"], r["gpu"]) not in known:
            known.add((r["vendor"], r["gpu"]))
            metas.append({"vendor": r["vendor"], "index": r["gpu"]})
    return metas


def _processes(proc_rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    peaks: dict[tuple[str, int, int], float] = {}
    for r in proc_rows:
        value = r.get("gpu_memory_max_bytes")
        if value is None:
            continue
        key = (r["vendor"], r["gpu"], r["pid"])
        peaks[key] = max(peaks.get(key, 0.0), value)
    out = [
        {"vendor": v, "gpu": g, "pid": p, "peak_gpu_memory_bytes": int(m)}
        for (v, g, p), m in peaks.items()
    ]
    return sorted(out, key=lambda d: -d["peak_gpu_memory_bytes"])


def _host(host_rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    peak_rss = _max(host_rows, "tree_rss_max_bytes")
    peak_mem = _max(host_rows, "memory_used_max_bytes")
    procs = _max(host_rows, "tree_procs")
    return {
        "peak_tree_rss_bytes": int(peak_rss) if peak_rss is not None else None,
        "peak_tree_procs": int(procs) if procs is not None else None,
        "mean_tree_cpu_percent": _mean(host_rows, "tree_cpu_percent"),
        "mean_cpu_percent": _mean(host_rows, "cpu_percent"),
        "peak_memory_used_bytes": int(peak_mem) if peak_mem is not None else None,
    }


def summarise(
    run: RunRecord,
    gpu_rows: Sequence[Mapping[str, Any]],
    proc_rows: Sequence[Mapping[str, Any]] = (),
    host_rows: Sequence[Mapping[str, Any]] = (),
    events: Sequence[Mapping[str, Any]] = (),
    status: str | None = None,
) -> dict[str, Any]:
    """The run's summary (the JSON contract of `record` and `runs show`)."""
    dur = duration_s(run, gpu_rows, host_rows)
    gpus = []
    for meta in _gpu_metas(run, gpu_rows):
        rows = [r for r in gpu_rows if r["vendor"] == meta["vendor"] and r["gpu"] == meta["index"]]
        gpus.append(_gpu_summary(meta, rows, dur))
    energies = [g["energy_j"] for g in gpus]
    known = [e for e in energies if e is not None]
    notes = ["monitor.note_sampling"]
    if run.attribution == "device":
        notes.append("monitor.note_device_attributed")
    if any(g["energy_method"] == "integral" for g in gpus):
        notes.append("monitor.note_energy_integral")
    return {
        "run": {**_run_dict(run), "status": status or run.status, "duration_s": dur},
        "gpus": gpus,
        "processes": _processes(proc_rows),
        "host": _host(host_rows),
        "energy_kwh": sum(known) / J_PER_KWH if known else None,
        "energy_complete": bool(gpus) and len(known) == len(gpus),
        "xid": [
            {"t": e["t"], "vendor": e["vendor"], "gpu": e["gpu"], "xid": int(e["detail"])}
            for e in events
            if e["kind"] == "xid"
        ],
        "samples": len({r["t"] for r in gpu_rows} | {r["t"] for r in host_rows}),
        "notes": notes,
    }


def _run_dict(run: RunRecord) -> dict[str, Any]:
    keys = (
        "id",
        "name",
        "command",
        "source",
        "host",
        "started_at",
        "ended_at",
        "exit_code",
        "interval_s",
        "attribution",
        "child_pid",
    )
    return {k: getattr(run, k) for k in keys}


@dataclass(frozen=True)
class TariffPrice:
    """An electricity price in the display currency, and where it came from."""

    price_per_kwh: float
    currency: str
    tariff_id: str | None
    source: str | None
    date: str | None
    source_price: float
    source_currency: str


def with_cost(summary: dict[str, Any], tariff: TariffPrice) -> dict[str, Any]:
    """The summary with the energy's cost at `tariff` (None when the energy is unknown)."""
    kwh = summary["energy_kwh"]
    summary["cost"] = {
        "amount": kwh * tariff.price_per_kwh if kwh is not None else None,
        "currency": tariff.currency,
        "price_per_kwh": tariff.price_per_kwh,
        "tariff": tariff.tariff_id,
        "tariff_price": tariff.source_price,
        "tariff_currency": tariff.source_currency,
        "source": tariff.source,
        "date": tariff.date,
        "partial": not summary["energy_complete"],
    }
    return summary


def measured_peak(summary: Mapping[str, Any]) -> tuple[int | None, str]:
    """The measured per-GPU peak to set beside an estimate, and what kind it is.

    Per-process peaks (the command's own processes, summed per GPU) when they were seen, else
    the largest per-GPU increase over the baseline (device-attributed), else — for imported logs
    with no baseline — the largest per-GPU memory in use.
    """
    per_gpu: dict[tuple[str, int], int] = {}
    for p in summary["processes"]:
        key = (p["vendor"], p["gpu"])
        per_gpu[key] = per_gpu.get(key, 0) + p["peak_gpu_memory_bytes"]
    if per_gpu:
        return max(per_gpu.values()), "process"
    runs = [g["peak_run_bytes"] for g in summary["gpus"] if g["peak_run_bytes"] is not None]
    if runs:
        return max(runs), "device"
    totals = [g["peak_used_bytes"] for g in summary["gpus"] if g["peak_used_bytes"] is not None]
    return (max(totals), "total") if totals else (None, "none")


def with_estimate(summary: dict[str, Any], estimate: Mapping[str, Any]) -> dict[str, Any]:
    """The summary with gpuwise's estimate beside the measurement (per GPU, bytes)."""
    predicted = int(estimate["memory"]["device_total_bytes"])
    measured, kind = measured_peak(summary)
    error = (predicted - measured) / measured * 100 if measured else None
    summary["estimate"] = {
        "model": estimate["model"]["id"],
        "mode": estimate["inputs"].get("mode"),
        "estimated_bytes": predicted,
        "low_bytes": estimate["memory"].get("low_bytes"),
        "high_bytes": estimate["memory"].get("high_bytes"),
        "measured_bytes": measured,
        "measured_kind": kind,
        "error_pct": error,
    }
    return summary


def with_tokens(
    summary: dict[str, Any], stored: Mapping[str, Any], estimate: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The summary with the engine's token figures, and gpuwise's decode/prefill estimate beside
    them when the run was recorded with one for a GPU (errors only where comparable: decode
    when one request ran at a time, prefill from the engine's own prompt timer)."""
    from gpuwise.monitor.tokens import token_rates

    rates = token_rates(stored)
    speed = (estimate or {}).get("speed") or {}
    est_decode, est_prefill = speed.get("decode_tokens_per_s"), speed.get("prefill_tokens_per_s")
    measured_decode = rates["decode_tokens_per_s_per_sequence"]
    measured_prefill = rates["prefill_tokens_per_s"]
    rates["estimated_decode_tokens_per_s"] = est_decode
    rates["estimated_prefill_tokens_per_s"] = est_prefill
    rates["decode_error_pct"] = (
        (est_decode - measured_decode) / measured_decode * 100
        if est_decode and measured_decode and rates["one_at_a_time"]
        else None
    )
    rates["prefill_error_pct"] = (
        (est_prefill - measured_prefill) / measured_prefill * 100
        if est_prefill and measured_prefill and rates["prefill_timer"] in ("prompt", "prefill")
        else None
    )
    summary["tokens"] = rates
    return summary
