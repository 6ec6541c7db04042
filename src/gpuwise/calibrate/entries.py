"""From a bench result to `measured_rate` entries (pure).

Which figure feeds which constant of the speed model (estimate/speed_constants.py):

- `matmul` (engine any): the best BF16 matmul ÷ the dense BF16 peak replaces the architecture's
  measured matmul ceiling for this GPU (prefill ceiling, training MFU).
- `decode_bandwidth`, engine `transformers`: the decode micro-benchmark (one layer's weights at
  batch 1 through PyTorch, as Transformers' eager decode runs) ÷ the datasheet bandwidth
  replaces that engine's decode share on this GPU.
- `decode_bandwidth`, engine any: the device copy ÷ the datasheet bandwidth caps every engine's
  decode share on this GPU (no engine streams weights faster than the card copies).

A CPU smoke run, a card gpuwise could not identify, or a figure above the datasheet (the wrong
card, or a sparse peak) is never written.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from gpuwise.catalog.schema import Gpu
from gpuwise.errors import UserError

TERA, GIGA = 1e12, 1e9
PYTORCH_ENGINE = "transformers"


def source_id(gpu_id: str, day: dt.date) -> str:
    """The id of the source of one day's calibration of a GPU (render/bench reads it back)."""
    return f"measured-{gpu_id}-{day.isoformat()}"


def _entry(
    gpu: Gpu,
    metric: str,
    engine: str,
    measured: float,
    peak: float,
    unit: str,
    method: str,
    day: dt.date,
    sid: str,
    dtype: str = "",
) -> dict[str, Any] | None:
    fraction = measured / peak
    if not 0 < fraction <= 1:
        return None
    return {
        "gpu": gpu.id,
        "metric": metric,
        "engine": engine,
        "fraction": round(fraction, 4),
        "measured_value": round(measured, 3),
        "datasheet_value": peak,
        "unit": unit,
        "dtype": dtype,
        "method": method,
        "measured_on": day,
        "source": sid,
    }


def measured_rates(result: Mapping[str, Any], gpu: Gpu, day: dt.date) -> list[dict[str, Any]]:
    """The `measured_rate` entries a bench result supports for `gpu` (may be empty)."""
    if result.get("smoke"):
        raise UserError("calibrate.smoke")
    res, sid = result["results"], source_id(gpu.id, day)
    out: list[dict[str, Any] | None] = []
    bf16 = next((m for m in res.get("matmul", []) if m["dtype"] == "bf16"), None)
    if bf16 and bf16.get("status") == "ok" and gpu.tflops.bf16:
        shape = "x".join(map(str, bf16["best"]["shape"]))
        out.append(
            _entry(
                gpu,
                "matmul",
                "any",
                bf16["best"]["median_flops"] / TERA,
                gpu.tflops.bf16,
                "TFLOPS",
                f"{result['plan']} mm {shape}",
                day,
                sid,
                "bf16",
            )
        )
    bw = gpu.memory_bandwidth_gbps
    dec, copy = res.get("decode_stream", {}), res.get("memory_copy", {})
    if bw and dec.get("status") == "ok":
        out.append(
            _entry(
                gpu,
                "decode_bandwidth",
                PYTORCH_ENGINE,
                dec["median_bps"] / GIGA,
                bw,
                "GB/s",
                f"decode stream {result.get('decode_model', '')}",
                day,
                sid,
                dec.get("dtype", ""),
            )
        )
    if bw and copy.get("status") == "ok":
        mib = copy["buffer_bytes"] // 2**20
        out.append(
            _entry(
                gpu,
                "decode_bandwidth",
                "any",
                copy["median_bps"] / GIGA,
                bw,
                "GB/s",
                f"copy {mib} MiB (read+write)",
                day,
                sid,
            )
        )
    return [e for e in out if e is not None]


def source_entry(result: Mapping[str, Any], origin: str, day: dt.date) -> dict[str, Any]:
    """The [sources.…] table: 'measured on this machine, DATE' and what measured it."""
    dev = result["device"]
    return {
        "url": origin,
        "title": f"measured on this machine, {day.isoformat()}: gpuwise bench ({result['plan']}) "
        f"on {dev['name']}, {dev['build']}",
        "retrieved": day,
    }
