"""Invariants of the speed model."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gpuwise.catalog import load_catalog
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.resolve import resolve
from gpuwise.estimate.speed import SpeedInputs, inference_speed
from gpuwise.estimate.speed_constants import SpeedConstants
from gpuwise.estimate.train_speed import training_speed

CAT = load_catalog(use_cache=False)
MC = MemoryConstants.from_catalog(CAT)
SC = SpeedConstants.from_catalog(CAT)
MODELS = ["llama-3.1-8b", "qwen2.5-7b", "mixtral-8x7b", "qwen3-30b-a3b", "deepseek-v2-lite"]
ENGINES = ["vllm", "llama.cpp", "transformers", "sglang"]
GPUS = ["rtx-4090", "a100-80gb", "h100-sxm", "apple-m2-ultra", "mi300x", "l40s"]


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(MODELS),
    st.sampled_from(ENGINES),
    st.sampled_from(GPUS),
    st.floats(100, 8000),
    st.floats(100, 8000),
)
def test_more_bandwidth_never_slows_decode(
    model: str, engine: str, gpu_id: str, a: float, b: float
) -> None:
    lo, hi = sorted((a, b))
    gpu = CAT.gpu_by_id(gpu_id)
    r = resolve(MemoryRequest(model=CAT.model(model), engine=engine), MC)
    slow = inference_speed(
        r, SC, SpeedInputs(gpu=gpu.model_copy(update={"memory_bandwidth_gbps": lo}))
    )
    fast = inference_speed(
        r, SC, SpeedInputs(gpu=gpu.model_copy(update={"memory_bandwidth_gbps": hi}))
    )
    assert (fast.decode_tokens_per_s or 0) >= (slow.decode_tokens_per_s or 0)


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(MODELS),
    st.sampled_from(["full", "lora", "qlora"]),
    st.sampled_from(["h100-sxm", "a100-80gb", "b200"]),
    st.sampled_from(["fsdp", "ddp"]),
)
def test_more_gpus_never_slow_a_step_on_a_fast_link(
    model: str, mode: str, gpu_id: str, strategy: str
) -> None:
    gpu = CAT.gpu_by_id(gpu_id)
    assert gpu.interconnect == "nvlink"
    previous = 0.0
    for n in (1, 2, 4, 8):
        req = MemoryRequest(
            model=CAT.model(model),
            mode=mode,  # type: ignore[arg-type]
            batch=4,
            gpus=n,
            strategy=strategy if n > 1 else "none",
        )
        est = training_speed(resolve(req, MC), SC, SpeedInputs(gpu=gpu))
        if est.bound == "compute":  # the property is about compute-bound steps
            assert (est.train_tokens_per_s or 0) >= previous
        previous = max(previous, est.train_tokens_per_s or 0) if est.bound == "compute" else 0.0


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(MODELS), st.sampled_from(["vllm", "sglang"]), st.sampled_from(GPUS))
def test_concurrency_never_lowers_total_throughput(model: str, engine: str, gpu_id: str) -> None:
    gpu = CAT.gpu_by_id(gpu_id)
    r = resolve(
        MemoryRequest(model=CAT.model(model), engine=engine, context=2048, prompt_tokens=512), MC
    )
    previous = 0.0
    for c in (1, 2, 4, 8, 16, 32, 64):
        out = inference_speed(r, SC, SpeedInputs(gpu=gpu, gen_tokens=256, concurrency=c))
        assert (out.serving_tokens_per_s or 0) >= previous * 0.999
        previous = out.serving_tokens_per_s or 0


def test_measured_efficiency_override_changes_speed(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A user's measured number replaces the catalog's fraction (issue 4: overridable)."""
    from gpuwise.catalog import catalog as catalog_module

    base = SC.decode_fraction("llama.cpp", "gddr")
    folder = tmp_path / "config" / "catalog"
    folder.mkdir(parents=True)
    (folder / "mine.toml").write_text(
        '[sources.my-bench]\nurl = "https://example.org/my-llama-bench"\n'
        'retrieved = 2026-12-01\n\n[[decode_efficiency]]\nengine = "llama.cpp"\n'
        'memory = "gddr"\nbandwidth_fraction = 0.45\nsource = "my-bench"\n',
        encoding="utf-8",
    )
    catalog_module._loaded.clear()
    from gpuwise.catalog import load_catalog as fresh

    cat = fresh()
    sc = SpeedConstants.from_catalog(cat)
    mine = sc.decode_fraction("llama.cpp", "gddr")
    assert mine.bandwidth_fraction == 0.45 and mine.bandwidth_fraction != base.bandwidth_fraction
    assert len([d for d in sc.decode if d.engine == "llama.cpp" and d.memory == "gddr"]) == 1
    assert mine.calibrated_on == base.calibrated_on  # merged over the fitted entry, not replaced
    r = resolve(
        MemoryRequest(model=cat.model("llama-3.1-8b"), quant="q4_k_m", engine="llama.cpp"), MC
    )
    gpu = cat.gpu_by_id("rtx-4090")
    slow = inference_speed(r, sc, SpeedInputs(gpu=gpu)).decode_tokens_per_s or 0
    fast = inference_speed(r, SC, SpeedInputs(gpu=gpu)).decode_tokens_per_s or 0
    assert slow < fast


def test_zero_bandwidth_override_is_left_out_with_a_warning(tmp_path, cli) -> None:  # type: ignore[no-untyped-def]
    """A malformed override file is named and skipped (issue 27): the command still runs on the
    built-in value, never on a bandwidth of 0."""
    folder = tmp_path / "config" / "catalog"
    folder.mkdir(parents=True)
    (folder / "bad.toml").write_text(
        '[sources.x]\nurl = "https://example.org/x"\nretrieved = 2026-12-01\n\n'
        '[[gpu]]\nid = "rtx-4090"\nsource = "x"\nmemory_bandwidth_gbps = 0\n',
        encoding="utf-8",
    )
    res = cli("estimate", "qwen2.5:7b", "--gpu", "4090")
    assert res.code == 0 and "memory_bandwidth_gbps" in res.err and "bad.toml" in res.err
