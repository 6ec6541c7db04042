"""Which weight formats and KV cache types a service's search tries, in the order it tries
them (advise/sizing.py takes the first that meets the target)."""

from __future__ import annotations

import contextlib

from gpuwise.advise.sized import SizeInputs, weight_bits
from gpuwise.catalog.schema import Gpu
from gpuwise.errors import UserError
from gpuwise.estimate.pooling import pools


def serve_formats(si: SizeInputs, gpu: Gpu) -> list[tuple[str, str | None]]:
    """Weight formats, least compressed first, with the engine's default KV cache and with
    each lighter cache it runs (vLLM's and SGLang's FP8 KV cache, on cards with FP8 units): a
    long-context service misses its memory or speed on the 16-bit cache of the weights it
    should run, and an 8-bit cache costs less quality than 4-bit weights (blind w22-02:
    40k-token prompts sized six H100s at bf16 KV)."""
    lighter: list[str] = []
    if gpu.tflops.fp8 and not pools(si.model):
        with contextlib.suppress(UserError):  # an engine the memory model does not list
            lighter = si.mc.engine(si.choice.engine).kv_dtypes
    # one 8-bit step before two, two before 4-bit weights: the 8-bit weight formats on the
    # 16-bit cache, then on the lighter one, then the formats under 8 bits
    pairs = [(i, q, kv) for i, q in enumerate(si.choice.quants) for kv in (None, *lighter)]
    pairs.sort(key=lambda p: (weight_bits(si.mc, p[1]) < 8, p[2] is not None, p[0]))
    return [(q, kv) for _, q, kv in pairs]
