"""Stable JSON shapes for catalog entries (`--json` and the Python API)."""

from __future__ import annotations

from typing import Any

from gpuwise.catalog.catalog import Catalog
from gpuwise.catalog.schema import Gpu, LlmModel, Source


def source_dict(s: Source) -> dict[str, str]:
    """A source as JSON: id, url, title, retrieved (ISO date)."""
    return {"id": s.id, "url": s.url, "title": s.title, "retrieved": s.retrieved.isoformat()}


def gpu_dict(cat: Catalog, g: Gpu) -> dict[str, Any]:
    """A GPU with its dense TFLOPS by precision and the sources of its numbers."""
    return {
        "id": g.id,
        "name": g.name,
        "vendor": g.vendor,
        "class": g.gpu_class,
        "architecture": g.architecture,
        "release_year": g.release_year,
        "memory_gb": g.memory_gb,
        "memory_type": g.memory_type,
        "memory_bandwidth_gbps": g.memory_bandwidth_gbps,
        "tflops": g.tflops.as_dict(),
        "tdp_w": g.tdp_w,
        "pcie_gen": g.pcie_gen,
        "form_factor": g.form_factor,
        "unified_memory": g.unified_memory,
        "interconnect": g.interconnect,
        "interconnect_gbps": g.interconnect_gbps,
        "max_per_host": g.max_per_host,
        "devices_per_card": g.devices_per_card,
        "cooling": g.cooling,
        "rent_only": g.rent_only,
        "whole_system": g.whole_system,
        "modified": g.modified,
        "unpriced_reason": g.unpriced_reason,
        "stack": g.stack.model_dump(exclude_defaults=True),
        "aliases": list(g.aliases),
        "export_note": g.export_note,
        "prices": [
            {**p.model_dump(mode="json"), "condition": p.bought_as, "channel": p.seen_at}
            for p in g.prices
        ],
        "sources": [source_dict(s) for s in cat.sources_of(g)],
        "field_sources": dict(g.field_sources),
    }


def model_dict(cat: Catalog | None, m: LlmModel, local: Source | None = None) -> dict[str, Any]:
    """A model's architecture numbers and the sources they come from."""
    sources = [local] if local else (cat.sources_of(m) if cat else [])
    return {
        "id": m.id,
        "name": m.name,
        "family": m.family,
        "origin": m.origin,
        "params_b": m.params_b,
        "active_params_b": m.active_params_b,
        "layers": m.layers,
        "hidden_size": m.hidden_size,
        "intermediate_size": m.intermediate_size,
        "heads": m.heads,
        "kv_heads": m.kv_heads,
        "head_dim": m.head_dim,
        "vocab_size": m.vocab_size,
        "tied_embeddings": m.tied_embeddings,
        "max_context": m.max_context,
        "sliding_window": m.sliding_window,
        "sliding_window_layers": m.window_layers if m.sliding_window else None,
        "mla": m.mla.model_dump() if m.mla else None,
        "moe": m.moe.model_dump() if m.moe else None,
        "hf_repos": list(m.hf_repos),
        "ollama_tags": list(m.ollama_tags),
        "aliases": list(m.aliases),
        "gguf_file_type": m.gguf_file_type,
        "kv_layers": m.kv_layers,
        "ssm": m.ssm.model_dump() if m.ssm else None,
        "linear_attention": m.linear_attention.model_dump() if m.linear_attention else None,
        "sparse_attention": m.sparse_attention.model_dump() if m.sparse_attention else None,
        "compressed_attention": (
            m.compressed_attention.model_dump() if m.compressed_attention else None
        ),
        "attn_output_gate": m.attn_output_gate,
        "vision_params_b": m.vision.params_b if m.vision else None,
        "task": m.task,
        "bidirectional": m.bidirectional,
        "norm": m.norm,
        "parallel_attn_ffn": m.parallel_attn_ffn,
        "rotary_fraction": m.rotary_fraction,
        "weight_dtype": m.weight_dtype,
        "weight_bytes_exact": m.weight_bytes_exact,
        "sources": [source_dict(s) for s in sources],
        "field_sources": dict(m.field_sources),
    }


def listing_of(cat: Catalog) -> dict[str, list[dict[str, Any]]]:
    """Plain-data GPUs and models (the --json shapes), for commands that only list them."""
    return {
        "gpus": [gpu_dict(cat, g) for g in cat.gpus],
        "models": [model_dict(cat, m) for m in cat.models],
    }
