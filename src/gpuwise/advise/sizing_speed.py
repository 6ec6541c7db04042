"""The speed of a configuration that fits: tokens/s of a service (with the network of a
replica spanning machines, estimate.speed_scaleout), input tokens/s of an embedder, hours of a
training run. Split from sizing.py, which searches the configurations.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from gpuwise.advise.attempts import Attempt
from gpuwise.advise.companions import busy_share
from gpuwise.advise.scenario import Scenario
from gpuwise.advise.sized import Sized, SizeInputs
from gpuwise.catalog.schema import Gpu
from gpuwise.errors import UserError
from gpuwise.estimate.memory import MemoryEstimate
from gpuwise.estimate.pooling import pooling_speed, pools
from gpuwise.estimate.resolve import Resolved
from gpuwise.estimate.speed import SpeedEstimate, SpeedInputs, inference_speed
from gpuwise.estimate.speed_scaleout import Span, spanning_estimate
from gpuwise.estimate.train_speed import training_speed


def speed_of(
    s: Scenario,
    gpu: Gpu,
    count: int,
    a: Attempt,
    r: Any,
    est: MemoryEstimate,
    si: SizeInputs,
    support: str,
    compute: str | None,
) -> Sized:
    """Tokens/s (and hours of a training run) of the configuration that fits."""
    w = s.workload
    common: dict[str, Any] = {
        "micro_batch": a.micro_batch,
        "grad_accumulation": a.grad_accumulation,
        "grad_checkpointing": a.req.grad_checkpointing if w.kind == "train" else None,
        "prompt_tokens": a.prompt_tokens,
        "kv_tokens_per_request": a.kv_tokens,
        "support": support,
        "compute": compute,
        "pooling": pools(si.model),
        "companion_bytes": si.companion_bytes,
    }
    engine = a.req.engine or ""
    try:
        if w.kind == "train":
            inputs = SpeedInputs(
                gpu=gpu,
                train_tokens=w.train_tokens(),
                epochs=w.epochs,
                node_gpus=si.scale.node_devices or None,
                network_gbps_per_node=si.scale.network_gbps_per_node,
                execution=w.execution,
                grad_accumulation=a.grad_accumulation or 1,
            )
            sp = training_speed(r, si.sc, inputs)
            tps = sp.train_tokens_per_s or 0.0
            hours = sp.train_time_h
        elif common["pooling"]:  # one pass per input: input tokens/s, no decode
            sp = pooling_speed(r, si.sc, SpeedInputs(gpu=gpu, concurrency=w.concurrency))
            tps, hours = sp.prefill_tokens_per_s or 0.0, None
        else:
            concurrency = w.concurrency if w.kind == "serve" else None
            node = si.scale.node_devices if si.span > 1 else None
            inputs = SpeedInputs(
                gpu=gpu,
                gen_tokens=w.gen_tokens,
                concurrency=concurrency,
                node_gpus=node,
                cached_prompt_share=w.cached_prompt_share,
            )
            sp = inference_speed(r, si.sc, inputs)
            common["full_context_first_token_s"] = full_context_wait(s, r, si, gpu)
            if si.span > 1 and si.scale.fabric and concurrency:
                span = Span(si.span, si.scale.fabric)
                gen = w.gen_tokens
                sp = spanning_estimate(sp, si.model, concurrency, r.prompt_tokens, gen, span)
            tps = sp.serving_tokens_per_s or sp.decode_tokens_per_s or 0.0
            hours = None
    except UserError:  # the catalog lacks this card's bandwidth or TFLOPS: fits, speed unknown
        unknown = SpeedEstimate(bound="unknown")
        return Sized(
            gpu, count, a.quant, engine, r.strategy, est, unknown, None, 0.0, False, **common
        )
    if si.companion_loads and w.kind != "train":  # their device time is not the model's
        share = busy_share(si.companion_loads, gpu, count, si.mc, si.sc, si.memo)
        common["companion_share"] = share
        tps *= max(0.0, 1.0 - share)
    return Sized(gpu, count, a.quant, engine, r.strategy, est, sp, hours, tps, **common)


FULL_CONTEXT_MIN = 8192
"""A context this long is asked for to be filled (files, documents), not for chat turns."""


def full_context_wait(
    s: Scenario, r: Resolved, si: SizeInputs, gpu: Gpu
) -> tuple[float, float] | None:
    """Local use with a long context and no prompt length: the first token's wait of a prompt
    that fills the context (central, slow end of its band), the prefill a coding assistant pays
    when it reads files; the speeds themselves stay those of short chat prompts."""
    w = s.workload
    if w.kind != "local" or "prompt_tokens" in w.model_fields_set or w.context < FULL_CONTEXT_MIN:
        return None
    full = max(1, w.context - w.gen_tokens)
    req = dataclasses.replace(r.req, prompt_tokens=full)
    sp = inference_speed(
        dataclasses.replace(r, req=req, prompt_tokens=full),
        si.sc,
        SpeedInputs(gpu=gpu, gen_tokens=w.gen_tokens),
    )
    wait = sp.time_to_first_token_s
    if not wait:
        return None
    band = (sp.band or {}).get("time_to_first_token_s")
    return wait, max(band) if band else wait
