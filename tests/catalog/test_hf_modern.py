"""config.json shapes of the 2025–26 families (issue 29): hybrids, DSA, new MoE keys, encoders.

The dicts carry the keys each family's released config.json uses, with the released sizes; each
test names where its sizes and its expected count were read (see the catalog entries' sources).
"""

from __future__ import annotations

from typing import Any

import pytest

from gpuwise.catalog.hf_config import fields_from_config
from gpuwise.catalog.local import _with_counts
from gpuwise.catalog.schema import LlmModel
from gpuwise.errors import UserError
from gpuwise.estimate.kv import attended_keys, kv_cache_bytes, linear_state_bytes

QWEN3_NEXT = {
    "architectures": ["Qwen3NextForCausalLM"],
    "model_type": "qwen3_next",
    "hidden_size": 2048,
    "intermediate_size": 5120,
    "num_hidden_layers": 48,
    "num_attention_heads": 16,
    "num_key_value_heads": 2,
    "head_dim": 256,
    "vocab_size": 151936,
    "max_position_embeddings": 262144,
    "tie_word_embeddings": False,
    "full_attention_interval": 4,
    "linear_conv_kernel_dim": 4,
    "linear_key_head_dim": 128,
    "linear_value_head_dim": 128,
    "linear_num_key_heads": 16,
    "linear_num_value_heads": 32,
    "decoder_sparse_step": 1,
    "mlp_only_layers": [],
    "moe_intermediate_size": 512,
    "num_experts": 512,
    "num_experts_per_tok": 10,
    "shared_expert_intermediate_size": 512,
    "partial_rotary_factor": 0.25,
}

MINIMAX_M1 = {
    "architectures": ["MiniMaxText01ForCausalLM"],
    "model_type": "minimax_text_01",
    "hidden_size": 6144,
    "intermediate_size": 9216,
    "num_hidden_layers": 80,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "vocab_size": 200064,
    "num_local_experts": 32,
    "num_experts_per_tok": 2,
    "attn_type_list": [int((i + 1) % 8 == 0) for i in range(80)],
    "max_position_embeddings": 10240000,
}

DEEPSEEK_V32 = {
    "architectures": ["DeepseekV32ForCausalLM"],
    "model_type": "deepseek_v32",
    "vocab_size": 129280,
    "hidden_size": 7168,
    "intermediate_size": 18432,
    "moe_intermediate_size": 2048,
    "num_hidden_layers": 61,
    "num_attention_heads": 128,
    "num_key_value_heads": 128,
    "n_shared_experts": 1,
    "n_routed_experts": 256,
    "num_experts_per_tok": 8,
    "first_k_dense_replace": 3,
    "kv_lora_rank": 512,
    "q_lora_rank": 1536,
    "qk_rope_head_dim": 64,
    "qk_nope_head_dim": 128,
    "v_head_dim": 128,
    "index_n_heads": 64,
    "index_head_dim": 128,
    "index_topk": 2048,
    "max_position_embeddings": 163840,
}


def _read(cfg: dict[str, Any]) -> LlmModel:
    base = {"id": "t", "name": "t", "source": "t", "params_b": 1.0, "active_params_b": 1.0}
    return _with_counts(LlmModel.model_validate({**base, **fields_from_config(cfg, "cfg")}), None)


def test_qwen3_next_hybrid_layers_and_size() -> None:
    """36 Gated DeltaNet + 12 gated-attention layers; 159.4 GB of 16-bit GGUF in Qwen's own
    Qwen3-Next-80B-A3B-Thinking-GGUF repository is 79.7 B parameters."""
    m = _read(QWEN3_NEXT)
    lin = m.linear_attention
    assert lin is not None and lin.kind == "gated-deltanet" and lin.layers == 36
    assert m.kv_layers == 12 and m.attn_output_gate
    assert abs(m.params_b / 79.7 - 1) < 0.01, m.params_b


def test_qwen3_next_cache_grows_only_in_full_attention_layers() -> None:
    """Hand-computed: 12 layers × K and V × 2 heads × 256 per token, plus 36 fixed states of
    32 value heads × 128 × 128 and a 3-column conv window over q, k, v (2·16·128 + 32·128)."""
    m = _read(QWEN3_NEXT)
    per_token = 12 * 2 * 2 * 256 * 2
    state = 36 * (32 * 128 * 128 + 3 * (2 * 16 * 128 + 32 * 128)) * 2
    assert kv_cache_bytes(m, 32768, 1, 2.0, True) == per_token * 32768 + state
    assert linear_state_bytes(m, 4, 2.0) == 4 * state
    short, long = kv_cache_bytes(m, 1024, 1, 2.0, True), kv_cache_bytes(m, 2048, 1, 2.0, True)
    assert long - short == per_token * 1024  # the state does not grow with the context


