"""Real Hugging Face config.json files read exactly (fixtures cited in tests/fixtures/README.md).

Parameter counts are checked against published numbers (tests/fixtures/configs/published.toml),
KV caches of sliding-window and hybrid models against hand-computed bytes, safetensors headers
and indexes against files written here in the real format, and non-causal models must be refused
with exit 2 through the CLI.
"""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path
from typing import Any

import pytest
import tomllib

from gpuwise.catalog import load_catalog
from gpuwise.catalog.local import read_local_model
from gpuwise.catalog.safetensors_file import read_folder_weights, read_header
from gpuwise.catalog.schema import LlmModel
from gpuwise.errors import UserError
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.kv import kv_cache_bytes
from gpuwise.estimate.weights import weight_bytes

CONFIGS = Path(__file__).parent.parent / "fixtures" / "configs"
PUBLISHED = tomllib.loads((CONFIGS / "published.toml").read_text(encoding="utf-8"))["model"]
ALL_DIRS = sorted(p.name for p in CONFIGS.iterdir() if p.is_dir())


def load_memory_constants() -> MemoryConstants:
    return MemoryConstants.from_catalog(load_catalog())


def _model(name: str) -> LlmModel:
    return read_local_model(CONFIGS / name)


def test_at_least_forty_published_counts() -> None:
    assert len(PUBLISHED) >= 40
    assert {p["dir"] for p in PUBLISHED} <= set(ALL_DIRS)


@pytest.mark.parametrize("entry", PUBLISHED, ids=[p["dir"] for p in PUBLISHED])
def test_param_count_within_one_percent(entry: dict[str, Any]) -> None:
    m = _model(entry["dir"])
    assert abs(m.params_b * 1e9 / entry["params"] - 1) < 0.01, (m.params_b, entry["from"])
    if "active" in entry:
        assert abs(m.active_params_b * 1e9 / entry["active"] - 1) < 0.01, m.active_params_b


@pytest.mark.parametrize("name", ALL_DIRS)
def test_every_fixture_reads(name: str) -> None:
    m = _model(name)
    assert m.origin == "config.json" and m.layers > 0 and m.vocab_size > 1000
    assert m.active_params_b <= m.params_b


def test_issue_models_read_right() -> None:
    """The configs issue 12 names: each used to be refused or misread."""
    falcon = _model("tiiuae__falcon-7b-instruct")  # was "missing moe_intermediate_size"
    assert falcon.kv_heads == 1 and falcon.norm == "layer" and falcon.parallel_attn_ffn
    assert not falcon.gated_ffn and falcon.intermediate_size == 4 * 4544
    gptj = _model("EleutherAI__gpt-j-6b")  # was refused (n_embd / n_layer)
    assert (gptj.hidden_size, gptj.layers, gptj.rotary_fraction) == (4096, 28, 0.25)
    assert abs(_model("microsoft__phi-2").params_b - 2.78) < 0.01  # read as 3.6 B
    assert abs(_model("Qwen__Qwen-7B").params_b - 7.72) < 0.01  # read as 12.0 B
    assert _model("Qwen__Qwen-7B").intermediate_size == 11008  # 22016 counts both halves
    gemma2 = _model("google__gemma-2-9b")  # the window was applied to every layer
    assert (gemma2.sliding_window, gemma2.window_layers, gemma2.kv_layers) == (4096, 21, 42)


def test_gpt_neox_20b_from_model_card_hyperparameters() -> None:
    """GPT-NeoX-20B (config not found verbatim): the model card's table (44 layers, d_model 6144,
    d_ff 24576, 64 heads, vocab 50432, rotary on 25%) gives its stated 20,554,567,680."""
    cfg = {
        "architectures": ["GPTNeoXForCausalLM"],
        "model_type": "gpt_neox",
        "hidden_size": 6144,
        "intermediate_size": 24576,
        "num_attention_heads": 64,
        "num_hidden_layers": 44,
        "vocab_size": 50432,
        "max_position_embeddings": 2048,
        "rotary_pct": 0.25,
        "use_parallel_residual": True,
    }
    m = _from_dict(cfg)
    assert round(m.params_b * 1e9) == 20_554_567_680


def test_starcoder_from_paper_hyperparameters() -> None:
    """StarCoder (config not found verbatim): 40 layers, 6144 wide, 48 heads, MQA, 8192 learned
    positions, vocab 49152 (StarCoder paper, arXiv 2305.06161 §5) → 15.5 B parameters."""
    cfg = {
        "architectures": ["GPTBigCodeForCausalLM"],
        "model_type": "gpt_bigcode",
        "n_embd": 6144,
        "n_head": 48,
        "n_inner": 24576,
        "n_layer": 40,
        "n_positions": 8192,
        "multi_query": True,
        "vocab_size": 49152,
    }
    m = _from_dict(cfg)
    assert m.kv_heads == 1 and m.learned_positions == 8192
    assert abs(m.params_b / 15.5 - 1) < 0.01


