"""config.json readers for the 2025–26 families and their new layer kinds.

Each reader states where its key names come from (the transformers config class, or the
checkpoint's remote code where the family never entered transformers):

- Qwen3-Next / Qwen3.5 (`qwen3_next`, `qwen3_5_text`, `qwen3_5_moe_text`): Gated DeltaNet layers
  described by `linear_num_key_heads`, `linear_num_value_heads`, `linear_key_head_dim`,
  `linear_value_head_dim`, `linear_conv_kernel_dim`; `layer_types` (or every
  `full_attention_interval`-th layer) holds full attention, whose q_proj also emits an output
  gate (Qwen3NextAttention: `attn_output_gate`, always on in Qwen3-Next).
- MiniMax-01/M1 (`minimax`, `minimax_text_01`, `minimax_m1`): `attn_type_list` (0 = lightning
  linear attention, 1 = softmax) or `layer_types`; MiniMax-M2 (`minimax_m2`) is all softmax.
- DeepSeek-V3.2 and GLM-5 (`deepseek_v32`, `glm_moe_dsa`): MLA plus a DSA indexer of
  `index_n_heads` × `index_head_dim` choosing `index_topk` tokens.
- GLM-4.5/4.6/4.7 (`glm4_moe`): `attention_bias` puts biases on q, k, v only (Glm4MoeAttention's
  o_proj has none); `use_qk_norm`.
- ERNIE 4.5 (`ernie4_5`, `ernie4_5_moe`): `use_bias`, experts from `moe_layer_start_index`
  every `moe_layer_interval` layers up to `moe_layer_end_index`, shared experts in one MLP.
- Hunyuan (`hunyuan_v1_dense`, `hunyuan_v1_moe`): `use_qk_norm`; `moe_topk`, `num_experts`,
  `num_shared_expert` and `moe_intermediate_size` may be per-layer lists (the first is read).
- Seed-OSS (`seed_oss`): `attention_bias` on q, k, v, `attention_out_bias` on o.
- Encoders served as embedders or rerankers (`xlm-roberta`, `bert`, `roberta`: BGE-M3 and
  friends): LayerNorm with biases, learned positions, no LM head and no KV cache.
- Vision-language wrappers (Qwen3-VL, Qwen3.5): the `vision_config` tower's parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpuwise.catalog.hf_families import Config, ModelTraits, first, generic, qwen3, words
from gpuwise.catalog.schema_arch import LinearAttention, SparseAttention, Vision

ENCODER_TYPES = frozenset(words("xlm-roberta bert roberta"))
"""Encoder families gpuwise reads when they are embedders (…Model) or rerankers
(…ForSequenceClassification); a masked-LM head (BertForMaskedLM) is still refused."""


def _int(value: Any) -> int:
    if isinstance(value, list) and value:
        value = value[0]
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def qwen3_hybrid(cfg: Config) -> ModelTraits:
    """Qwen3-Next and Qwen3.5: Qwen3's q/k norms, and a gated q_proj in full attention."""
    gate = bool(cfg.get("attn_output_gate", True))
    return qwen3(cfg).with_shape(attn_output_gate=gate)


def glm4_moe(cfg: Config) -> ModelTraits:
    """GLM-4.5/4.6/4.7: biases on q, k, v only; optional per-head q/k RMSNorm."""
    bias = bool(cfg.get("attention_bias", False))
    return generic(cfg).with_shape(
        qkv_bias=bias, o_bias=False, qk_norm=bool(cfg.get("use_qk_norm", False))
    )


def minimax(cfg: Config) -> ModelTraits:
    """MiniMax-01/M1/M2: no biases; M2 norms q and k (over all heads at once)."""
    return generic(cfg).with_shape(
        qkv_bias=False, o_bias=False, qk_norm=bool(cfg.get("use_qk_norm", False))
    )


def ernie4_5(cfg: Config) -> ModelTraits:
    """ERNIE 4.5: `use_bias` on every projection (false in the released checkpoints)."""
    bias = bool(cfg.get("use_bias", False))
    return generic(cfg).with_shape(qkv_bias=bias, o_bias=bias, ffn_bias=bias)


