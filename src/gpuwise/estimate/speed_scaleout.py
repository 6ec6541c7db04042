"""One serving replica spread over several machines: the time its steps spend on the network.

A model one machine cannot hold (DeepSeek-V3/R1 671B, Kimi K2, Qwen3-Coder-480B on 80 GB
cards) runs as one replica over M machines. Inside a machine the devices talk over NVLink or
the card's own link (the single-machine estimate already pays that); between machines every
step pays the scale-out network:

- a mixture of experts spreads its experts over all devices (expert parallel, EP): in every MoE
  layer each token is sent to the machines holding its `active_experts` experts and the results
  come back (all-to-all dispatch and combine). With uniform routing a token needs
  (M − 1) · (1 − (1 − 1/M)^k) other machines on average; DeepEP-style kernels send it once
  per machine and fan it out over NVLink there (DeepSeek-V3 report, §3.2.2). Each machine
  sends its 1/M share of the step's tokens: tokens/M × machines reached × hidden ×
  (dispatch + combine bytes) over its network, plus a message latency per exchange.
- a dense model is split by layers across machines (pipeline parallel): each token's
  activation crosses M − 1 boundaries once per step.

Two-batch overlap (SGLang, DeepSeek) hides part of that time behind computation; the share
hidden is an assumption the caller passes (catalog plan_assumption). Pure arithmetic.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from gpuwise.catalog.schema import LlmModel
from gpuwise.estimate.speed import SpeedEstimate


@dataclass(frozen=True)
class Fabric:
    """The network between the machines of one replica and how well all-to-all uses it."""

    gbps_per_node: float
    """All of one machine's scale-out NICs together (Gb/s): 8 × 400 Gb/s InfiniBand on an HGX
    cluster node, one 25 GbE port on a plain rented machine."""
    efficiency: float
    """Share of the line rate an all-to-all reaches (message sizes, congestion)."""
    latency_s: float
    """One exchange's fixed cost between machines (RDMA round trip and kernel launch)."""
    overlap: float = 0.0
    """Share of the network time hidden behind computation (two-batch overlap)."""
    dispatch_bytes: float = 1.0
    """Bytes per hidden element sent to the experts (fp8 with DeepEP's low-latency kernels)."""
    combine_bytes: float = 2.0
    """Bytes per hidden element sent back (bf16)."""


def machines_reached(machines: int, active_experts: int) -> float:
    """Other machines one token's experts sit on, on average, with routing spread evenly:
    (M − 1) · (1 − (1 − 1/M)^k)."""
    if machines < 2:
        return 0.0
    return (machines - 1) * (1.0 - (1.0 - 1.0 / machines) ** active_experts)


def span_step_seconds(m: LlmModel, tokens: float, machines: int, fabric: Fabric) -> float:
    """Seconds one forward step over `tokens` tokens (the whole replica's) spends on the
    network between its `machines` machines, after the share overlap hides."""
    if machines < 2 or tokens <= 0:
        return 0.0
    bps = fabric.gbps_per_node * 1e9 / 8 * fabric.efficiency
    if m.moe is not None:
        per_node = tokens / machines * machines_reached(machines, m.moe.active_experts)
        layer_bytes = per_node * m.hidden_size * (fabric.dispatch_bytes + fabric.combine_bytes)
        per_layer = layer_bytes / bps + 2 * fabric.latency_s
        total = m.moe.moe_layers * per_layer
    else:  # layers split into M stages: M − 1 hand-offs of the step's activations
        hop = tokens * m.hidden_size * fabric.combine_bytes / bps + fabric.latency_s
        total = (machines - 1) * hop
    return total * (1.0 - fabric.overlap)


@dataclass(frozen=True)
class SpanCost:
    """The network's share of a serving cycle over several machines."""

    network_s: float
    """Seconds of one request cycle (its prefill and decode steps) spent between machines."""
    tokens_per_s: float
    """Serving output tokens/s with that time added."""
    factor: float
    """tokens_per_s ÷ the single-machine-link estimate (≤ 1): what the network costs."""


def spanning_serving(
    m: LlmModel,
    tokens_per_s: float,
    concurrency: int,
    prompt: int,
    gen: int,
    machines: int,
    fabric: Fabric,
) -> SpanCost:
    """Serving throughput of a replica over `machines` machines: the cycle the estimate gave
    (concurrency × gen ÷ tokens/s) plus the network time of its steps — one prefill pass over
    every prompt and gen − 1 decode steps of the whole batch."""
    if machines < 2 or tokens_per_s <= 0:
        return SpanCost(0.0, tokens_per_s, 1.0)
    cycle = concurrency * gen / tokens_per_s
    steps = max(gen - 1, 0)
    net = span_step_seconds(m, concurrency * prompt, machines, fabric)
    net += steps * span_step_seconds(m, concurrency, machines, fabric)
    tps = concurrency * gen / (cycle + net)
    return SpanCost(net, tps, tps / tokens_per_s)


def spanning_decode(
    m: LlmModel, decode_tokens_per_s: float, batch: int, machines: int, fabric: Fabric
) -> float:
    """Decode tokens/s of a batch over `machines` machines: each step's time plus its
    network time (prefill-decode disaggregated decode nodes, as large-EP deployments run)."""
    if machines < 2 or decode_tokens_per_s <= 0:
        return decode_tokens_per_s
    step = batch / decode_tokens_per_s
    return batch / (step + span_step_seconds(m, batch, machines, fabric))


def spanning_estimate(
    sp: SpeedEstimate, m: LlmModel, concurrency: int, prompt: int, gen: int, span: Span
) -> SpeedEstimate:
    """A serving estimate made as if all devices sat in one machine, with the network time
    of a replica over `span.machines` machines added to its cycle; the band moves with it
    (the network is a cost the single-machine measurements did not pay)."""
    tps = sp.serving_tokens_per_s
    if span.machines < 2 or not tps:
        return sp
    cost = spanning_serving(m, tps, concurrency, prompt, gen, span.machines, span.fabric)
    band = dict(sp.band or {})
    if "serving_tokens_per_s" in band:
        band["serving_tokens_per_s"] = [v * cost.factor for v in band["serving_tokens_per_s"]]
    factors = {**sp.factors, "span_machines": span.machines, "span_network_s": cost.network_s}
    return dataclasses.replace(
        sp, serving_tokens_per_s=cost.tokens_per_s, band=band or sp.band, factors=factors
    )


@dataclass(frozen=True)
class Span:
    """Machines one replica spans and the network between them."""

    machines: int
    fabric: Fabric
