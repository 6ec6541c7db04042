"""What a program printed when it failed at run time, read from a paste: PyTorch's
"CUDA out of memory" (the numbers it gives: the size asked for, the GPU's total and free
memory). The NCCL, driver and "no kernel image" messages have their own rules."""

from __future__ import annotations

from gpuwise.doctor.inputs import Inputs
from gpuwise.doctor.model import Finding
from gpuwise.doctor.view import torch_info

HOLDERS_QUERY = "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv"
ALLOC_CONF = "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"


def out_of_memory(inp: Inputs) -> list[Finding]:
    """The job asked for more GPU memory than was free: an error, with who holds the memory
    and the allocator setting PyTorch's own message suggests against fragmentation."""
    oom = torch_info(inp.facts).get("oom")
    if not isinstance(oom, dict):
        return []
    params = {k: str(oom.get(k) or "?") for k in ("tried", "total", "free", "gpu")}
    cmds: tuple[str, ...] = (HOLDERS_QUERY,)
    if oom.get("unallocated"):
        params["unallocated"] = str(oom["unallocated"])
        params["variant"] = "fragmented"
        cmds = (*cmds, ALLOC_CONF)
    return [Finding("torch.out_of_memory", "error", params, cmds)]


RULES = (out_of_memory,)
IDS = ("torch.out_of_memory",)
