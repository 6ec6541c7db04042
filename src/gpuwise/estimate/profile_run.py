"""What a preallocating engine's start-up profile run holds besides the weights.

vLLM sizes its KV pool by running the model once on dummy input before allocating it
(gpu_worker.determine_available_memory): a prefill of max-num-batched-tokens tokens, then one
sampling step for max-num-seqs dummy requests, and it keeps for the cache only what the share of
the card (`--gpu-memory-utilization` × device memory) leaves after the weights and that run's
peak. The sampling step holds max-num-seqs × vocabulary logits in float32 with the sampler's
working copies (sorted logits, their indices, probabilities, cumulative sums), which on cards
where max-num-seqs is 1024 outweighs the prefill's activations: llm-d logged 4.8–7.4 GiB
"Peak activation memory" for models of 0.6B to 70B on H100 (data/memory.toml
`sampler_bytes_per_logit`). The pool is smaller by that much, and so is the number of requests
the engine can run at once (estimate/scheduler.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuwise.estimate import activations as act
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.resolve import Resolved


@dataclass(frozen=True)
class ProfileRun:
    """The two candidates for the profile run's peak, bytes per GPU."""

    forward_bytes: float
    """Activations and last-position logits of the max-num-batched-tokens prefill."""
    sampler_bytes: float
    """max-num-seqs × vocabulary logits × the engine's bytes a logit."""

    @property
    def peak_bytes(self) -> float:
        """The prefill's buffers are free again when the sampler runs: the larger of the two."""
        return max(self.forward_bytes, self.sampler_bytes)


def sampler_reserve_bytes(r: Resolved, max_seqs: int | None) -> float:
    """The profile run's sampling step: one row of logits per dummy request, every GPU of a
    tensor-parallel group holding the full vocabulary (the logits are gathered before sampling)."""
    if not max_seqs:
        return 0.0
    return max_seqs * r.req.model.vocab_size * r.engine.sampler_bytes_per_logit


def profile_run(
    r: Resolved, c: MemoryConstants, max_seqs: int | None, batched_tokens: int | None
) -> ProfileRun:
    """The profile run of the engine `r` resolves to, on a card whose scheduler admits
    `max_seqs` requests and `batched_tokens` tokens a step (None: the engine's catalog chunk)."""
    m = r.req.model
    tokens = batched_tokens or r.engine.prefill_chunk_tokens or r.context
    forward = act.prefill_activation_bytes(
        m, tokens, min(r.context, tokens), c.activation, r.attention == "eager", r.tp
    )
    forward += m.vocab_size * 4.0  # the last position's float32 logits
    return ProfileRun(forward, sampler_reserve_bytes(r, max_seqs))
