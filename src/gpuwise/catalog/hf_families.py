"""Per-family readers of config.json: each turns its architecture's own key names into shapes.

Defaults follow the family's transformers config class (or the checkpoint's remote code when
the family never entered transformers), so a config that omits a key reads as the model that
loads from it: e.g. `tie_word_embeddings` defaults to true for Falcon, BLOOM, Gemma, GPT-BigCode
and Mamba, and to false for Llama, Qwen, Mistral and GPT-NeoX.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

Config = dict[str, Any]


def words(text: str) -> list[str]:
    """Names written as one space-separated string (long lists stay readable)."""
    return text.split()


_TIED_BY_DEFAULT = frozenset(
    words(
        "gemma gemma2 gemma3 gemma3_text bloom opt gpt2 gpt_bigcode mamba falcon refinedweb "
        "refinedwebmodel mpt starcoder2 cohere cohere2 gpt_neo smollm3"
    )
)


def first(cfg: Config, *keys: str, default: Any = None) -> Any:
    """The first key present with a non-null value (architectures spell shapes differently)."""
    for key in keys:
        value = cfg.get(key)
        if value is not None:
            return value
    return default


@dataclass(frozen=True)
class ModelTraits:
    """The shapes every family reader produces; `shape` holds LlmModel's optional fields."""

    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    vocab: int
    context: int
    tied: bool
    ssm_only: bool = False
    shape: dict[str, Any] = field(default_factory=dict)

    def with_shape(self, **kw: Any) -> ModelTraits:
        """A copy with more optional fields set."""
        return replace(self, shape={**self.shape, **kw})


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def generic(cfg: Config) -> ModelTraits:
    """Llama-style keys, with the aliases other families use for the same numbers."""
    model_type = str(cfg.get("model_type", "")).lower()
    hidden = _int(first(cfg, "hidden_size", "n_embd", "n_embed", "d_model", "dim"))
    heads = _int(first(cfg, "num_attention_heads", "n_head", "n_heads", "num_heads"))
    kv = _int(first(cfg, "num_key_value_heads", "num_kv_heads", "n_head_kv", "kv_n_heads"))
    bias = bool(first(cfg, "attention_bias", "bias", default=False))
    traits = ModelTraits(
        hidden=hidden,
        layers=_int(first(cfg, "num_hidden_layers", "n_layer", "n_layers", "num_layers")),
        heads=heads,
        kv_heads=kv or heads,
        head_dim=_int(first(cfg, "head_dim", "kv_channels")),
        intermediate=_int(first(cfg, "intermediate_size", "n_inner", "ffn_hidden_size", "ffn_dim")),
        vocab=_int(first(cfg, "vocab_size", "padded_vocab_size", "n_vocab")),
        context=_int(
            first(
                cfg,
                "max_position_embeddings",
                "n_positions",
                "max_seq_len",
                "seq_length",
                "max_sequence_length",
                "n_ctx",
            )
        ),
        tied=bool(cfg.get("tie_word_embeddings", model_type in _TIED_BY_DEFAULT)),
    )
    rotary = first(cfg, "partial_rotary_factor", "rotary_pct", default=1.0)
    return traits.with_shape(
        qkv_bias=bias,
        o_bias=bias,
        ffn_bias=bool(cfg.get("mlp_bias", False)),
        rotary_fraction=float(rotary) if isinstance(rotary, int | float) else 1.0,
    )


def gptj(cfg: Config) -> ModelTraits:
    """GPT-J: parallel attention + MLP under one LayerNorm; fc biases, lm_head bias, rotary_dim."""
    t = generic(cfg)
    head_dim = t.hidden // max(t.heads, 1)
    return t.with_shape(
        norm="layer",
        norms_per_layer=1,
        parallel_attn_ffn=True,
        gated_ffn=False,
        qkv_bias=False,
        o_bias=False,
        ffn_bias=True,
        lm_head_bias=True,
        rotary_fraction=min(1.0, _int(cfg.get("rotary_dim")) / head_dim) if head_dim else 1.0,
    )


def gpt_neox(cfg: Config) -> ModelTraits:
    """GPT-NeoX / Pythia / RedPajama: biases everywhere, parallel residual by default."""
    return generic(cfg).with_shape(
        norm="layer",
        gated_ffn=False,
        qkv_bias=True,
        o_bias=True,
        ffn_bias=True,
        parallel_attn_ffn=bool(cfg.get("use_parallel_residual", True)),
    )


