"""The calibration fit is reproducible, leaves a source out for real, and stays inside the
ceilings its sources measured; kernels take the tensor path their engine uses."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
import tomllib

from gpuwise.catalog import load_catalog
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.resolve import resolve
from gpuwise.estimate.speed import SpeedInputs, rates
from gpuwise.estimate.speed_cases import prepare_case
from gpuwise.estimate.speed_constants import SpeedConstants
from gpuwise.estimate.speed_fit import fit, nnls, to_toml
from gpuwise.estimate.train_speed import training_speed

ROOT = Path(__file__).parent.parent.parent
CASES: list[dict[str, Any]] = tomllib.loads(
    (ROOT / "tests" / "data" / "speed_cases.toml").read_text(encoding="utf-8")
)["case"]
FITTED = ROOT / "src" / "gpuwise" / "catalog" / "data" / "speed_fitted.toml"


@pytest.fixture(scope="module")
def env():  # type: ignore[no-untyped-def]
    cat = load_catalog(use_cache=False)
    mc, sc = MemoryConstants.from_catalog(cat), SpeedConstants.from_catalog(cat)
    prepared = [prepare_case(cat, mc, c) for c in CASES if "excluded" not in c]
    return cat, mc, sc, prepared


def test_shipped_efficiencies_are_exactly_the_fit_output(env) -> None:  # type: ignore[no-untyped-def]
    """No fitted number is hand-tuned: benchmarks/calibrate_speed.py writes this file."""
    _, _, sc, prepared = env
    assert FITTED.read_text(encoding="utf-8") == to_toml(fit(prepared, sc)), (
        "run python benchmarks/calibrate_speed.py"
    )


def test_a_fit_without_a_source_names_none_of_its_cases(env) -> None:  # type: ignore[no-untyped-def]
    _, _, sc, prepared = env
    left_out = "xiongjiedai"
    held = {pc.id for pc in prepared if pc.source == left_out}
    assert held
    result = fit([pc for pc in prepared if pc.source != left_out], sc)
    named = {
        cid
        for group in (
            result.decode,
            result.overheads,
            result.dequant,
            result.prefill,
            result.training,
        )
        for entry in group
        for cid in entry.calibrated_on
    }
    assert not named & held


def test_nnls_solves_a_small_problem_with_a_bound() -> None:
    # minimise (x0 + x1 - 2)^2 + (x0 - x1 - 4)^2 with x ≥ 0: unconstrained (3, -1) → (2, 0)
    x, _ = nnls([({0: 1.0, 1: 1.0}, 2.0), ({0: 1.0, 1: -1.0}, 4.0)], 2)
    assert x[1] == 0.0 and abs(x[0] - 3.0) < 1e-9


def test_fitted_fractions_stay_below_their_ceilings(env) -> None:  # type: ignore[no-untyped-def]
    _, _, sc, _ = env
    assert all(d.bandwidth_fraction <= sc.fit.decode_bandwidth_fraction_max for d in sc.decode)
    assert all(0 < p.fraction <= 1 for p in sc.prefill)
    assert all(0 < t.matmul_utilisation <= 1 for t in sc.training)


def _resolved(cat, mc, model: str, quant: str, engine: str, mode: str = "inference"):  # type: ignore[no-untyped-def]
    return resolve(MemoryRequest(model=cat.model(model), quant=quant, engine=engine, mode=mode), mc)


@pytest.mark.parametrize("gpu_id", ["mi300x", "a100-80gb", "h100-sxm"])
@pytest.mark.parametrize("mode", ["full", "lora", "qlora"])
def test_training_mfu_never_exceeds_the_measured_matmul_ceiling(
    env, gpu_id: str, mode: str
) -> None:  # type: ignore[no-untyped-def]
    cat, mc, sc, _ = env
    gpu = cat.gpu_by_id(gpu_id)
    quant = "nf4" if mode == "qlora" else "bf16"
    r = resolve(MemoryRequest(model=cat.model("llama-3.1-8b"), mode=mode, quant=quant), mc)
    mfu = training_speed(r, sc, SpeedInputs(gpu=gpu)).factors["mfu"]
    assert 0 < mfu <= sc.matmul_fraction(gpu) + 1e-9  # MI300X: 0.51 (668.4 of 1307 TFLOPS)


@pytest.mark.parametrize("gpu_id", ["mi300x", "a100-80gb", "h100-sxm"])
def test_prefill_share_never_exceeds_the_matmul_ceiling(env, gpu_id: str) -> None:  # type: ignore[no-untyped-def]
    cat, mc, sc, _ = env
    gpu = cat.gpu_by_id(gpu_id)
    for engine in ("vllm", "sglang", "transformers", "llama.cpp"):
        quant = "q4_k_m" if engine == "llama.cpp" else "bf16"
        rt = rates(_resolved(cat, mc, "llama-3.1-8b", quant, engine), sc, gpu)
        assert rt.factors["flops_fraction"] <= sc.matmul_fraction(gpu) + 1e-9


@pytest.mark.parametrize(
    ("gpu_id", "quant", "engine", "rate"),
    [
        ("h100-sxm", "fp8", "vllm", "fp8"),  # W8A8 FP8 on Hopper
        ("l40s", "fp8", "vllm", "fp8"),  # and on Ada
        ("a100-80gb", "fp8", "vllm", "bf16"),  # FP8-Marlin on Ampere: weight-only, 16-bit compute
        ("h100-sxm", "int4-awq", "vllm", "bf16"),  # weight-only formats compute in 16 bits
        ("h100-sxm", "int4-gptq", "sglang", "bf16"),
        ("rtx-4090", "q4_k_m", "llama.cpp", "int8"),  # MMQ on INT8 tensor cores
        ("rtx-4090", "f16-gguf", "llama.cpp", "fp16_acc16"),  # cuBLAS FP16 compute
        ("apple-m2-ultra", "q4_k_m", "llama.cpp", "fp16"),  # Metal: no INT8 unit
    ],
)
def test_prefill_uses_the_tensor_rate_the_engine_uses(  # type: ignore[no-untyped-def]
    env, gpu_id: str, quant: str, engine: str, rate: str
) -> None:
    cat, mc, sc, _ = env
    rt = rates(_resolved(cat, mc, "llama-3.1-8b", quant, engine), sc, cat.gpu_by_id(gpu_id))
    assert rt.factors["prefill_rate"] == rate


def test_fp8_prefill_on_hopper_runs_at_the_fp8_rate(env) -> None:  # type: ignore[no-untyped-def]
    cat, mc, sc, _ = env
    gpu = cat.gpu_by_id("h100-sxm")
    fp8 = rates(_resolved(cat, mc, "llama-3.1-8b", "fp8", "vllm"), sc, gpu)
    bf16 = rates(_resolved(cat, mc, "llama-3.1-8b", "bf16", "vllm"), sc, gpu)
    assert fp8.factors["prefill_rate"] == "fp8"
    assert fp8.flops >= bf16.flops  # W8A8 never priced below the engine's 16-bit GEMMs


def test_fp8_prefill_floor_is_the_16_bit_rate_regression(env) -> None:  # type: ignore[no-untyped-def]
    """Issue 28: vLLM's fitted FP8 share on Hopper (pulled down by MoE runs) once priced W8A8
    prefill below BF16 on the same card; a W8A8 GEMM is never slower than the 16-bit one."""
    cat, mc, sc, _ = env
    gpu = cat.gpu_by_id("h100-sxm")
    for model in ("llama-3.1-8b", "qwen3-30b-a3b"):
        fp8 = rates(_resolved(cat, mc, model, "fp8", "vllm"), sc, gpu)
        bf16 = rates(_resolved(cat, mc, model, "bf16", "vllm"), sc, gpu)
        assert fp8.flops >= bf16.flops


def test_an_old_llama_cpp_build_dequantizes_before_cublas(env) -> None:  # type: ignore[no-untyped-def]
    cat, mc, sc, _ = env
    r = _resolved(cat, mc, "llama-3.1-8b", "q4_0", "llama.cpp")
    gpu = cat.gpu_by_id("rtx-3090")
    old = rates(r, sc, gpu, built=dt.date(2024, 1, 10))
    new = rates(r, sc, gpu)
    assert old.factors["prefill_rate"] == "fp16_acc16" and old.staging_bytes_per_weight > 0
    assert new.factors["prefill_rate"] == "int8" and new.staging_bytes_per_weight == 0


def test_quantized_decode_pays_vector_work_per_weight(env) -> None:  # type: ignore[no-untyped-def]
    cat, mc, sc, _ = env
    rt = rates(
        _resolved(cat, mc, "llama-3.1-8b", "q4_k_m", "llama.cpp"), sc, cat.gpu_by_id("a100-80gb")
    )
    assert rt.dequant_s_per_weight > 0
    f16 = rates(
        _resolved(cat, mc, "llama-3.1-8b", "f16-gguf", "llama.cpp"), sc, cat.gpu_by_id("a100-80gb")
    )
    assert f16.dequant_s_per_weight == 0
