"""Golden targets × stacks: (case name, stack, target flags). One per architecture family and
platform the issue names; each case's files live in tests/setup/golden/<name>/."""

from __future__ import annotations

from typing import Any

CASES: list[tuple[str, str, dict[str, Any]]] = [
    (
        "turing-t4-pytorch",
        "pytorch",
        {"gpu": "t4", "driver": "535.104.05", "os": "ubuntu22.04", "python": "3.10"},
    ),
    (
        "ampere-a100-qlora",
        "qlora",
        {"gpu": "a100-80gb", "driver": "550.54.15", "os": "ubuntu22.04", "python": "3.11"},
    ),
    (
        "ampere-3090-qlora-wsl2",
        "qlora",
        {"gpu": "rtx-3090", "driver": "576.02", "os": "wsl2", "python": "3.12"},
    ),
    (
        "ada-4090-vllm",
        "vllm",
        {"gpu": "rtx-4090", "driver": "580.65.06", "os": "ubuntu24.04", "python": "3.12"},
    ),
    (
        "ada-4090-ollama",
        "ollama",
        {"gpu": "rtx-4090", "driver": "580.65.06", "os": "ubuntu24.04", "python": "3.12"},
    ),
    (
        "hopper-h100-pytorch",
        "pytorch",
        {"gpu": "h100-sxm", "driver": "570.124.06", "os": "ubuntu22.04", "python": "3.12"},
    ),
    (
        "blackwell-5090-pytorch",
        "pytorch",
        {"gpu": "rtx-5090", "driver": "575.57.08", "os": "ubuntu24.04", "python": "3.12"},
    ),
    (
        "volta-v100-pytorch",
        "pytorch",
        {"gpu": "v100-32gb", "driver": "580.95.05", "os": "ubuntu22.04", "python": "3.11"},
    ),
    (
        "rdna3-7900xtx-pytorch",
        "pytorch",
        {"gpu": "rx-7900-xtx", "rocm": "7.2", "os": "ubuntu24.04", "python": "3.12"},
    ),
    (
        "rdna2-gfx1031-ollama",
        "ollama",
        {"vendor": "amd", "gfx": "gfx1031", "os": "ubuntu22.04", "python": "3.11"},
    ),
    ("cdna3-mi300x-qlora", "qlora", {"gpu": "mi300x", "os": "ubuntu22.04", "python": "3.12"}),
    ("ascend-910b-pytorch", "pytorch", {"ascend": "910b", "cann": "8.0.0", "python": "3.10"}),
    ("apple-m3-pytorch", "pytorch", {"gpu": "apple-m3-max", "python": "3.12"}),
    ("cpu-pytorch", "pytorch", {"cpu": True, "os": "ubuntu24.04", "python": "3.11"}),
]
