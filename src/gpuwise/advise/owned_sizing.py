"""Size a served or local model on cards the user owns when they are too small alone.

Two ways an expert keeps the owned card (llama.cpp and Ollama only: engines with `layer_split`
and `cpu_offload` in catalog/data/memory.toml):

* layer split over unlike cards: llama.cpp's default `--split-mode layer` puts whole layers on
  each card in proportion to its memory (`--tensor-split` defaults to free memory), and a token
  passes through the cards in turn. Decode time is therefore the sum over cards of
  bytes_on_card / bandwidth_card, plus one hop per card boundary (catalog plan_assumption
  `layer_split_hop_ms`). With bytes_i ∝ memory_i that sum equals total_bytes / B_eff with
  B_eff = Σ memory_i / Σ (memory_i / bandwidth_i): the split is timed as one device of the
  summed memory and B_eff (its compute the slowest card's), through the same calibrated speed
  model as any card, then the hops are added.
* CPU offload: what does not fit the owned cards runs from system RAM; decode time is the GPU
  part at the card's bandwidth plus the offloaded share of the weights at the system RAM's
  (estimate.speed_decode.step_time's `offload-link` term, DDR4/DDR5 figures from plan.toml).

Pure: estimator calls only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from gpuwise.advise.attempts import serve_attempt
from gpuwise.advise.engines import EngineChoice
from gpuwise.advise.margin import slow_tokens_per_s
from gpuwise.advise.scenario import Scenario
from gpuwise.advise.sized import Sized, SizeInputs, weight_bits
from gpuwise.advise.sizing import size
from gpuwise.catalog.schema import Gpu
from gpuwise.errors import UserError
from gpuwise.estimate.fit import usable_bytes
from gpuwise.estimate.memory import estimate_memory
from gpuwise.estimate.resolve import resolve
from gpuwise.estimate.speed import SpeedInputs, inference_speed

GIB = 1024**3
GB = 1e9


def pooled_card(cards: Sequence[Gpu], reserve_gb: float) -> Gpu | None:
    """One stand-in device for a layer split over `cards`: their memory less each extra card's
    engine reserve (its own CUDA context), B_eff = Σ memory_i / Σ (memory_i / bandwidth_i)
    (layers placed in proportion to memory, read card after card), the slowest card's compute.
    None when a card's bandwidth is unknown (the split cannot be timed)."""
    if any(not g.memory_bandwidth_gbps for g in cards):
        return None
    memory = sum(g.memory_gb for g in cards)
    seconds = sum(g.memory_gb / (g.memory_bandwidth_gbps or 1.0) for g in cards)
    slow = min(cards, key=lambda g: g.memory_bandwidth_gbps or 0.0)
    return slow.model_copy(
        update={
            "memory_gb": memory - reserve_gb * (len(cards) - 1),
            "memory_bandwidth_gbps": memory / seconds,
            "name": " + ".join(g.name for g in cards),
        }
    )


def with_hops(sized: Sized, hops: int, hop_s: float) -> Sized:
    """The split's tokens/s with the card-to-card hops added to every decode step (its error
    band scales with it: margin.tokens_band is a ratio)."""
    if not sized.speed_known or hops <= 0 or sized.tokens_per_s <= 0:
        return sized
    step = 1.0 / sized.tokens_per_s + hops * hop_s
    factor = (1.0 / step) / sized.tokens_per_s
    speed, band = sized.speed, dict(sized.speed.band or {})
    for name in ("serving_tokens_per_s", "decode_tokens_per_s"):
        value = getattr(speed, name)
        if value:  # the figure and its band scale together, so the band still brackets it
            speed = replace(speed, **{name: value * factor})
            if name in band:
                band[name] = [x * factor for x in band[name]]
    speed = replace(speed, band=band or None)
    return replace(sized, tokens_per_s=sized.tokens_per_s * factor, speed=speed)


def size_split(s: Scenario, cards: Sequence[Gpu], si: SizeInputs, hop_s: float) -> Sized | None:
    """The least-compressed format that fits the cards split by layer (and meets the speed
    target or reading floor, as sizing.size chooses), timed as the pooled device plus hops."""
    reserve = si.mc.engine(si.choice.engine).cuda_context_mib / 1024 * GIB / GB
    pooled = pooled_card(cards, reserve)
    if pooled is None:
        return None
    sized = size(s, pooled, 1, si)
    return None if sized is None else with_hops(sized, len(cards) - 1, hop_s)