def hunyuan(cfg: Config) -> ModelTraits:
    """Hunyuan v1 dense and MoE: per-head q/k RMSNorm when `use_qk_norm`."""
    return generic(cfg).with_shape(qk_norm=bool(cfg.get("use_qk_norm", False)))


def seed_oss(cfg: Config) -> ModelTraits:
    """Seed-OSS: q/k/v biases (`attention_bias`), o bias only with `attention_out_bias`."""
    return generic(cfg).with_shape(
        qkv_bias=bool(cfg.get("attention_bias", False)),
        o_bias=bool(cfg.get("attention_out_bias", False)),
        ffn_bias=bool(cfg.get("mlp_bias", False)),
    )


def encoder(cfg: Config) -> ModelTraits:
    """BERT-style encoders (XLM-R: BGE-M3): LayerNorm with biases, plain GELU MLP, learned
    positions and an embedding LayerNorm; the embedding matrix is the only vocabulary table."""
    t = generic(cfg)
    archs = " ".join(str(a) for a in cfg.get("architectures") or [])
    task = "rerank" if "ForSequenceClassification" in archs else "embed"
    return ModelTraits(
        hidden=t.hidden,
        layers=t.layers,
        heads=t.heads,
        kv_heads=t.heads,
        head_dim=t.head_dim,
        intermediate=t.intermediate,
        vocab=t.vocab,
        context=t.context,
        tied=True,
    ).with_shape(
        norm="layer",
        gated_ffn=False,
        qkv_bias=True,
        o_bias=True,
        ffn_bias=True,
        embedding_norm=True,
        learned_positions=t.context,
        rotary_fraction=0.0,
        bidirectional=True,
        task=task,
    )


MODERN_READERS: dict[str, Callable[[Config], ModelTraits]] = {
    "qwen3_next": qwen3_hybrid,
    "qwen3_5": qwen3_hybrid,
    "qwen3_5_text": qwen3_hybrid,
    "qwen3_5_moe": qwen3_hybrid,
    "qwen3_5_moe_text": qwen3_hybrid,
    "qwen3_vl": qwen3,
    "qwen3_vl_text": qwen3,
    "qwen3_vl_moe": qwen3,
    "qwen3_vl_moe_text": qwen3,
    "deepseek_v3": generic,
    "deepseek_v32": generic,
    "kimi_k2": generic,
    "glm_moe_dsa": generic,
    "glm4_moe": glm4_moe,
    "glm4_moe_lite": generic,
    "minimax": minimax,
    "minimax_text_01": minimax,
    "minimax_m1": minimax,
    "minimax_m2": minimax,
    "ernie4_5": ernie4_5,
    "ernie4_5_moe": ernie4_5,
    "hunyuan_v1_dense": hunyuan,
    "hunyuan_v1_moe": hunyuan,
    "seed_oss": seed_oss,
    **dict.fromkeys(ENCODER_TYPES, encoder),
}


def _linear_layer_flags(cfg: Config, layers: int) -> list[bool] | None:
    """Per layer: True where the layer is linear attention; None when the config has none."""
    types = cfg.get("layer_types")
    if isinstance(types, list) and any(str(t) == "linear_attention" for t in types):
        return [str(t) == "linear_attention" for t in types[:layers]]
    codes = cfg.get("attn_type_list")
    if isinstance(codes, list) and codes:
        return [int(c) == 0 for c in codes[:layers]]
    if "linear_num_value_heads" in cfg:
        interval = _int(cfg.get("full_attention_interval")) or 4
        return [(i + 1) % interval != 0 for i in range(layers)]
    return None


