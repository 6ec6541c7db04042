"""Prefill physics: which FLOPs a prompt costs, how MoE experts' small GEMMs slow llama.cpp, when
the first token appears, and which builds count as an engine's older era."""

from __future__ import annotations

import datetime as dt

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.resolve import Resolved, resolve
from gpuwise.estimate.speed import (
    SpeedInputs,
    inference_speed,
    moe_tile_slowdown,
    prefill_work_flops,
    prompt_flops,
)
from gpuwise.estimate.speed_constants import SpeedConstants

CAT = load_catalog()
MC = MemoryConstants.from_catalog(CAT)
SC = SpeedConstants.from_catalog(CAT)


def _r(model: str, engine: str, quant: str = "bf16") -> Resolved:
    return resolve(MemoryRequest(model=CAT.model(model), quant=quant, engine=engine), MC)


def test_tables_are_not_multiplied_per_prompt_token() -> None:
    """Llama 3.2 3B ties its 394 M-parameter embedding to the head: per prompt token the GEMMs
    use the other 2.8 B, and the head runs once (only the last position's logits are kept)."""
    r = _r("llama-3.2-3b", "vllm")
    m = r.req.model
    head = m.vocab_size * m.hidden_size
    extra = prompt_flops(r, 2) - prompt_flops(r, 1)  # one more token: body and attention only
    assert extra < 2 * (m.params_b * 1e9 - head) * 1.01
    assert extra > 2 * (m.params_b * 1e9 - head) * 0.99
    # an engine that computes every position's logits pays the head per token
    legacy = _r("llama-3.2-3b", "transformers-legacy")
    assert prompt_flops(legacy, 512) - prompt_flops(r, 512) == pytest.approx(511 * 2 * head)


def test_untied_models_drop_both_tables() -> None:
    r = _r("llama-3.1-8b", "llama.cpp", "q4_k_m")
    m = r.req.model
    head = m.vocab_size * m.hidden_size
    body = m.active_params_b * 1e9 - 2 * head
    assert prompt_flops(r, 2) - prompt_flops(r, 1) == pytest.approx(2 * body, rel=0.01)


@pytest.mark.parametrize(
    ("model", "engine", "prompt", "slowdown"),
    [
        ("qwen3-30b-a3b", "llama.cpp", 512, 5 / 1.25),  # 512 × 8 / 128 = 32 tokens per expert
        ("gpt-oss-120b", "llama.cpp", 8192, 9 / 1.25),  # ubatch 512 × 4 / 128 = 16
        ("qwen3-30b-a3b", "llama.cpp", 64, 33 / 3),  # a short prompt: 4 tokens per expert
        ("mixtral-8x7b", "llama.cpp", 512, 2 / 1.25),  # 512 × 2 / 8 = 128: one tile, not four
        ("qwen3-30b-a3b", "vllm", 512, 5 / 1.25),  # fused MoE kernels tile too (issue 28)
        ("gpt-oss-120b", "vllm", 8192, 1.5 / (1 + 128 / 8192)),  # 8192 × 4 / 128 = 256 tokens
        ("llama-3.1-8b", "llama.cpp", 512, 1.0),  # dense
    ],
)
def test_moe_tile_slowdown(model: str, engine: str, prompt: int, slowdown: float) -> None:
    r = _r(model, engine, "q4_k_m" if engine == "llama.cpp" else "bf16")
    assert moe_tile_slowdown(r, prompt) == pytest.approx(slowdown)
    more = prefill_work_flops(r, prompt) - prompt_flops(r, prompt)
    assert (more > 0) == (slowdown > 1)


def test_first_token_comes_out_of_the_prefill() -> None:
    """The first token is sampled from the prefill's last logits: no decode step before it."""
    req = MemoryRequest(
        model=CAT.model("llama-3.1-8b"), quant="bf16", engine="vllm", context=2176,
        prompt_tokens=2048,
    )  # fmt: skip
    est = inference_speed(resolve(req, MC), SC, SpeedInputs(gpu=CAT.gpu("h100"), gen_tokens=128))
    assert est.time_to_first_token_s == pytest.approx(2048 / (est.prefill_tokens_per_s or 1))