def falcon(cfg: Config) -> ModelTraits:
    """Falcon (and its RefinedWeb remote code): MQA unless the new decoder, 1 or 2 LayerNorms.

    `new_decoder_architecture` (Falcon-40B/180B, model_type RefinedWeb) groups K/V in
    `num_kv_heads`/`n_head_kv` groups and norms attention and MLP inputs separately; otherwise
    `multi_query` (default true) means one K/V head and one shared LayerNorm.
    """
    t = generic(cfg)
    remote_rw = cfg.get("model_type") == "RefinedWeb"  # Falcon-40B's RWConfig: n_head_kv or 1
    new = bool(cfg.get("new_decoder_architecture")) or remote_rw
    kv = t.kv_heads if new else (1 if cfg.get("multi_query", True) else t.heads)
    if remote_rw and not cfg.get("n_head_kv"):
        kv = 1
    parallel = bool(cfg.get("parallel_attn", True))
    norms = (_int(cfg.get("num_ln_in_parallel_attn")) or 2) if new else (1 if parallel else 2)
    bias = bool(cfg.get("bias", False))
    return replace(t, kv_heads=kv).with_shape(
        norm="layer",
        norms_per_layer=norms if parallel else 2,
        parallel_attn_ffn=parallel,
        gated_ffn=False,
        qkv_bias=bias,
        o_bias=bias,
        ffn_bias=bias,
        rotary_fraction=0.0 if cfg.get("alibi") else 1.0,
    )


def gpt_bigcode(cfg: Config) -> ModelTraits:
    """GPT-BigCode (SantaCoder, StarCoder): GPT-2 blocks, learned positions, MQA by default."""
    t = generic(cfg)
    kv = 1 if cfg.get("multi_query", True) else t.heads
    return replace(t, kv_heads=kv).with_shape(
        norm="layer",
        gated_ffn=False,
        qkv_bias=True,
        o_bias=True,
        ffn_bias=True,
        learned_positions=t.context,
        rotary_fraction=0.0,
    )


def gpt2(cfg: Config) -> ModelTraits:
    """GPT-2: like GPT-BigCode with full multi-head attention."""
    return gpt_bigcode({**cfg, "multi_query": False})


def bloom(cfg: Config) -> ModelTraits:
    """BLOOM: ALiBi, biases everywhere, a LayerNorm right after the word embeddings."""
    return generic(cfg).with_shape(
        norm="layer",
        gated_ffn=False,
        qkv_bias=True,
        o_bias=True,
        ffn_bias=True,
        embedding_norm=True,
        rotary_fraction=0.0,
    )


def opt(cfg: Config) -> ModelTraits:
    """OPT: learned positions with an offset of 2 rows, biases everywhere."""
    t = generic(cfg)
    return t.with_shape(
        norm="layer",
        gated_ffn=False,
        qkv_bias=True,
        o_bias=True,
        ffn_bias=True,
        learned_positions=t.context + 2,
        rotary_fraction=0.0,
    )


def mpt(cfg: Config) -> ModelTraits:
    """MPT: `d_model`, `expansion_ratio`; `no_bias` also drops the LayerNorm biases."""
    t = generic(cfg)
    raw = cfg.get("attn_config")
    attn: Config = raw if isinstance(raw, dict) else {}
    alibi = bool(attn.get("alibi", False))
    bias = not cfg.get("no_bias", False)
    ratio = _int(cfg.get("expansion_ratio")) or 4
    return replace(
        t, intermediate=ratio * t.hidden, kv_heads=_int(attn.get("kv_n_heads")) or t.heads
    ).with_shape(
        norm="layer" if bias else "rms",
        gated_ffn=False,
        qkv_bias=bias,
        o_bias=bias,
        ffn_bias=bias,
        rotary_fraction=0.0,
        learned_positions=t.context if cfg.get("learned_pos_emb", True) and not alibi else 0,
    )


def phi(cfg: Config) -> ModelTraits:
    """Phi-1/1.5/2 (and the older phi-msft / mixformer-sequential remote code).

    One LayerNorm per block feeding attention and MLP in parallel, biases on every linear
    layer and on the LM head; rotary on `partial_rotary_factor` (or `rotary_dim`) of each head.
    """
    t = generic(cfg)
    head_dim = t.head_dim or t.hidden // max(t.heads, 1)
    rotary = cfg.get("partial_rotary_factor")
    if rotary is None and cfg.get("rotary_dim") and head_dim:
        rotary = _int(cfg.get("rotary_dim")) / head_dim
    return t.with_shape(
        norm="layer",
        norms_per_layer=1,
        parallel_attn_ffn=True,
        gated_ffn=False,
        qkv_bias=True,
        o_bias=True,
        ffn_bias=True,
        lm_head_bias=True,
        qk_norm=bool(cfg.get("qk_layernorm", False)),
        rotary_fraction=float(rotary or 1.0),
    )