def _from_dict(cfg: dict[str, Any]) -> LlmModel:
    from gpuwise.catalog.hf_config import fields_from_config
    from gpuwise.catalog.local import _with_counts

    base = {"id": "t", "name": "t", "source": "t", "params_b": 1.0, "active_params_b": 1.0}
    return _with_counts(LlmModel.model_validate({**base, **fields_from_config(cfg, "cfg")}), None)


# --- KV cache: sliding-window patterns and fixed SSM state, hand-computed -----------------------

KV_CASES = [
    # Gemma 2 9B: 42 layers alternate, 21 slide over 4096; K+V = 2 × 8 heads × 256 × 2 bytes.
    ("google__gemma-2-9b", 8192, (21 * 8192 + 21 * 4096) * 2 * 8 * 256 * 2),
    ("google__gemma-2-9b", 2048, 42 * 2048 * 2 * 8 * 256 * 2),
    # Gemma 3 1B: 26 layers, 5 local per global → 22 slide over 512; 1 KV head × 256.
    ("google__gemma-3-1b-it", 32768, (4 * 32768 + 22 * 512) * 2 * 1 * 256 * 2),
    # MedGemma 27B (Gemma 3 layer_types): 10 global + 52 local over 1024; 16 KV heads × 128.
    ("google__medgemma-27b-it", 131072, (10 * 131072 + 52 * 1024) * 2 * 16 * 128 * 2),
    # gpt-oss-20b layer_types: 12 full, 12 sliding over 128; 8 KV heads × 64.
    ("openai__gpt-oss-20b", 131072, (12 * 131072 + 12 * 128) * 2 * 8 * 64 * 2),
    # Phi-3-mini-4k: sliding_window 2047 on all 32 layers; 32 KV heads × 96.
    ("microsoft__Phi-3-mini-4k-instruct", 4096, 32 * 2047 * 2 * 32 * 96 * 2),
    # Jamba 1.5 Mini: 4 attention layers (8 KV × 128) + 28 Mamba layers of d_inner 8192,
    # state 16, conv 4: (8192 × 16 + 8192 × 3) elements each.
    (
        "ai21labs__AI21-Jamba-1.5-Mini",
        262144,
        4 * 262144 * 2 * 8 * 128 * 2 + 28 * (8192 * 16 + 8192 * 3) * 2,
    ),
    # Mamba 2.8B: no KV; 64 layers × (5120 × 16 + 5120 × 3) elements, whatever the context.
    ("state-spaces__mamba-2.8b-hf", 100_000, 64 * (5120 * 16 + 5120 * 3) * 2),
]


@pytest.mark.parametrize(("name", "context", "expected"), KV_CASES)
def test_kv_cache_bytes(name: str, context: int, expected: int) -> None:
    m = _model(name)
    assert kv_cache_bytes(m, context, 1, 2.0, latent_mla=False) == expected


def test_kv_cache_scales_with_batch_and_mla_latent() -> None:
    r1 = _model("deepseek-ai__DeepSeek-R1")
    # MLA latent: kv_lora_rank 512 + rope 64 per token and layer, 61 layers.
    assert kv_cache_bytes(r1, 1000, 3, 1.0, latent_mla=True) == 3 * 1000 * 61 * (512 + 64)
    mamba = _model("state-spaces__mamba-2.8b-hf")
    assert kv_cache_bytes(mamba, 10, 4, 2.0, False) == 4 * kv_cache_bytes(mamba, 10, 1, 2.0, False)


# --- safetensors headers and indexes (real format, synthetic content) ---------------------------


def write_safetensors(path: Path, tensors: dict[str, tuple[str, list[int]]]) -> int:
    """Write a real safetensors file: u64 LE header length, JSON header, zeroed data."""
    bits = {"BF16": 16, "F16": 16, "F32": 32, "F8_E4M3": 8, "I32": 32}
    header: dict[str, Any] = {"__metadata__": {"format": "pt"}}
    offset = 0
    for name, (dtype, shape) in tensors.items():
        n = 1
        for d in shape:
            n *= d
        size = n * bits[dtype] // 8
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + b"\0" * offset)
    return offset


