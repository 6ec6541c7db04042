"""国产化 beyond Huawei (issue 29 item 2): the Chinese stacks a cited vLLM build runs on (MUSA,
DTK, MXMACA, CoreX, Kunlunxin XRE) pick vLLM for serving, their cards are sized and listed for a
domestic-only plan (never dropped unseen), and the domestic-only rule no longer says the plan
ranks Huawei alone."""

from __future__ import annotations

import datetime as dt

import pytest

from gpuwise.advise.candidates import DOMESTIC_VENDORS
from gpuwise.advise.engines import default_engine, stack_of
from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.catalog.catalog import Catalog
from gpuwise.catalog.schema import Vendor
from gpuwise.catalog.schema_stack import FLAG_STACKS
from gpuwise.i18n import t

TODAY = dt.date(2026, 12, 6)
CHINESE_STACKS = ("musa", "dtk", "maca", "corex", "kunlun")


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog(use_overrides=False, use_cache=False)


def _soe_qwen3_32b() -> dict[str, object]:
    """The blind expert's state-owned buyer (w9-08): Qwen3-32B, 32 users, 500 tok/s, on site."""
    return {
        "workload": {
            "kind": "serve",
            "model": "qwen3-32b",
            "concurrency": 32,
            "context": 16384,
            "prompt_tokens": 2000,
            "gen_tokens": 600,
            "target_tokens_per_s": 500,
        },
        "months": 36,
        "hours_per_day": 24,
        "region": "cn",
        "entity": "company",
        "domestic_only": True,
        "data_may_leave": False,
        "site": "server-room",
        "budget": {"amount": 1500000, "currency": "CNY", "per": "total"},
        "frameworks": ["vllm"],
        "currency": "CNY",
    }


def test_every_chinese_stack_has_a_sourced_vllm_row(cat: Catalog) -> None:
    rows = {(f.stack, f.feature): f for f in cat.extra("feature")}
    for stack in CHINESE_STACKS:
        assert stack in FLAG_STACKS
        row = rows[(stack, "vllm")]
        assert row.support == "partial", stack  # vendor builds and plugins, not upstream wheels
        assert row.source and cat.sources[row.source].url.startswith("https://"), stack


def test_flagged_domestic_cards_serve_with_vllm(cat: Catalog) -> None:
    s = parse_scenario(_soe_qwen3_32b(), "t")
    features = {(f.stack, f.feature): f.support for f in cat.extra("feature")}
    gpu = cat.gpu_by_id("mtt-s4000")
    assert gpu is not None and stack_of(gpu) == "musa"
    assert default_engine(s, gpu, features) == "vllm"


def test_domestic_only_plan_lists_non_huawei_cards_it_can_size(cat: Catalog) -> None:
    plan = make_plan(cat, parse_scenario(_soe_qwen3_32b(), "t"), TODAY)
    considered = (*plan.options, *plan.infeasible, *plan.unchecked)
    vendors = {o.candidate.gpu.vendor for o in considered}
    assert {"huawei", "moorethreads"} <= vendors
    assert all(v in DOMESTIC_VENDORS for v in vendors)
    s4000 = [o for o in considered if o.candidate.gpu.id == "mtt-s4000"]
    assert s4000 and all(o.sized.engine == "vllm" for o in s4000)
    # unpriced cards are listed as not checked, never ranked as an answer
    assert not [o for o in plan.options if o.candidate.unpriced_card]


def test_s4000_is_listed_unpriced_with_an_estimated_speed(cat: Catalog) -> None:
    """The S4000 has sourced bandwidth and BF16 TFLOPS but no price: its speed is estimated, and
    with a budget to check it is listed as not checked (a quote is needed), never ranked."""
    plan = make_plan(cat, parse_scenario(_soe_qwen3_32b(), "t"), TODAY)
    s4000 = [o for o in plan.unchecked if o.candidate.gpu.id == "mtt-s4000"]
    assert s4000 and all(o.sized.speed_known and o.candidate.unpriced_card for o in s4000)
    assert "plan.unchecked_budget" in {k for o in s4000 for k, _ in o.unchecked}


def test_domestic_only_rule_no_longer_says_huawei_alone(cat: Catalog) -> None:
    """Every Chinese maker is named, as compared or as missing from the catalog (blind
    w60-01: the rule said Hygon was compared where the catalog had none of its parts)."""
    from gpuwise.advise.fired import domestic_vendors

    rule = next(r for r in cat.extra("rule") if r.id == "domestic-only")
    assert "only Huawei" not in rule.text_en and "只比较华为" not in rule.text_zh
    params = domestic_vendors(cat)
    assert "Hygon" in params["listed_en"] + params["missing_en"]
    assert "海光" in params["listed_zh"] + params["missing_zh"]


def test_every_domestic_vendor_has_names_in_both_languages() -> None:
    vendors = set(Vendor.__args__)  # type: ignore[attr-defined]
    for v in DOMESTIC_VENDORS:
        assert v in vendors
        assert t(f"vendor.{v}", lang="en") != f"vendor.{v}"
        assert t(f"vendor.{v}", lang="zh") != f"vendor.{v}"
