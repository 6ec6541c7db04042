"""A GPU's compute capability from its name, where the facts name the GPU but not its capability.

`nvidia-smi`'s plain table and collect_env's "GPU models and configuration" name the card
("NVIDIA GeForce RTX 5090") without its compute capability, yet every architecture rule needs
it: without it a 5090 on a cu124 wheel looked fine. The GPU catalog knows the capability of
every card it lists (catalog.compat.CompatTables.cc_of_name). Pure: it edits the facts given.
"""

from __future__ import annotations

from typing import Any

from gpuwise.catalog.compat import CompatTables
from gpuwise.parse.view import Facts, any_facts, capabilities, found


def _listed_gpus(facts: Facts) -> list[dict[str, Any]]:
    """The GPU entries of the facts themselves (NVML's, else nvidia-smi's), to edit in place;
    the rules read the typed copies `parse.view.nvidia_gpus` makes from them afterwards."""
    raw = found(facts, "nvml").get("gpus") or found(facts, "nvidia_smi").get("gpus") or []
    return [g for g in raw if isinstance(g, dict)]


def fill_capabilities(facts: Facts, tables: CompatTables) -> None:
    """Add `compute_capability` to listed NVIDIA GPUs the catalog knows by name; when no GPU is
    listed but PyTorch named some, add them as PyTorch devices with their capability."""
    for gpu in _listed_gpus(facts):
        if not gpu.get("compute_capability"):
            cc = tables.cc_of_name(str(gpu.get("name") or ""))
            if cc:
                gpu["compute_capability"] = cc
                gpu["compute_capability_from"] = "name"
    if capabilities(facts):
        return
    torch = any_facts(facts, "torch").get("torch")
    if not isinstance(torch, dict):
        return
    named = [str(n) for n in torch.get("gpu_names") or []]
    devices = [
        {"name": name, "capability": cc, "capability_from": "name"}
        for name in named
        if (cc := tables.cc_of_name(name))
    ]
    if devices and not torch.get("devices"):
        torch["devices"] = devices
