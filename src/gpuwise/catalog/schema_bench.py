"""Typed catalog data of `gpuwise bench` and `gpuwise calibrate`.

`bench_reference`: the share of a datasheet peak a healthy card reaches in one bench figure
(data/bench.toml, each with its source), and how far below it a figure counts as "low".
`measured_rate`: a rate measured on this machine, written by `gpuwise calibrate` into a
gpuwise-managed override file; the speed model uses it for that GPU in place of the catalog's
achievable fraction (estimate/speed.py, ``SpeedConstants.measured_for``).
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, Field, PositiveFloat

from gpuwise.catalog.schema import Sourced

BenchMetric = Literal["matmul", "memory_copy", "host_to_device", "allreduce", "decode_stream"]
MeasuredMetric = Literal["matmul", "decode_bandwidth"]


class BenchReference(Sourced):
    """A healthy card's share of its datasheet peak in one bench figure.

    `architecture` "any" is the fallback; `low_below` is the share of the healthy figure under
    which a result is called low (ml-engineering: about 0.85 of the table value).
    """

    metric: BenchMetric
    architecture: str = "any"
    healthy_fraction: float = Field(gt=0, le=1)
    low_below: float = Field(gt=0, le=1)


class MeasuredRate(Sourced):
    """One rate `gpuwise bench` measured on this machine (`fraction` = measured ÷ datasheet)."""

    gpu: str
    metric: MeasuredMetric
    engine: str = "any"
    fraction: float = Field(gt=0, le=1)
    measured_value: PositiveFloat
    datasheet_value: PositiveFloat
    unit: Literal["TFLOPS", "GB/s"]
    dtype: str = ""
    method: str = ""
    measured_on: dt.date


BENCH_KINDS: dict[str, type[BaseModel]] = {
    "bench_reference": BenchReference,
    "measured_rate": MeasuredRate,
}