@pytest.mark.parametrize(
    ("built", "backend", "key"),
    [
        (dt.date(2024, 1, 15), "cuda", "llama.cpp-no-graphs"),
        (dt.date(2024, 1, 15), "rocm", "llama.cpp"),  # CUDA graphs changed CUDA builds only
        (dt.date(2025, 9, 8), "cuda", "llama.cpp"),
        (None, "cuda", "llama.cpp"),  # current builds
    ],
)
def test_llamacpp_era_is_a_cuda_change(built: dt.date | None, backend: str, key: str) -> None:
    assert SC.engine_key("llama.cpp", built, backend) == key


def test_sm_version_keys_split_one_architecture_name() -> None:
    """GA100 (A100) and GA102 (RTX 3090) are both "Ampere", but their kernels are other kernels."""
    from gpuwise.estimate.speed_constants import decode_memory_key, kernel_arch

    a100, rtx3090, mi300x = CAT.gpu_by_id("a100-80gb"), CAT.gpu_by_id("rtx-3090"), CAT.gpu("mi300x")
    assert (kernel_arch(a100), kernel_arch(rtx3090)) == ("Ampere sm_80", "Ampere sm_86")
    assert kernel_arch(mi300x) == mi300x.architecture  # no CUDA compute capability
    assert decode_memory_key(a100, "cuda") == "hbm-sm80"
    assert decode_memory_key(mi300x, "rocm") == "hbm-rocm"
    assert decode_memory_key(CAT.gpu("apple-m4"), "metal") == "unified"


def test_datacenter_gddr_cards_are_their_own_decode_key() -> None:
    """Data-centre GDDR cards run with ECC on by default; they fall back to every ECC GDDR card's
    share, then to all GDDR, and a user's plain `gddr` override still reaches them."""
    from dataclasses import replace

    from gpuwise.catalog.schema_speed import DecodeEfficiency
    from gpuwise.estimate.speed_constants import decode_memory_key, memory_chain

    l4, rtx4090, a6000 = CAT.gpu_by_id("l4"), CAT.gpu_by_id("rtx-4090"), CAT.gpu_by_id("rtx-a6000")
    assert decode_memory_key(l4, "cuda") == "gddr-ecc-sm89"
    assert decode_memory_key(rtx4090, "cuda") == "gddr-sm89"
    assert decode_memory_key(a6000, "cuda") == "gddr-sm86"  # workstation: ECC off by default
    assert memory_chain("gddr-ecc-sm89") == ["gddr-ecc-sm89", "gddr-ecc", "gddr"]
    assert memory_chain("hbm-rocm") == ["hbm-rocm", "hbm"]
    assert memory_chain("unified") == ["unified"]
    own = DecodeEfficiency(engine="llama.cpp", memory="gddr", bandwidth_fraction=0.3, source="me")
    sc = replace(SC, decode=(*SC.decode, own))
    assert sc.decode_fraction("llama.cpp", "gddr-ecc-sm89").bandwidth_fraction == 0.3
    assert SC.decode_fraction("llama.cpp", "gddr-ecc-sm75").memory.startswith("gddr-ecc")


def test_hand_set_shares_of_the_plain_key_beat_fitted_sm_shares() -> None:
    """A user's override for "Ada Lovelace" (or "gddr") must reach an RTX 4090, whose fitted
    shares are keyed by sm_89."""
    from dataclasses import replace

    from gpuwise.catalog.schema_speed import DecodeEfficiency, PrefillEfficiency

    fitted = SC.prefill_fraction("llama.cpp", "cuda", "Ada Lovelace sm_89", "int8")
    assert fitted.source == "spd-fit"
    mine = PrefillEfficiency(
        engine="llama.cpp", backend="cuda", architecture="Ada Lovelace", rate="int8",
        fraction=0.05, source="my-bench",
    )  # fmt: skip
    own = DecodeEfficiency(engine="llama.cpp", memory="gddr", bandwidth_fraction=0.3, source="me")
    sc = replace(SC, prefill=(*SC.prefill, mine), decode=(*SC.decode, own))
    assert sc.prefill_fraction("llama.cpp", "cuda", "Ada Lovelace sm_89", "int8").fraction == 0.05
    assert sc.decode_fraction("llama.cpp", "gddr-sm89").bandwidth_fraction == 0.3
    # an SM the fit never saw falls back to the architecture's, then the engine's
    assert SC.prefill_fraction("llama.cpp", "cuda", "Ada Lovelace sm_99", "int8").fraction > 0