def qwen_v1(cfg: Config) -> ModelTraits:
    """Qwen v1: `intermediate_size` counts both halves of the gated FFN (w1 and w2 are each
    half of it, see modeling_qwen.QWenMLP); c_attn has a bias, c_proj does not."""
    t = generic(cfg)
    return replace(t, intermediate=t.intermediate // 2).with_shape(qkv_bias=True, o_bias=False)


def qwen2(cfg: Config) -> ModelTraits:
    """Qwen2 / Qwen2.5 / Qwen2-MoE: q, k, v always carry biases, o does not."""
    return generic(cfg).with_shape(qkv_bias=True, o_bias=False)


def qwen3(cfg: Config) -> ModelTraits:
    """Qwen3 / Qwen3-MoE: no biases by default, per-head RMSNorm on q and k."""
    return generic(cfg).with_shape(qk_norm=True)


def gemma(cfg: Config) -> ModelTraits:
    """Gemma: tied embeddings, GeGLU."""
    return generic(cfg)


def gemma2(cfg: Config) -> ModelTraits:
    """Gemma 2: pre- and post-norms around attention and FFN (4 RMSNorms per block)."""
    return generic(cfg).with_shape(norms_per_layer=4)


def gemma3(cfg: Config) -> ModelTraits:
    """Gemma 3: Gemma 2's four norms plus q/k RMSNorm."""
    return generic(cfg).with_shape(norms_per_layer=4, qk_norm=True)


def phi3(cfg: Config) -> ModelTraits:
    """Phi-3/3.5/4: fused qkv and gate_up, no biases."""
    return generic(cfg)


def starcoder2(cfg: Config) -> ModelTraits:
    """StarCoder2: LayerNorm with bias, plain GELU MLP, biases when `use_bias` (default true)."""
    bias = bool(cfg.get("use_bias", True))
    return generic(cfg).with_shape(
        norm="layer", gated_ffn=False, qkv_bias=bias, o_bias=bias, ffn_bias=bias
    )


def stablelm(cfg: Config) -> ModelTraits:
    """StableLM: LayerNorm with bias, q/k/v biases when `use_qkv_bias`, partial rotary."""
    bias = bool(cfg.get("use_qkv_bias", False))
    return generic(cfg).with_shape(norm="layer", qkv_bias=bias, o_bias=False)


def cohere(cfg: Config) -> ModelTraits:
    """Command-R / Aya: one bias-free LayerNorm feeding attention and MLP in parallel."""
    return generic(cfg).with_shape(
        norms_per_layer=1, parallel_attn_ffn=True, qk_norm=bool(cfg.get("use_qk_norm", False))
    )


def chatglm(cfg: Config) -> ModelTraits:
    """ChatGLM2/3 and GLM-4 (remote code): grouped K/V in `multi_query_group_num`, a gated FFN
    of `ffn_hidden_size` (dense_h_to_4h outputs twice that), `padded_vocab_size`."""
    t = generic(cfg)
    kv = _int(cfg.get("multi_query_group_num")) if cfg.get("multi_query_attention") else t.heads
    qkv_bias = bool(cfg.get("add_qkv_bias", False))
    linear_bias = bool(cfg.get("add_bias_linear", False))
    return replace(
        t,
        kv_heads=kv or t.heads,
        vocab=_int(first(cfg, "padded_vocab_size", "vocab_size")),
        tied=bool(cfg.get("tie_word_embeddings", False)),
    ).with_shape(
        norm="rms" if cfg.get("rmsnorm", True) else "layer",
        qkv_bias=qkv_bias,
        o_bias=linear_bias,
        ffn_bias=linear_bias,
        rotary_fraction=0.5,
    )


def internlm(cfg: Config) -> ModelTraits:
    """InternLM v1 / v2: `bias` puts biases on the attention projections only."""
    bias = bool(cfg.get("bias", False))
    return generic(cfg).with_shape(qkv_bias=bias, o_bias=bias, ffn_bias=False)


def gpt_oss(cfg: Config) -> ModelTraits:
    """gpt-oss: attention biases, and biases on every expert's projections."""
    return generic(cfg).with_shape(qkv_bias=True, o_bias=True, ffn_bias=True)


def mamba(cfg: Config) -> ModelTraits:
    """Mamba / Falcon-Mamba: a stack of Mamba-1 mixers, one RMSNorm each, no attention."""
    t = generic(cfg)
    return replace(t, heads=0, kv_heads=0, ssm_only=True).with_shape(
        norms_per_layer=1, attention_layers=0, ffn_layers=0, rotary_fraction=0.0
    )


FAMILY_READERS: dict[str, Callable[[Config], ModelTraits]] = {
    "": generic,
    "gptj": gptj,
    "gpt_neox": gpt_neox,
    "falcon": falcon,
    "refinedweb": falcon,
    "refinedwebmodel": falcon,
    "gpt_bigcode": gpt_bigcode,
    "gpt2": gpt2,
    "bloom": bloom,
    "opt": opt,
    "mpt": mpt,
    "phi": phi,
    "phi-msft": phi,
    "mixformer-sequential": phi,
    "qwen": qwen_v1,
    "qwen2": qwen2,
    "qwen2_moe": qwen2,
    "qwen3": qwen3,
    "qwen3_moe": qwen3,
    "gemma": gemma,
    "gemma2": gemma2,
    "gemma3": gemma3,
    "gemma3_text": gemma3,
    "phi3": phi3,
    "starcoder2": starcoder2,
    "stablelm": stablelm,
    "cohere": cohere,
    "cohere2": cohere,
    "chatglm": chatglm,
    "glm": generic,
    "internlm": internlm,
    "internlm2": internlm,
    "gpt_oss": gpt_oss,
    "mamba": mamba,
    "falcon_mamba": mamba,
}