@dataclass(frozen=True)
class HostRam:
    """What the owned PC's system RAM offers offloaded layers: GB free for them, GB/s read,
    and the bits per weight above which a format is chosen for speed, not quality
    (plan_assumption `offload_quality_floor_bits`)."""

    free_gb: float
    gbps: float
    quality_floor_bits: float = 0.0


@dataclass(frozen=True)
class Offload:
    """A format run with part of its weights in system RAM, and the less compressed one that
    would also fit but was passed over for speed (said beside the option: quality caveat)."""

    sized: Sized
    fraction: float
    richer: tuple[Sized, float] | None = None


def size_offload(s: Scenario, cards: Sequence[Gpu], si: SizeInputs, ram: HostRam) -> Offload | None:
    """The format to run on the owned cards with the rest of the weights in system RAM.

    With layers in RAM, decode reads the offloaded bytes over the RAM's bandwidth every token
    (estimate.speed_decode.step_time), so every bit per weight costs speed on the slowest
    link: a q8_0 file puts more than twice the bytes of a Q4_K_M one in RAM. Among the formats
    that meet the target (or reading floor) at the slow end of their band and keep at least
    `quality_floor_bits` per weight (Q4_K_M, the format GGUF model cards recommend), the
    fastest is chosen, and the least compressed one that also met it is named as the quality
    alternative; where none of those meets it, the least compressed format that does (a 3-bit
    file the caveat goes with), else the fastest that fits (the plan says it is too slow)."""
    reserve = si.mc.engine(si.choice.engine).cuda_context_mib / 1024 * GIB / GB
    pooled = pooled_card(cards, reserve)
    if pooled is None:
        return None
    target = max(s.workload.target_tokens_per_s or 0.0, si.reading_floor or 0.0)
    found = [got for q in si.choice.quants if (got := _offloaded(s, pooled, q, si, ram))]
    if not found:
        return None
    meets = [g for g in found if g[0].speed_known and slow_tokens_per_s(g[0]) >= target]
    kept = [g for g in meets if weight_bits(si.mc, g[0].quant) >= ram.quality_floor_bits]
    if kept:
        best = max(kept, key=lambda g: g[0].tokens_per_s)
        richer = kept[0] if kept[0] is not best else None  # least compressed first
        return Offload(best[0], best[1], richer)
    if meets:
        return Offload(*meets[0])
    return Offload(*max(found, key=lambda x: x[0].tokens_per_s))


def _offloaded(
    s: Scenario, gpu: Gpu, quant: str, si: SizeInputs, ram: HostRam
) -> tuple[Sized, float] | None:
    """One format with the layers that do not fit `gpu` in system RAM: the share of the
    weights offloaded (estimate.report.offload_fraction's rule) and the speed with it."""
    w = s.workload
    a = serve_attempt(s, si.model, quant, si.choice.engine, 1, si.defaults)
    try:
        est = estimate_memory(a.req, si.mc)
        r = resolve(a.req, si.mc)
    except UserError:
        return None
    on_gpu = usable_bytes(gpu, si.mc, a.req) * (1 - s.memory_margin) - si.companion_bytes
    spill = est.device_total_bytes - on_gpu
    weights = est.breakdown.get("weights", 0.0)
    if spill <= 0 or weights <= 0 or spill > ram.free_gb * GB or spill > weights:
        return None  # fits the cards alone (not this option), or not even with the RAM
    fraction = spill / weights
    inputs = SpeedInputs(
        gpu=gpu, gen_tokens=w.gen_tokens, offload_fraction=fraction, cpu_bandwidth_gbps=ram.gbps
    )
    verdict = si.choice.verdicts[quant]
    try:
        sp = inference_speed(r, si.sc, inputs)
    except UserError:
        return None
    tps = sp.decode_tokens_per_s or 0.0
    sized = Sized(
        gpu,
        1,
        quant,
        si.choice.engine,
        r.strategy,
        est,
        sp,
        None,
        tps,
        prompt_tokens=a.prompt_tokens,
        kv_tokens_per_request=a.kv_tokens,
        support=verdict.support,
        compute=verdict.compute,
        companion_bytes=int(si.companion_bytes),
    )
    return sized, fraction


def restricted(choice: EngineChoice, quants: Sequence[str]) -> EngineChoice:
    """The owned card's engine choice, keeping only formats every card of the split runs."""
    keep = tuple(q for q in choice.quants if q in set(quants))
    return replace(choice, quants=keep)