def _tiny_llama(folder: Path, dtype: str = "BF16") -> int:
    """A 2-layer Llama: config.json plus two shards whose tensors match its shapes exactly."""
    h, i, v, kv = 64, 128, 1000, 16
    (folder / "config.json").write_text(
        json.dumps(
            {
                "architectures": ["LlamaForCausalLM"],
                "model_type": "llama",
                "hidden_size": h,
                "intermediate_size": i,
                "num_hidden_layers": 2,
                "num_attention_heads": 4,
                "num_key_value_heads": 1,
                "vocab_size": v,
                "max_position_embeddings": 2048,
                "torch_dtype": "bfloat16",
            }
        )
    )
    shards: list[dict[str, tuple[str, list[int]]]] = [
        {"model.embed_tokens.weight": (dtype, [v, h]), "lm_head.weight": (dtype, [v, h])},
        {"model.norm.weight": (dtype, [h])},
    ]
    for layer in range(2):
        p = f"model.layers.{layer}."
        shards[1].update(
            {
                p + "self_attn.q_proj.weight": (dtype, [h, h]),
                p + "self_attn.k_proj.weight": (dtype, [kv, h]),
                p + "self_attn.v_proj.weight": (dtype, [kv, h]),
                p + "self_attn.o_proj.weight": (dtype, [h, h]),
                p + "mlp.gate_proj.weight": (dtype, [i, h]),
                p + "mlp.up_proj.weight": (dtype, [i, h]),
                p + "mlp.down_proj.weight": (dtype, [h, i]),
                p + "input_layernorm.weight": (dtype, [h]),
                p + "post_attention_layernorm.weight": (dtype, [h]),
            }
        )
    total = 0
    names = ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
    for name, tensors in zip(names, shards, strict=True):
        total += write_safetensors(folder / name, tensors)
    weight_map = {t: names[k] for k, s in enumerate(shards) for t in s}
    index = {"metadata": {"total_size": total}, "weight_map": weight_map}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    return total


def test_safetensors_headers_give_exact_bytes_and_params(tmp_path: Path) -> None:
    total = _tiny_llama(tmp_path)
    files = read_folder_weights(tmp_path)
    assert files is not None and files.source == "safetensors"
    assert files.total_bytes == total and files.main_dtype == "BF16"
    m = read_local_model(tmp_path)
    assert m.weight_bytes_exact == total and m.weight_dtype == "bf16"
    assert round(m.params_b * 1e9) * 2 == total  # headers and the shape formula agree


def test_headers_preferred_to_formula_and_used_by_estimate(tmp_path: Path) -> None:
    total = _tiny_llama(tmp_path)
    m = read_local_model(tmp_path)
    c = load_memory_constants()
    assert weight_bytes(m, c.weight_format("bf16")).total == total
    assert weight_bytes(m, c.weight_format("fp16")).total == total  # same 16-bit storage
    assert weight_bytes(m, c.weight_format("int4-gptq")).total < total  # not as stored


def test_index_total_used_when_shards_are_absent(tmp_path: Path) -> None:
    total = _tiny_llama(tmp_path)
    (tmp_path / "model-00002-of-00002.safetensors").unlink()
    files = read_folder_weights(tmp_path)
    assert files is not None and files.source == "index" and files.total_bytes == total


def test_real_index_files_give_weight_bytes(tmp_path: Path) -> None:
    """Qwen-7B's and gpt-oss-20b's own index files (fixtures) state their checkpoint bytes."""
    assert _model("Qwen__Qwen-7B").weight_bytes_exact == 15_442_649_088
    oss = _model("openai__gpt-oss-20b")  # MXFP4 experts + BF16 attention/embeddings
    assert oss.weight_bytes_exact == 13_761_264_768 and oss.weight_dtype == "mxfp4"
    shutil.copytree(CONFIGS / "google__gemma-2b", tmp_path / "g")
    m = read_local_model(tmp_path / "g")
    c = load_memory_constants()
    assert weight_bytes(m, c.weight_format("bf16")).total == 5_012_344_832


def test_fp8_checkpoint_header_and_default_format(tmp_path: Path) -> None:
    """An FP8 checkpoint (F8_E4M3 tensors, quantization_config fp8): 1 byte a parameter, and
    inference defaults to the fp8 format with the files' own bytes."""
    total = _tiny_llama(tmp_path, dtype="F8_E4M3")
    cfg = json.loads((tmp_path / "config.json").read_text())
    cfg["quantization_config"] = {"quant_method": "fp8", "fmt": "e4m3"}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    m = read_local_model(tmp_path)
    assert m.weight_bytes_exact == total and round(m.params_b * 1e9) == total
    assert (m.weight_dtype, m.weight_format_hint) == ("fp8", "fp8")
    c = load_memory_constants()
    assert weight_bytes(m, c.weight_format("fp8")).total == total


