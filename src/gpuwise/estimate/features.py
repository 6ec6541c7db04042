"""What an estimate says about a model's architecture features beside the numbers.

A feature the memory model represents (a hybrid's fixed linear-attention state, DeepSeek sparse
attention's indexer keys, an encoder's missing KV cache) is named so the reader can see why the
KV part looks as it does; a part it does not model (the memory images take in a vision-language
model) is named so that no one reads the total as complete.
"""

from __future__ import annotations

from typing import Any

from gpuwise.catalog.schema import LlmModel
from gpuwise.estimate.kv import compressed_cache_bytes

MIB = 1024**2
TRAINING_NOTES = ("est.note_vision", "est.note_embed", "est.note_rerank")
"""The notes that still apply when training: no KV cache or recurrent state exists there."""


def feature_notes(
    m: LlmModel, kv_bytes_per_element: float, tp: int = 1, context: int = 1
) -> list[tuple[str, dict[str, Any]]]:
    """(i18n key, params) for each architecture feature of `m` that shapes or limits it."""
    notes: list[tuple[str, dict[str, Any]]] = []
    lin = m.linear_attention
    if lin is not None:
        state = lin.layers * lin.state_elements() * kv_bytes_per_element / tp
        notes.append(
            (
                "est.note_linear_attention",
                {
                    "linear": lin.layers,
                    "layers": m.layers,
                    "full": m.kv_layers,
                    "mib": round(state / MIB, 1),
                },
            )
        )
    if m.sparse_attention is not None:
        notes.append(
            (
                "est.note_sparse_attention",
                {"top_k": m.sparse_attention.top_k, "dim": m.sparse_attention.index_head_dim},
            )
        )
    ca = m.compressed_attention
    if ca is not None:
        per_token = compressed_cache_bytes(m, context, 1, kv_bytes_per_element) / max(context, 1)
        notes.append(
            (
                "est.note_compressed_attention",
                {
                    "window": m.sliding_window,
                    "csa": ca.csa_layers,
                    "csa_ratio": ca.csa_ratio,
                    "top_k": ca.top_k,
                    "hca": ca.hca_layers,
                    "hca_ratio": ca.hca_ratio,
                    "per_token": round(per_token / 1024, 2),
                },
            )
        )
    if m.vision is not None:
        notes.append(("est.note_vision", {"params_b": round(m.vision.params_b, 2)}))
    if m.bidirectional:
        notes.append(("est.note_encoder", {}))
    if m.task != "generate":
        notes.append((f"est.note_{m.task}", {}))
    return notes
