"""Training at FP8 and MoE training across GPUs (issue 28): the GEMM rate FP8 uses, the data
parallel traffic of each GPU's share, the expert-parallel all-to-all."""

from __future__ import annotations

from gpuwise.catalog import load_catalog
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.resolve import Resolved, resolve
from gpuwise.estimate.speed import SpeedInputs
from gpuwise.estimate.speed_constants import SpeedConstants
from gpuwise.estimate.train_speed import (
    all_to_all_seconds,
    comm_bytes_per_step,
    gemm_peak,
    held_params,
    precision_class,
    training_speed,
)

CAT = load_catalog()
MC = MemoryConstants.from_catalog(CAT)
SC = SpeedConstants.from_catalog(CAT)


def _train(model: str, precision: str, gpus: int = 8, **kw: object) -> Resolved:
    req = MemoryRequest(
        model=CAT.model(model),
        mode="full",
        quant="bf16",
        precision=precision,
        batch=2,
        seq_len=4096,
        gpus=gpus,
        strategy=kw.pop("strategy", "zero1"),  # type: ignore[arg-type]
        **kw,  # type: ignore[arg-type]
    )
    return resolve(req, MC)


def test_fp8_training_is_accepted_and_runs_the_fp8_rate_where_the_card_has_it() -> None:
    """`--precision fp8` was refused; it now resolves (memory as mixed-bf16) and its linear
    GEMMs run at the FP8 peak on Hopper, the 16-bit peak on an A100 (no FP8 unit)."""
    fp8, bf16 = _train("llama-3.1-8b", "fp8"), _train("llama-3.1-8b", "mixed-bf16")
    assert precision_class(fp8) == "fp8" and precision_class(bf16) == "16-bit"
    h100, a100 = CAT.gpu_by_id("h100-sxm"), CAT.gpu_by_id("a100-80gb")
    assert gemm_peak(fp8, SC, h100)[1] == "fp8"
    assert gemm_peak(fp8, SC, a100)[1] != "fp8"
    fast = training_speed(fp8, SC, SpeedInputs(gpu=h100))
    slow = training_speed(bf16, SC, SpeedInputs(gpu=h100))
    assert (fast.train_tokens_per_s or 0) > 1.2 * (slow.train_tokens_per_s or 0)
    assert fast.factors["gemm_rate"] == "fp8"


def test_data_parallel_traffic_is_each_gpus_share_of_the_weights() -> None:
    """Under tensor × pipeline parallelism a GPU synchronises only the gradients it holds, and
    a MoE's experts are split further over the expert-parallel group."""
    r = _train("llama-3-70b", "fp8", gpus=64)
    assert comm_bytes_per_step(r, 32) < comm_bytes_per_step(r, 1) / 16
    moe = _train("qwen3-235b-a22b", "fp8", gpus=64)
    assert held_params(moe, 1, 8) < held_params(moe, 1, 1) / 4


def test_expert_parallel_all_to_all_crosses_the_network_beyond_one_host() -> None:
    h100 = CAT.gpu_by_id("h100-sxm")
    r = _train("qwen3-30b-a3b", "fp8", gpus=16)
    within, across = all_to_all_seconds(r, SC, h100, 8), all_to_all_seconds(r, SC, h100, 16)
    assert 0 < within < across
    assert all_to_all_seconds(_train("llama-3.1-8b", "fp8"), SC, h100, 8) == 0.0
    # spreading the experts trades gradient traffic (each GPU holds 1/16 of them) for all-to-all
    assert comm_bytes_per_step(r, 1, 16) < comm_bytes_per_step(r, 1, 1)
    est = training_speed(r, SC, SpeedInputs(gpu=h100, expert_parallel=16))
    assert est.factors["exposed_s"] > 0


def test_moe_and_fp8_training_take_their_own_fitted_utilisation() -> None:
    dense = SC.train_utilisation("full", "Hopper", "fp8", "dense")
    moe = SC.train_utilisation("full", "Hopper", "fp8", "moe")
    assert (dense.precision, dense.model_kind) == ("fp8", "dense")
    assert (moe.precision, moe.model_kind) == ("fp8", "moe")
    assert moe.matmul_utilisation < dense.matmul_utilisation
