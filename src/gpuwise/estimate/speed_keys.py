"""The keys the speed model's constants are looked up by: the engine whose kernels run, the
software backend, the memory kind (qualified by SM version or backend), the architecture with
its SM version, and the card class the accuracy tables report by.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from gpuwise.catalog.schema import Gpu

ENGINE_FAMILY = {
    "ollama": "llama.cpp",
    "transformers-legacy": "transformers",
    "torchtune": "transformers",
    "unsloth": "transformers",
}
"""Engines that run another engine's kernels (Ollama runs llama.cpp)."""


T = TypeVar("T")


def engine_family(engine: str) -> str:
    """The engine whose kernels run (Ollama's are llama.cpp's)."""
    return ENGINE_FAMILY.get(engine, engine)


def backend_of(gpu: Gpu) -> str:
    """The software backend an engine uses on this device (cuda, rocm, metal or other)."""
    if gpu.stack.cuda_cc:
        return "cuda"
    if gpu.stack.rocm_gfx:
        return "rocm"
    if gpu.stack.metal:
        return "metal"
    return "other"


def memory_kind(gpu: Gpu) -> str:
    """hbm, gddr or unified: decode kernels reach different shares of each kind's bandwidth."""
    if gpu.unified_memory:
        return "unified"
    return "hbm" if gpu.memory_type.upper().startswith("HBM") else "gddr"


FIT_SOURCE = "spd-fit"
"""The source of the shares benchmarks/calibrate_speed.py fits (data/speed_fitted.toml)."""


def _plain(key: str, sep: str) -> str:
    """A qualified architecture key's plain form: "ada lovelace sm_89" → "ada lovelace"."""
    return key.rsplit(sep, 1)[0] if sep in key else key


def kernel_arch(gpu: Gpu) -> str:
    """The architecture a prefill share belongs to, with the CUDA compute capability where the
    catalog has it: kernels are compiled and tuned per SM version, and one architecture name
    covers different chips — Ampere's GA100 (A100, A30; sm_80) and GA10x (RTX 3090, A10; sm_86),
    Blackwell's B200 (sm_100) and RTX 50/PRO (sm_120) reach different shares of their peaks."""
    cc = gpu.stack.cuda_cc if gpu.stack else None
    return f"{gpu.architecture} sm_{cc.replace('.', '')}" if cc else gpu.architecture


def decode_memory_key(gpu: Gpu, backend: str) -> str:
    """The memory key of a decode share: the memory kind, qualified by the SM version on CUDA
    (a T4's sm_75 and an A100's sm_80 kernels reach other shares of their bandwidth than an RTX
    4090's) or by the backend when the kernels are not CUDA's or Metal's (llama.cpp's HIP kernels
    on an MI300X are not its CUDA kernels on an H100, though both read HBM). Data-centre GDDR
    cards (T4, A10, L4, L40S…) are `gddr-ecc`: they ship with ECC on, which spends part of the
    GDDR's capacity and bandwidth on check bits (nvidia-smi --help-query-gpu, quoted in
    netdata/netdata#15755: "if ECC is enabled the total available memory is decreased by several
    percent, due to the requisite parity bits"; InternLM/lmdeploy#159: NVIDIA turns it on by
    default), while GeForce and workstation cards run without it by default. Looked up, and
    fitted, with a fall-back to (pooling towards) each shorter key (`memory_chain`)."""
    memory = memory_kind(gpu)
    cc = gpu.stack.cuda_cc if gpu.stack else None
    if backend == "cuda" and cc:
        ecc = memory == "gddr" and gpu.gpu_class == "datacenter"
        return f"{'gddr-ecc' if ecc else memory}-sm{cc.replace('.', '')}"
    if memory == "unified" or backend in ("cuda", "metal", "any"):
        return memory
    return f"{memory}-{backend}"


def memory_chain(key: str) -> list[str]:
    """A memory key and each shorter key it falls back to: "gddr-ecc-sm89" → "gddr-ecc" →
    "gddr"; "hbm-rocm" → "hbm"."""
    chain = [key]
    while "-" in chain[-1]:
        chain.append(chain[-1].rsplit("-", 1)[0])
    return chain


def card_class(gpu: Gpu) -> str:
    """The class the accuracy tables and error bands report by: consumer, workstation,
    datacenter, apple, amd (Instinct, CDNA) or radeon (AMD's RDNA cards). Radeon is its own
    class because its kernels are not Instinct's (ROCm's datacenter paths, MFMA vs WMMA): a band
    learnt on MI300X runs is not lent to an RX 9070 XT, which takes the engine's or every
    case's band until Radeon runs are measured (blind w55-01: an RDNA 4 stack "not yet
    verified" got a narrower band than the datacenter card's)."""
    if gpu.vendor == "apple":
        return "apple"
    if gpu.vendor == "amd":
        return "amd" if gpu.gpu_class == "datacenter" else "radeon"
    if gpu.vendor != "nvidia":
        return "other"
    return gpu.gpu_class


def _first(candidates: Iterable[T]) -> T | None:
    return next(iter(candidates), None)
