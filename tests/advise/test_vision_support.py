"""Blind w13-05: a vision model needs the engine's image input on the card's stack.

The feature matrix (catalog features.toml) holds `<engine>_vision` rows per stack, each
sourced: vLLM's multimodal models on CUDA and (validated) Intel XPU, only some models on
Ascend (vllm-ascend) and Gaudi, a recipe on ROCm, beta on Neuron; llama.cpp's libmtmd with
CPU fallbacks on Metal and SYCL. A stack that runs the engine but has no vision row is
unverified (partial), never silently fine.
"""

from __future__ import annotations

import datetime as dt

from gpuwise.advise.plan import make_plan
from gpuwise.advise.reasons import _unlisted, features_of
from gpuwise.advise.scenario import VISION_SUFFIX, parse_scenario
from gpuwise.catalog import load_catalog

TODAY = dt.date(2026, 12, 6)


def _scenario(model: str, **extra: object):  # type: ignore[no-untyped-def]
    data = {"workload": {"kind": "serve", "model": model, "concurrency": 4}, **extra}
    return parse_scenario(data, "test")


def test_only_a_served_vision_model_needs_image_input() -> None:
    s = _scenario("qwen3-vl-8b")
    assert s.feature_names("vllm") == ["vllm"]
    assert s.feature_names("vllm", vision=True) == ["vllm", "vllm_vision"]
    assert s.feature_names("llama.cpp", vision=True) == ["ollama", "ollama_vision"]
    assert s.feature_names("transformers", vision=True) == ["pytorch"]  # runs where torch runs
    train = parse_scenario({"workload": {"kind": "train", "model": "qwen3-vl-8b"}}, "t")
    assert not any(f.endswith(VISION_SUFFIX) for f in train.feature_names("transformers", True))


def test_every_vision_row_is_sourced_and_has_its_engine_row() -> None:
    cat = load_catalog()
    feats = features_of(cat)
    rows = [f for f in cat.extra("feature") if f.feature.endswith(VISION_SUFFIX)]
    assert len(rows) >= 12
    for f in rows:
        assert f.source in cat.sources, f.feature
        assert (f.stack, f.feature.removesuffix(VISION_SUFFIX)) in feats, (f.stack, f.feature)


def test_an_unlisted_stack_is_unverified_where_the_engine_runs() -> None:
    feats = features_of(load_catalog())
    assert _unlisted(feats, "no-such-stack", "vllm_vision") == "no"
    assert _unlisted({("s", "vllm"): "yes"}, "s", "vllm_vision") == "partial"


def test_a_vision_model_on_ascend_carries_the_partial_image_input() -> None:
    s = _scenario("qwen3-vl-8b", region="cn", domestic_only=True, months=6, hours_per_day=8)
    plan = make_plan(load_catalog(), s, TODAY, fixes=False)
    cann = [o for o in plan.options if o.sized.engine == "vllm"]
    assert cann
    for o in cann:
        partial = {p["feature"] for k, p in o.risks if k == "risk.partial_support"}
        assert "vllm_vision" in partial, o.candidate.label