def linear_fields(cfg: Config, model_type: str, layers: int) -> dict[str, Any]:
    """`linear_attention` and the full-attention layer count of a hybrid model."""
    flags = _linear_layer_flags(cfg, layers)
    if not flags or not any(flags):
        return {}
    count = sum(flags)
    if "linear_num_value_heads" in cfg:
        lin = LinearAttention(
            kind="gated-deltanet",
            layers=count,
            key_heads=_int(cfg.get("linear_num_key_heads")),
            value_heads=_int(cfg.get("linear_num_value_heads")),
            key_head_dim=_int(cfg.get("linear_key_head_dim")),
            value_head_dim=_int(cfg.get("linear_value_head_dim")),
            conv_kernel=_int(cfg.get("linear_conv_kernel_dim")) or 4,
        )
    else:  # MiniMax lightning attention: one head_dim × head_dim state per query head
        heads = _int(cfg.get("num_attention_heads"))
        head_dim = _int(cfg.get("head_dim")) or _int(cfg.get("hidden_size")) // max(heads, 1)
        lin = LinearAttention(
            kind="lightning",
            layers=count,
            key_heads=heads,
            value_heads=heads,
            key_head_dim=head_dim,
            value_head_dim=head_dim,
        )
    return {"linear_attention": lin, "attention_layers": layers - count}


def sparse_fields(cfg: Config) -> dict[str, Any]:
    """DeepSeek sparse attention's indexer (V3.2, GLM-5), when the config has one."""
    if not cfg.get("index_topk"):
        return {}
    return {
        "sparse_attention": SparseAttention(
            index_heads=_int(cfg.get("index_n_heads")) or 64,
            index_head_dim=_int(cfg.get("index_head_dim")) or 128,
            top_k=_int(cfg.get("index_topk")),
        )
    }


def vision_params(vc: Config) -> int:
    """Parameters of a Qwen-VL-style vision tower: a Conv3d patch embedding, a learned position
    table, pre-norm ViT blocks (LayerNorm, fused qkv and proj with biases, a plain GELU MLP) and
    patch mergers (LayerNorm over merge² patches, two linears) — one, plus one per deepstack
    layer (Qwen3-VL). Other towers are read the same way and may be off by their extras."""
    h = _int(first(vc, "hidden_size", "embed_dim"))
    depth = _int(first(vc, "depth", "num_hidden_layers"))
    if not (h and depth):
        return 0
    inter = _int(vc.get("intermediate_size")) or 4 * h
    patch = _int(vc.get("patch_size")) or 14
    temporal = _int(vc.get("temporal_patch_size")) or 1
    channels = _int(first(vc, "in_channels", "num_channels")) or 3
    out = _int(first(vc, "out_hidden_size", "projection_dim")) or h
    merge = _int(vc.get("spatial_merge_size")) or 1
    block = 2 * 2 * h + (3 * h * h + 3 * h) + (h * h + h) + (h * inter + inter) + (inter * h + h)
    wide = h * merge * merge
    merger = 2 * wide + (wide * wide + wide) + (wide * out + out)
    mergers = 1 + len(vc.get("deepstack_visual_indexes") or [])
    embed = channels * temporal * patch * patch * h + h
    positions = _int(vc.get("num_position_embeddings")) * h
    return depth * block + mergers * merger + embed + positions


def vision_fields(cfg: Config) -> dict[str, Any]:
    """The vision tower of a vision-language config (top-level `vision_config`)."""
    vc = cfg.get("vision_config")
    if not isinstance(vc, dict):
        return {}
    params = vision_params(vc)
    return {"vision": Vision(params_b=params / 1e9)} if params else {}


def moe_layer_count(cfg: Config, layers: int) -> int | None:
    """MoE layers under ERNIE's start/interval/end keys (None for other families)."""
    if "moe_layer_start_index" not in cfg:
        return None
    start = _int(cfg.get("moe_layer_start_index"))
    raw_end = cfg.get("moe_layer_end_index")
    end = layers - 1 if raw_end is None or _int(raw_end) < 0 else min(_int(raw_end), layers - 1)
    step = _int(cfg.get("moe_layer_interval")) or 1
    return sum(1 for i in range(start, end + 1) if (i - start) % step == 0)


def moe_keys(cfg: Config) -> dict[str, int]:
    """Expert counts under ERNIE's and Hunyuan's key names, normalised (absent keys omitted)."""
    out: dict[str, int] = {}
    shared = first(cfg, "moe_num_shared_experts", "num_shared_expert")
    if shared is not None:
        out["shared"] = _int(shared)
    top_k = first(cfg, "moe_k", "moe_topk")
    if top_k is not None:
        out["top_k"] = _int(top_k)
    width = cfg.get("moe_intermediate_size")
    if isinstance(width, list):
        out["expert_width"] = _int(width)
    return out
