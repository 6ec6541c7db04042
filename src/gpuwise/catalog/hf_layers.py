"""Which layers of a config.json model do what: sliding-window and global attention, experts,
Mamba mixers. The patterns follow the transformers implementations of each family:

- `layer_types` (Gemma 3, gpt-oss, newer configs) lists each layer's attention kind;
- Gemma 2 without it: even layers (0, 2, …) slide (`Gemma2DecoderLayer.is_sliding`);
- Gemma 3 / Cohere2 without it: layer i slides unless (i + 1) % sliding_window_pattern == 0;
- Qwen2-family: the window applies only when `use_sliding_window`, from `max_window_layers` on;
- Llama 4: RoPE layers (`no_rope_layers` = 1) attend within `attention_chunk_size` tokens;
- Jamba: attention where i % attn_layer_period == attn_layer_offset, Mamba elsewhere;
  experts where i % expert_layer_period == expert_layer_offset;
- Nemotron-H: `hybrid_override_pattern`, one character a layer (M Mamba-2, * attention,
  - MLP, E experts).
"""

from __future__ import annotations

import math
from typing import Any

from gpuwise.catalog.hf_families import Config, first
from gpuwise.catalog.hf_modern import moe_keys, moe_layer_count
from gpuwise.catalog.schema_arch import Mla, Moe, Ssm

