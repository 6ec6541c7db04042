"""Filtering and sorting GPUs (pure), on the plain dicts of the listing cache."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from gpuwise.errors import UserError

VENDORS = (
    "nvidia",
    "amd",
    "intel",
    "huawei",
    "google",
    "aws",
    "apple",
    "cambricon",
    "hygon",
    "moorethreads",
    "biren",
    "iluvatar",
    "metax",
    "kunlunxin",
    "enflame",
    "other",
)
"""The schema's `Vendor` values, spelled out so this module imports no pydantic (it serves the
listing cache); a test keeps the two equal."""
CLASSES = ("consumer", "workstation", "datacenter")
GpuDict = dict[str, Any]


def filter_gpus(
    gpus: Iterable[GpuDict], vendor: str | None, min_memory_gb: float, gpu_class: str | None
) -> list[GpuDict]:
    """GPUs of a vendor and class with at least `min_memory_gb`; bad values raise UserError."""
    if vendor and vendor.lower() not in VENDORS:
        raise UserError("gpus.bad_vendor", value=vendor, choices=", ".join(VENDORS))
    if gpu_class and gpu_class.lower() not in CLASSES:
        raise UserError("gpus.bad_class", value=gpu_class, choices=", ".join(CLASSES))
    if min_memory_gb < 0:
        raise UserError("gpus.bad_min_memory", value=min_memory_gb)
    return [
        g
        for g in gpus
        if (not vendor or g["vendor"] == vendor.lower())
        and (not gpu_class or g["class"] == gpu_class.lower())
        and g["memory_gb"] >= min_memory_gb
    ]


def _launch_usd(g: GpuDict) -> float:
    prices = [p["amount"] for p in g["prices"] if p["kind"] == "launch" and p["currency"] == "USD"]
    return prices[0] if prices else float("inf")


def _num(value: float | None) -> float:
    return value or 0.0


SORTS: dict[str, Callable[[GpuDict], tuple[Any, ...]]] = {
    "memory": lambda g: (-g["memory_gb"], -_num(g["memory_bandwidth_gbps"]), g["id"]),
    "bandwidth": lambda g: (-_num(g["memory_bandwidth_gbps"]), g["id"]),
    "bf16": lambda g: (-_num(g["tflops"].get("bf16") or g["tflops"].get("fp16")), g["id"]),
    "fp8": lambda g: (-_num(g["tflops"].get("fp8")), g["id"]),
    "tdp": lambda g: (-_num(g["tdp_w"]), g["id"]),
    "year": lambda g: (-g["release_year"], g["id"]),
    "name": lambda g: (g["id"],),
    "price": lambda g: (_launch_usd(g), g["id"]),
}


def sort_gpus(gpus: list[GpuDict], key: str) -> list[GpuDict]:
    """Largest first for capacities and speeds; name, year and price ascending."""
    if key not in SORTS:
        raise UserError("gpus.bad_sort", value=key, choices=", ".join(SORTS))
    return sorted(gpus, key=SORTS[key])
