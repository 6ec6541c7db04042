"""Ollama's answers and settings, read without touching the server (pure): the `/api/ps` reply,
and which environment variables configure Ollama (the live probe and the `ollama serve` log
reader of `doctor --from` both filter with :func:`relevant`).

`/api/ps` lists loaded models with `size` (bytes the model occupies) and `size_vram` (bytes in
GPU memory): `size_vram == 0` is "100% CPU", `0 < size_vram < size` a CPU/GPU split.
"""

from __future__ import annotations

from typing import Any

_EXACT = ("CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "GGML_VK_VISIBLE_DEVICES")


def relevant(key: str) -> bool:
    """Variables that configure Ollama: OLLAMA_*, the ROCm/HSA/HIP ones and the device masks.

    Ollama's envconfig reads these (docs/gpu.mdx: CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES,
    HIP_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL, GGML_VK_VISIBLE_DEVICES, HSA_OVERRIDE_GFX_VERSION);
    CUDA_HOME, CUDA_PATH and the like are not Ollama configuration.
    """
    return key.startswith(("OLLAMA_", "HSA_", "ROCR_", "HIP_")) or key in _EXACT


def parse_ps(data: Any) -> list[dict[str, Any]]:
    """Loaded models with size, size_vram and the share on the CPU (ValueError if malformed)."""
    if not isinstance(data, dict) or not isinstance(data.get("models", []), list):
        raise ValueError("unexpected /api/ps reply")
    out = []
    for m in data.get("models") or []:
        if not isinstance(m, dict):
            raise ValueError("unexpected model entry")
        size = int(m.get("size") or 0)
        vram = int(m.get("size_vram") or 0)
        cpu = None if size <= 0 or vram > size else round(100 * (size - vram) / size)
        out.append(
            {
                "name": str(m.get("name") or m.get("model") or ""),
                "size_bytes": size,
                "size_vram_bytes": vram,
                "cpu_percent": cpu,
                "context_length": m.get("context_length"),
            }
        )
    return out
