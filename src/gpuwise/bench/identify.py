"""Which catalog card the device PyTorch reports is (pure: names in, a Gpu or None out).

Driver names differ from catalog names ("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB"):
the full name is tried first, then without the vendor words, then the catalog name or alias
found inside the device name (the longest wins, so "H100 NVL" beats "H100"; a card whose memory
size is in the name wins over one whose is not). `--gpu` overrides.
"""

from __future__ import annotations

import re

from gpuwise.catalog import Catalog
from gpuwise.catalog.names import normalize
from gpuwise.catalog.schema import Gpu

_VENDOR_WORDS = re.compile(r"\b(nvidia|geforce|amd|instinct|radeon|intel|tesla)\b", re.I)


def _squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def identify(cat: Catalog, device_name: str) -> Gpu | None:
    """The catalog GPU named by a driver's device name, or None when nothing matches."""
    for name in (device_name, _VENDOR_WORDS.sub(" ", device_name).strip()):
        gpu_id = cat.gpu_index.get(normalize(name)) if name else None
        if gpu_id:
            return cat.gpu_by_id(gpu_id)
    squashed = _squash(_VENDOR_WORDS.sub(" ", device_name))
    best: tuple[int, Gpu] | None = None
    for gpu in cat.gpus:
        memory = 100 if f"{round(gpu.memory_gb)}gb" in squashed else 0
        for alias in (gpu.id, gpu.name, *gpu.aliases):
            key = re.sub(r"\d+gb$", "", _squash(_VENDOR_WORDS.sub(" ", alias)))
            score = len(key) + memory
            if len(key) >= 3 and key in squashed and (best is None or score > best[0]):
                best = (score, gpu)
    return best[1] if best else None
