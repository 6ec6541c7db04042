"""Plan text reads as a careful person writes it, in en and zh (blind review, wave 6): every
scenario of tests/advise/scenarios.yaml and tests/advise/blind_wave6.yaml is planned in Chinese
(English is checked where test_scenarios already plans them) and its text must hold no raw
configuration id, no unfilled i18n key and no stray English word; and the wording defects the
review found are pinned one by one."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from rich.console import Console

from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.reasons import rule_text
from gpuwise.advise.report import plan_report
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.i18n import Lang, using_lang
from gpuwise.render.plan import render_plan
from tests.advise.invariants import check_rendered
from tests.advise.plan_text import text_defects
from tests.advise.test_scenarios import SCENARIOS, TODAY, scenario_data

BLIND = yaml.safe_load((Path(__file__).parent / "blind_wave6.yaml").read_text("utf-8"))
BY_ID = {c["id"]: c for c in BLIND}


def _plan(case: dict[str, Any], lang: Lang) -> Plan:
    with using_lang(lang):
        return make_plan(load_catalog(), parse_scenario(scenario_data(case), case["id"]), TODAY)


def _text(plan: Plan, lang: Lang) -> str:
    cat = load_catalog()
    buf = io.StringIO()
    with using_lang(lang):
        report = plan_report(cat, plan, top=10)
        render_plan(Console(file=buf, width=1000, markup=False, highlight=False), report)
    return buf.getvalue()


def _rule(plan: Plan, rule_id: str, lang: Lang) -> str:
    params = next(p for r, p in plan.rules if r == rule_id)
    with using_lang(lang):
        return rule_text(load_catalog(), rule_id, lang, params)


CASES = [(c, "zh") for c in SCENARIOS + BLIND] + [(c, "en") for c in BLIND]


@pytest.mark.parametrize(("case", "lang"), CASES, ids=[f"{c['id']}-{lang}" for c, lang in CASES])
def test_plan_text_has_no_raw_ids_keys_or_stray_english(case: dict[str, Any], lang: Lang) -> None:
    plan = _plan(case, lang)
    with using_lang(lang):
        check_rendered(load_catalog(), plan)


def test_the_checker_finds_each_defect_the_review_found() -> None:
    cat = load_catalog()
    assert text_defects(cat, "e.g. own:mi355x-8gpu-server×1[2/8], own:mi210×8", "en")
    assert text_defects(cat, "e.g. own:rtx-3090×4×2nodes", "en")
    assert text_defects(cat, "but cost.item.network of it are not priced", "en")
    assert text_defects(cat, "device-map 通信只能共享约 16 GB/s", "zh")
    assert text_defects(cat, "更大的 batch 会导致显存不足", "zh")
    assert text_defects(cat, "（torch.compile：yes）", "zh")
    fine = (
        "8 张 NVIDIA Tesla P100 PCIe 16GB 之间只能走 PCIe 3（无 NVLink），请用 --dtype half 加载；"
        "可在场景中用 entity:、site: 或 tariff: 修改（workload.model: qwen2.5-7b）"
    )
    assert text_defects(cat, fine, "zh") == []


def test_individual_local_says_the_real_device_count_and_memory() -> None:
    """'a single 16 GB card is enough' was said of tesla-p100-16gb×8."""
    plan = _plan(BY_ID["local-qwen3-235b-mac-or-strix"], "en")
    best = plan.options[0].candidate
    cards = best.cards or best.count
    en, zh = _rule(plan, "individual-local", "en"), _rule(plan, "individual-local", "zh")
    if cards > 1 and not best.gpu.whole_system:
        assert f"{cards} × {best.gpu.memory_gb:g} GB cards" in en
        assert f"{cards} 张 {best.gpu.memory_gb:g} GB 显卡" in zh
    assert "single" not in en or cards == 1
    if best.gpu.whole_system:
        assert best.gpu.name in en and f"台 {best.gpu.name} 整机" in zh


def test_individual_local_counts_eight_cards_as_eight() -> None:
    cat = load_catalog()
    from gpuwise.advise.candidates import Candidate
    from gpuwise.advise.labels import hardware_words

    p100 = cat.gpu_by_id("tesla-p100-16gb")
    eight = Candidate(kind="own", gpu=p100, count=8, cards=8)
    assert hardware_words(eight, "en") == "8 × 16 GB cards"
    assert hardware_words(eight, "zh") == "8 张 16 GB 显卡"
    assert hardware_words(Candidate(kind="own", gpu=p100, count=1, cards=1), "en") == (
        "a single 16 GB card"
    )


def test_dgx_spark_is_not_described_with_macos_words() -> None:
    """DGX Spark (GB10) runs DGX OS (Linux) and CUDA; a Mac's text keeps macOS/Metal words —
    chosen from the catalog's stack, not from the name."""
    from gpuwise.advise.reasons import memory_share

    cat = load_catalog()
    spark = memory_share(cat.gpu_by_id("dgx-spark"))
    strix = memory_share(cat.gpu_by_id("ryzen-ai-max-395"))
    mac = memory_share(next(g for g in cat.gpus if g.whole_system and g.stack.metal))
    for words in (spark, strix):
        assert "macOS" not in words["memory_share_en"] + words["memory_share_zh"]
        assert "Metal" not in words["memory_share_en"] + words["memory_share_zh"]
    assert "75%" in strix["memory_share_en"]  # the driver's default share, from the catalog
    assert "macOS" in mac["memory_share_en"] and "macOS" in mac["memory_share_zh"]