def test_minimax_m1_lightning_attention_and_size() -> None:
    """attn_type_list: one softmax layer in eight; 456 B total (MiniMax-01 report)."""
    m = _read(MINIMAX_M1)
    lin = m.linear_attention
    assert lin is not None and lin.kind == "lightning" and lin.layers == 70
    assert m.kv_layers == 10 and lin.state_elements() == 64 * 128 * 128
    assert abs(m.params_b / 456 - 1) < 0.01, m.params_b


def test_deepseek_v32_indexer_key_cached_and_attention_capped() -> None:
    m = _read(DEEPSEEK_V32)
    dsa = m.sparse_attention
    assert dsa is not None and (dsa.index_heads, dsa.index_head_dim, dsa.top_k) == (64, 128, 2048)
    per_token_layer = 512 + 64 + 128  # MLA latent, its RoPE key and the indexer key
    assert kv_cache_bytes(m, 1000, 1, 1.0, True) == 61 * per_token_layer * 1000
    assert attended_keys(m, 100_000) == 61 * 2048  # top-k, not the whole context
    assert attended_keys(m, 1000) == 61 * 1000


def test_ernie_moe_keys_read() -> None:
    """ERNIE-4.5-21B-A3B (transformers Ernie4_5_MoeConfig defaults): experts from layer 1 on,
    two shared experts of the routed width; 21.8 B total."""
    cfg = {
        "architectures": ["Ernie4_5_MoeForCausalLM"],
        "model_type": "ernie4_5_moe",
        "vocab_size": 103424,
        "hidden_size": 2560,
        "intermediate_size": 12288,
        "num_hidden_layers": 28,
        "num_attention_heads": 20,
        "num_key_value_heads": 4,
        "tie_word_embeddings": True,
        "moe_intermediate_size": 1536,
        "moe_k": 6,
        "moe_num_experts": 64,
        "moe_num_shared_experts": 2,
        "moe_layer_start_index": 1,
        "moe_layer_interval": 1,
    }
    m = _read(cfg)
    assert m.moe is not None and m.moe.moe_layers == 27 and m.moe.active_experts == 6
    assert (m.moe.shared_experts, m.moe.shared_expert_intermediate_size) == (2, 1536)
    assert abs(m.params_b - 21.8) < 0.1


def test_bge_m3_encoder_reads_without_kv_cache() -> None:
    """BAAI/bge-m3 (onnx/config.json of its own repository): XLM-R large, 568 M parameters."""
    cfg = {
        "architectures": ["XLMRobertaModel"],
        "model_type": "xlm-roberta",
        "hidden_size": 1024,
        "intermediate_size": 4096,
        "num_hidden_layers": 24,
        "num_attention_heads": 16,
        "max_position_embeddings": 8194,
        "vocab_size": 250002,
    }
    m = _read(cfg)
    assert m.bidirectional and m.task == "embed" and m.norm == "layer" and not m.gated_ffn
    assert kv_cache_bytes(m, 8192, 4, 2.0, True) == 0.0
    assert abs(m.params_b / 0.568 - 1) < 0.01, m.params_b
    reranker = _read({**cfg, "architectures": ["XLMRobertaForSequenceClassification"]})
    assert reranker.task == "rerank"


def test_encoder_with_masked_lm_head_still_refused() -> None:
    cfg = {"architectures": ["XLMRobertaForMaskedLM"], "model_type": "xlm-roberta"}
    with pytest.raises(UserError):
        fields_from_config({**cfg, "hidden_size": 8, "num_hidden_layers": 1}, "cfg")


def test_vision_tower_counted_in_total_not_in_active() -> None:
    """A Qwen3-VL-style wrapper: the text model nested in text_config, the tower beside it."""
    text = {k: v for k, v in QWEN3_NEXT.items() if k != "architectures"}
    vision = {
        "depth": 27,
        "hidden_size": 1152,
        "intermediate_size": 4304,
        "patch_size": 16,
        "temporal_patch_size": 2,
        "in_channels": 3,
        "out_hidden_size": 2048,
        "spatial_merge_size": 2,
        "num_position_embeddings": 2304,
    }
    wrapped = {"architectures": ["X"], "model_type": "qwen3_5_moe", "text_config": text}
    m = _read({**wrapped, "vision_config": vision})
    plain = _read(QWEN3_NEXT)
    assert m.vision is not None and 0.4 < m.vision.params_b < 0.5
    assert abs(m.params_b - plain.params_b - m.vision.params_b) < 1e-6
    assert abs(m.active_params_b - plain.active_params_b) < 1e-6