_WINDOW_OFF_BY_DEFAULT = frozenset(("qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "smollm3"))
_ATTENTION_KINDS = ("full_attention", "sliding_attention", "chunked_attention", "attention")


def _count(n: int, pred: Any) -> int:
    return sum(1 for i in range(n) if pred(i))


def attention_pattern(cfg: Config, model_type: str, layers: int) -> dict[str, Any]:
    """`sliding_window`, how many layers use it, and how many layers attend at all."""
    out: dict[str, Any] = {}
    types = cfg.get("layer_types")
    if isinstance(types, list) and types:
        kinds = [str(x) for x in types[:layers]]
        out["attention_layers"] = sum(1 for k in kinds if k in _ATTENTION_KINDS)
        sliding = sum(1 for k in kinds if k in ("sliding_attention", "chunked_attention"))
    elif model_type == "gemma2":
        sliding = _count(layers, lambda i: i % 2 == 0)
    elif model_type in ("gemma3", "gemma3_text", "cohere2"):
        period = int(cfg.get("sliding_window_pattern") or (4 if model_type == "cohere2" else 6))
        sliding = _count(layers, lambda i: (i + 1) % period != 0)
    else:
        sliding = layers
    window = cfg.get("sliding_window")
    use = cfg.get("use_sliding_window", model_type not in _WINDOW_OFF_BY_DEFAULT)
    if model_type in _WINDOW_OFF_BY_DEFAULT and use and not isinstance(types, list):
        sliding = max(0, layers - int(cfg.get("max_window_layers") or 0))
    chunk = cfg.get("attention_chunk_size")
    if model_type.startswith("llama4") and isinstance(chunk, int) and chunk > 0:
        rope = cfg.get("no_rope_layers")
        rope_layers = [int(x) for x in rope] if isinstance(rope, list) and rope else None
        window, use = chunk, True
        sliding = sum(rope_layers) if rope_layers else _count(layers, lambda i: (i + 1) % 4 != 0)
    if isinstance(window, int) and window > 0 and use and sliding:
        out["sliding_window"] = window
        out["sliding_window_layers"] = min(sliding, out.get("attention_layers", layers))
    return out


def _moe_layers(cfg: Config, model_type: str, layers: int) -> int:
    """How many layers route to experts (the rest run the dense FFN)."""
    ernie = moe_layer_count(cfg, layers)
    if ernie is not None:
        return ernie
    if model_type.startswith("deepseek") or "first_k_dense_replace" in cfg:
        dense = int(cfg.get("first_k_dense_replace") or 0)
        freq = int(cfg.get("moe_layer_freq") or 1)
        return _count(layers, lambda i: i >= dense and i % freq == 0)
    if "decoder_sparse_step" in cfg or "mlp_only_layers" in cfg:
        step = int(cfg.get("decoder_sparse_step") or 1)
        only = set(cfg.get("mlp_only_layers") or [])
        return _count(layers, lambda i: i not in only and (i + 1) % step == 0)
    if "expert_layer_period" in cfg:
        period, offset = int(cfg["expert_layer_period"]), int(cfg.get("expert_layer_offset", 0))
        return _count(layers, lambda i: i % period == offset)
    if "interleave_moe_layer_step" in cfg:
        step = int(cfg.get("interleave_moe_layer_step") or 1)
        return _count(layers, lambda i: (i + 1) % step == 0)
    return layers


def moe_fields(cfg: Config, model_type: str, fields: dict[str, Any]) -> dict[str, Any]:
    """Mixture-of-experts and multi-head latent attention settings."""
    out: dict[str, Any] = {}
    if cfg.get("kv_lora_rank"):
        out["mla"] = Mla(
            kv_lora_rank=cfg["kv_lora_rank"],
            qk_rope_head_dim=cfg["qk_rope_head_dim"],
            qk_nope_head_dim=cfg["qk_nope_head_dim"],
            v_head_dim=cfg["v_head_dim"],
            q_lora_rank=cfg.get("q_lora_rank") or 0,
        )
    experts = int(
        first(
            cfg,
            "n_routed_experts",
            "num_local_experts",
            "num_experts",
            "moe_num_experts",
            default=0,
        )
    )
    if experts <= 1:
        return out
    layers = int(fields["layers"])
    keys = moe_keys(cfg)
    dense_width = int(first(cfg, "intermediate_size_mlp", "intermediate_size", default=0))
    expert_width = keys.get("expert_width") or int(
        first(cfg, "moe_intermediate_size", "intermediate_size", default=0)
    )
    shared_width = int(cfg.get("shared_expert_intermediate_size") or 0)
    shared = int(cfg.get("n_shared_experts") or (1 if shared_width else 0))
    if model_type.startswith("llama4"):
        shared, shared_width = 1, expert_width
    if "shared" in keys:  # ERNIE: shared experts of the routed width; Hunyuan: the dense width
        shared = keys["shared"]
        shared_width = dense_width if model_type.startswith("hunyuan") else expert_width
    active = keys.get("top_k") or int(
        first(cfg, "num_experts_per_tok", "experts_per_token", "moe_top_k", default=1)
    )
    out["moe"] = Moe(
        experts=experts,
        active_experts=active,
        shared_experts=shared,
        expert_intermediate_size=expert_width or fields["intermediate_size"],
        moe_layers=max(1, _moe_layers(cfg, model_type, layers)),
        shared_expert_intermediate_size=shared_width,
    )
    if dense_width:
        out["intermediate_size"] = dense_width
    return out


def _dt_rank(value: Any, hidden: int) -> int:
    """Mamba's dt_rank: a number, or "auto" = ceil(hidden / 16) (MambaConfig)."""
    return int(value) if isinstance(value, int) else math.ceil(hidden / 16)


def ssm_fields(cfg: Config, model_type: str, fields: dict[str, Any]) -> dict[str, Any]:
    """Mamba mixers of pure SSM models and of hybrids (Jamba, Falcon-H1, Nemotron-H)."""
    hidden, layers = int(fields["hidden_size"]), int(fields["layers"])
    if model_type in ("mamba", "falcon_mamba"):
        d_inner = int(first(cfg, "intermediate_size", default=0)) or int(
            cfg.get("expand", 2) * hidden
        )
        ssm = Ssm(
            layers=layers,
            d_inner=d_inner,
            state_size=int(cfg.get("state_size", 16)),
            conv_kernel=int(cfg.get("conv_kernel", 4)),
            dt_rank=_dt_rank(cfg.get("time_step_rank"), hidden),
            proj_bias=bool(cfg.get("use_bias", False)),
            conv_bias=bool(cfg.get("use_conv_bias", True)),
        )
        return {"ssm": ssm, "intermediate_size": d_inner}
    if model_type == "jamba":
        return _jamba(cfg, hidden, layers)
    if model_type == "falcon_h1":
        return _falcon_h1(cfg, hidden, layers)
    if model_type == "nemotron_h":
        return _nemotron_h(cfg, layers)
    return {}


def _jamba(cfg: Config, hidden: int, layers: int) -> dict[str, Any]:
    types = cfg.get("layers_block_type")
    if isinstance(types, list) and types:
        attention = sum(1 for t in types if t == "attention")
    else:
        period, offset = int(cfg.get("attn_layer_period", 8)), int(cfg.get("attn_layer_offset", 4))
        attention = _count(layers, lambda i: i % period == offset)
    ssm = Ssm(
        layers=layers - attention,
        d_inner=int(cfg.get("mamba_expand", 2)) * hidden,
        state_size=int(cfg.get("mamba_d_state", 16)),
        conv_kernel=int(cfg.get("mamba_d_conv", 4)),
        dt_rank=_dt_rank(cfg.get("mamba_dt_rank"), hidden),
        proj_bias=bool(cfg.get("mamba_proj_bias", False)),
        conv_bias=bool(cfg.get("mamba_conv_bias", True)),
    )
    return {"ssm": ssm, "attention_layers": attention}


def _falcon_h1(cfg: Config, hidden: int, layers: int) -> dict[str, Any]:
    """Falcon-H1 runs attention and a Mamba-2 mixer side by side in every layer."""
    heads = int(cfg.get("mamba_n_heads") or 128)
    d_inner = int(cfg.get("mamba_d_ssm") or heads * int(cfg.get("mamba_d_head") or 64))
    ssm = Ssm(
        layers=layers,
        d_inner=d_inner,
        state_size=int(cfg.get("mamba_d_state", 256)),
        conv_kernel=int(cfg.get("mamba_d_conv", 4)),
        heads=heads,
        groups=int(cfg.get("mamba_n_groups", 1)),
        proj_bias=bool(cfg.get("mamba_proj_bias", False)),
        conv_bias=bool(cfg.get("mamba_conv_bias", True)),
    )
    return {"ssm": ssm}


def _nemotron_h(cfg: Config, layers: int) -> dict[str, Any]:
    """Nemotron-H: each layer is one mixer (M, *, - or E) behind one RMSNorm."""
    pattern = str(cfg.get("hybrid_override_pattern") or "")[:layers]
    heads = int(cfg.get("mamba_num_heads") or 128)
    ssm = Ssm(
        layers=pattern.count("M"),
        d_inner=heads * int(cfg.get("mamba_head_dim") or 64),
        state_size=int(cfg.get("ssm_state_size", 128)),
        conv_kernel=int(cfg.get("conv_kernel", 4)),
        heads=heads,
        groups=int(cfg.get("n_groups", 1)),
        proj_bias=bool(cfg.get("use_bias", False)),
        conv_bias=bool(cfg.get("use_conv_bias", True)),
    )
    return {
        "ssm": ssm,
        "attention_layers": pattern.count("*"),
        "ffn_layers": pattern.count("-") + pattern.count("E"),
        "norms_per_layer": 1,
        "gated_ffn": False,
    }