def test_incomplete_shards_without_index_are_not_counted(tmp_path: Path) -> None:
    _tiny_llama(tmp_path)
    (tmp_path / "model.safetensors.index.json").unlink()
    (tmp_path / "model-00002-of-00002.safetensors").unlink()
    assert read_folder_weights(tmp_path) is None  # 1 of 2 shards: no exact bytes claimed
    m = read_local_model(tmp_path)
    assert m.weight_bytes_exact is None and m.params_b > 0


def test_quantized_configs_name_their_format() -> None:
    assert _model("meta-llama__Llama-3.1-8B-Instruct-bnb-8bit").weight_format_hint == "int8"
    assert _model("deepseek-ai__DeepSeek-R1").weight_format_hint == "fp8"


@pytest.mark.parametrize(
    "raw",
    [b"\x01\x02", struct.pack("<Q", 10**12) + b"{}", struct.pack("<Q", 50) + b'{"a": 1'],
    ids=["short", "huge-header", "cut-header"],
)
def test_bad_safetensors_header(tmp_path: Path, raw: bytes) -> None:
    path = tmp_path / "model.safetensors"
    path.write_bytes(raw)
    with pytest.raises(UserError) as err:
        read_header(path)
    assert "safetensors" in err.value.render()


def test_bad_index_is_one_line(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    shutil.copy(CONFIGS / "google__gemma-2b" / "config.json", tmp_path / "config.json")
    (tmp_path / "model.safetensors.index.json").write_text('{"metadata": {}}')
    res = cli("models", "show", str(tmp_path))
    assert res.code == 2 and "index" in res.err and "Traceback" not in res.err


# --- what cannot be modelled: a clear line naming the architecture, exit 2 ---------------------

REFUSED = {
    "T5ForConditionalGeneration": {
        "architectures": ["T5ForConditionalGeneration"],
        "model_type": "t5",
        "is_encoder_decoder": True,
        "d_model": 512,
        "num_layers": 6,
        "num_heads": 8,
        "vocab_size": 32128,
    },
    "BartForConditionalGeneration": {
        "architectures": ["BartForConditionalGeneration"],
        "model_type": "bart",
        "d_model": 1024,
        "encoder_layers": 12,
        "decoder_layers": 12,
        "vocab_size": 50265,
    },
    "UNet2DConditionModel": {
        "_class_name": "UNet2DConditionModel",
        "_diffusers_version": "0.6.0",
        "in_channels": 4,
        "sample_size": 64,
    },
    "ViTForImageClassification": {
        "architectures": ["ViTForImageClassification"],
        "model_type": "vit",
        "hidden_size": 768,
        "num_hidden_layers": 12,
        "num_attention_heads": 12,
    },
    "BertForMaskedLM": {
        "architectures": ["BertForMaskedLM"],
        "model_type": "bert",
        "hidden_size": 768,
        "num_hidden_layers": 12,
        "num_attention_heads": 12,
        "vocab_size": 30522,
    },
    "WhisperForConditionalGeneration": {
        "architectures": ["WhisperForConditionalGeneration"],
        "model_type": "whisper",
        "d_model": 384,
        "vocab_size": 51865,
    },
}


@pytest.mark.parametrize("arch", sorted(REFUSED))
def test_refused_architectures_exit_2(tmp_path: Path, cli, arch: str) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "config.json").write_text(json.dumps(REFUSED[arch]))
    res = cli("models", "show", str(tmp_path))
    assert res.code == 2, res.out
    assert arch in res.err and "Traceback" not in res.err
    assert len(res.err.strip().splitlines()) == 1
    res = cli("estimate", str(tmp_path), "--gpu", "4090", "--lang", "zh")
    assert res.code == 2 and arch in res.err


def test_config_without_shapes_is_refused(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "mystery", "foo": 1}))
    with pytest.raises(UserError) as err:
        read_local_model(tmp_path)
    assert "mystery" in err.value.render()


# --- the CLI keeps working on folders -----------------------------------------------------------


def test_cli_models_show_and_estimate_on_folders(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli("models", "show", str(CONFIGS / "google__gemma-2-9b"), "--json")
    assert res.code == 0, res.err
    data = res.json()
    assert data["sliding_window_layers"] == 21 and data["kv_layers"] == 42
    res = cli("models", "show", str(CONFIGS / "state-spaces__mamba-2.8b-hf"))
    assert res.code == 0 and "Mamba" in res.out
    res = cli("estimate", str(CONFIGS / "Qwen__Qwen-7B"), "--gpu", "a100-80gb", "--json")
    assert res.code == 0, res.err
    assert res.json()["memory"]["breakdown"]["weights"] == 15_442_649_088
