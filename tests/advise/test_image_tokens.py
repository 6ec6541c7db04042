"""Images in a vision-language model's prompts cost their encoder's compute (blind w45-01: 8M
product images captioned by Qwen3-VL-8B were timed as text, the ~3 TFLOP per image of its
vision tower left out). `image_tokens` says how many of the prompt's tokens images become;
the encoder runs over spatial_merge² patches per such token (Vision.patches_per_token)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.errors import UserError
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.resolve import resolve
from gpuwise.estimate.speed_prefill import prompt_flops

CAT = load_catalog()
CAPTIONS: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen3-vl-8b", "concurrency": 64,
                 "prompt_tokens": 800, "image_tokens": 625, "gen_tokens": 200,
                 "target_tokens_per_s": 1852},
    "months": 1, "hours_per_day": 24, "region": "cn", "currency": "CNY", "entity": "company",
}  # fmt: skip


def _flops(image_tokens: int) -> float:
    req = MemoryRequest(model=CAT.model("qwen3-vl-8b"), prompt_tokens=800, context=1000,
                        image_tokens=image_tokens, engine="vllm")  # fmt: skip
    return prompt_flops(resolve(req, MemoryConstants.from_catalog(CAT)), 800)


def test_an_images_encoder_pass_is_counted_in_the_prompt() -> None:
    vision = CAT.model("qwen3-vl-8b").vision
    assert vision is not None and vision.patches_per_token == 4  # 2 x 2 merge
    extra = _flops(625) - _flops(0)
    assert extra == pytest.approx(2 * vision.params_b * 1e9 * 625 * 4)
    assert 2.5e12 < extra < 3.5e12  # about 3 TFLOP per 800 x 800 image, as the reviewer had


def test_a_plan_with_images_is_slower_than_the_same_text() -> None:
    text = {**CAPTIONS, "workload": {**CAPTIONS["workload"], "image_tokens": None}}
    with_images = make_plan(CAT, parse_scenario(CAPTIONS, "t"), dt.date(2026, 12, 7))
    as_text = make_plan(CAT, parse_scenario(text, "t"), dt.date(2026, 12, 7))
    same = {
        (o.candidate.label, o.sized.quant, o.sized.lighter_kv_cache): o for o in as_text.options
    }
    pairs = [
        (o, same[k])
        for o in with_images.options
        if (k := (o.candidate.label, o.sized.quant, o.sized.lighter_kv_cache)) in same
    ]
    assert pairs and all(a.sized.tokens_per_s < b.sized.tokens_per_s for a, b in pairs)


@pytest.mark.parametrize(
    ("change", "key"),
    [({"model": "qwen3-8b"}, "plan.image_tokens_no_vision"),
     ({"image_tokens": 900}, "plan.image_tokens_over_prompt")],
)  # fmt: skip
def test_image_tokens_that_cannot_be_are_one_clear_error(change: dict[str, Any], key: str) -> None:
    data = {**CAPTIONS, "workload": {**CAPTIONS["workload"], **change}}
    with pytest.raises(UserError) as err:
        make_plan(CAT, parse_scenario(data, "t"), dt.date(2026, 12, 7))
    assert err.value.key == key


def test_kind_batch_is_a_one_off_job_over_its_samples() -> None:
    """Blind w45-01 wrote `kind: batch` and was refused: it is a served model given samples,
    timed and billed by its work."""
    batch = {**CAPTIONS, "workload": {**CAPTIONS["workload"], "kind": "batch", "samples": "8M"}}
    batch.pop("months")
    s = parse_scenario(batch, "t")
    assert s.workload.kind == "serve" and s.workload.batch_requests() == 8_000_000
    plan = make_plan(CAT, s, dt.date(2026, 12, 7))
    assert plan.options and all(o.time_hours for o in plan.options)
    del batch["workload"]["samples"]
    with pytest.raises(UserError) as err:
        parse_scenario(batch, "t")
    assert err.value.key == "plan.batch_needs_samples"