def test_left_out_configurations_are_named_in_words() -> None:
    """'own:mi355x-8gpu-server×1[2/8]' reached the note in en and zh."""
    case = BY_ID["local-qwen3-235b-mac-or-strix"]
    for lang in ("en", "zh"):
        text = _text(_plan(case, lang), lang)
        note = next(line for line in text.splitlines() if "left out:" in line or "已略去" in line)
        assert "own:" not in note and "[2/8]" not in note
        said = "uses 2 of 8 devices" if lang == "en" else "用其中 2 个，共 8 个设备"
        assert said in note


def test_rent_when_light_never_says_below_of_equal_figures() -> None:
    """'renting costs $1, below owning rtx-3060-12gb×1 at $1'."""
    plan = _plan(BY_ID["hobbyist-used-3060-qlora"], "en")
    if not any(r == "rent-when-light" for r, _ in plan.rules):
        pytest.skip("the plan no longer compares renting below owning")
    params = next(p for r, p in plan.rules if r == "rent-when-light")
    en, zh = _rule(plan, "rent-when-light", "en"), _rule(plan, "rent-when-light", "zh")
    if params["rent_total"] == params["own_total"]:
        assert "below" not in en and "about the same as" in en
        assert "低于" not in zh and "大致相当于" in zh


def test_strategy_and_support_words_are_translated_in_chinese() -> None:
    """'device-map 通信', 'tp 通信', 'none 通信', 'torch.compile：yes' in zh plans."""
    from gpuwise.advise.reasons import words

    with using_lang("zh"):
        assert words({"strategy": "device-map"})["strategy"] == "按层切分"
        assert words({"strategy": "tp"})["strategy"] == "张量并行"
        assert words({"strategy": "none"})["strategy"] == "多卡"
        assert words({"torch_compile": "yes"})["torch_compile"] == "支持"
        assert words({"stack": "metal", "feature": "pytorch"}) == {
            "stack": "Metal",
            "feature": "PyTorch",
        }
    with using_lang("en"):
        assert words({"strategy": "none"})["strategy"] == "multi-GPU"


def test_groups_left_out_are_named_by_display_names() -> None:
    """'trainium, trainium2 …', 'ryzen-ai-max-395 (128 GB)', 'atlas-800t-a2' in rule texts:
    the ids stay in the plan's data, the sentence names the hardware."""
    cat = load_catalog()
    plan = _plan(BY_ID["local-qwen3-235b-mac-or-strix"], "en")
    texts = {r: _rule(plan, r, "en") for r, _ in plan.rules}
    for rule in ("rent-only-hardware", "not-sold-here", "no-system-listed"):
        if rule not in texts:
            continue
        for hardware_id in plan.dropped_examples[rule]:
            raw = re.compile(rf"(?<![\w-]){re.escape(hardware_id)}(?![\w-])")
            assert not raw.search(texts[rule]), (rule, hardware_id)
    if "rent-only-hardware" in texts:
        first = plan.dropped_examples["rent-only-hardware"][0]
        assert cat.gpu_by_id(first).name in texts["rent-only-hardware"]


def test_every_multi_gpu_layout_has_words_in_both_languages() -> None:
    """A layout added to estimate.request.STRATEGIES without words would reach zh raw."""
    from gpuwise.estimate.request import STRATEGIES
    from gpuwise.i18n import messages

    for strategy in (*STRATEGIES, "none"):
        texts = messages().get(f"strategy.{strategy}", {})
        assert texts.get("en") and texts.get("zh"), strategy
