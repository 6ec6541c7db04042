"""Models from the user's disk: config.json folders and GGUF files (real files written here)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gpuwise.catalog.local import read_local_model
from gpuwise.errors import UserError

LLAMA_CFG = {
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
    "tie_word_embeddings": False,
}


def test_config_json_folder(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps(LLAMA_CFG))
    m = read_local_model(tmp_path)
    assert m.origin == "config.json"
    assert m.kv_heads == 8 and m.head_dim == 128
    assert abs(m.params_b - 8.03) < 0.05  # Llama 3.1 8B has 8.03 B parameters


def test_config_json_moe(tmp_path: Path) -> None:
    cfg = {
        **LLAMA_CFG,
        "model_type": "mixtral",
        "num_local_experts": 8,
        "num_experts_per_tok": 2,
        "vocab_size": 32000,
        "sliding_window": None,
    }
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    m = read_local_model(tmp_path)
    assert m.moe and m.moe.experts == 8
    assert abs(m.params_b - 46.7) < 0.3  # Mixtral 8x7B: 46.7 B total
    assert abs(m.active_params_b - 12.9) < 0.3  # 12.9 B active


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", json.dumps({"hidden_size": 1})])
def test_bad_config_json(tmp_path: Path, text: str) -> None:
    (tmp_path / "config.json").write_text(text)
    with pytest.raises(UserError) as err:
        read_local_model(tmp_path)
    assert "config.json" in err.value.render()


def _write_gguf(path: Path) -> None:
    import gguf

    w = gguf.GGUFWriter(str(path), "llama")
    w.add_block_count(2)
    w.add_embedding_length(64)
    w.add_feed_forward_length(128)
    w.add_head_count(4)
    w.add_head_count_kv(2)
    w.add_context_length(2048)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    w.add_token_list([b"a", b"b", b"c"])
    w.add_tensor("token_embd.weight", np.zeros((3, 64), dtype=np.float16))
    for i in range(2):
        w.add_tensor(f"blk.{i}.ffn_up.weight", np.zeros((128, 64), dtype=np.float16))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def test_gguf_file(tmp_path: Path) -> None:
    path = tmp_path / "tiny.gguf"
    _write_gguf(path)
    m = read_local_model(path)
    assert m.origin == "gguf" and m.layers == 2 and m.kv_heads == 2 and m.vocab_size == 3
    assert m.gguf_weight_bytes == (3 * 64 + 2 * 128 * 64) * 2
    assert m.gguf_file_type == "F16"


def test_truncated_gguf(tmp_path: Path) -> None:
    path = tmp_path / "tiny.gguf"
    _write_gguf(path)
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(UserError) as err:
        read_local_model(path)
    assert "GGUF" in err.value.render()


def test_not_a_gguf(tmp_path: Path) -> None:
    path = tmp_path / "fake.gguf"
    path.write_text("hello")
    with pytest.raises(UserError):
        read_local_model(path)


def test_cli_models_show_path(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "config.json").write_text(json.dumps(LLAMA_CFG))
    res = cli("models", "show", str(tmp_path), "--json")
    assert res.code == 0, res.err
    data = res.json()
    assert data["origin"] == "config.json" and data["sources"][0]["url"].startswith("file:")
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF\x03\x00")
    res = cli("models", "show", str(bad))
    assert res.code == 2 and "GGUF" in res.err and "Traceback" not in res.err
