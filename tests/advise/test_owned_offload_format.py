"""Owned cards with layers in system RAM: the format is chosen for speed at or above Q4_K_M
(every offloaded byte is read from RAM each token), the richer format is named as the quality
alternative, each fact about the kept card is said once, and an export names every card it
runs on (blind w10-04: an RTX 3060 12GB with Qwen3-30B-A3B ran q8_0 with 63% in DDR4 at
18 tokens/s where Q4_K_M offloads about a third and runs about twice as fast)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from gpuwise.advise.evaluate import Option
from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.report import plan_report
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.export import build
from gpuwise.i18n import using_lang

TODAY = dt.date(2026, 12, 6)
HOBBYIST_3060: dict[str, Any] = {
    "workload": {"kind": "local", "model": "Qwen/Qwen3-30B-A3B"},
    "owns": [{"gpu": "rtx-3060-12gb", "count": 1}],
    "owns_host": True,
    "host_ram_gb": 32,
    "host_ram_type": "ddr4",
    "months": 24,
    "hours_per_day": 2,
    "budget": {"amount": 3000, "currency": "CNY", "per": "total"},
    "region": "cn",
    "entity": "individual",
    "site": "home",
}
KEEP_4090: dict[str, Any] = {
    "workload": {"kind": "local", "model": "llama3.1:70b"},
    "owns": [{"gpu": "rtx-4090", "count": 1}],
    "owns_host": True,
    "months": 24,
    "hours_per_day": 3,
    "region": "us",
    "currency": "USD",
}


def _plan(data: dict[str, Any]) -> Plan:
    return make_plan(load_catalog(), parse_scenario(data, "t"), TODAY)


def _offload(plan: Plan) -> Option:
    found = [*plan.options, *plan.infeasible, *plan.unchecked]
    return next(o for o in found if o.candidate.offload_fraction)


def _rule(plan: Plan, rule: str) -> dict[str, Any]:
    return next(p for r, p in plan.rules if r == rule)


def test_offload_runs_q4_k_m_faster_than_q8_0_with_less_in_ram() -> None:
    plan = _plan(HOBBYIST_3060)
    o = _offload(plan)
    assert o.sized.quant == "q4_k_m"
    assert o.candidate.offload_fraction < 0.45  # q8_0 put 63% in RAM
    richer = _plan({**HOBBYIST_3060, "workload": {**HOBBYIST_3060["workload"], "quant": "q8_0"}})
    q8 = _offload(richer)
    assert q8.sized.quant == "q8_0"
    assert o.sized.tokens_per_s > 2 * q8.sized.tokens_per_s


def test_offload_names_the_richer_format_as_the_quality_alternative() -> None:
    plan = _plan(HOBBYIST_3060)
    params = _rule(plan, "owned-offload")
    assert "q8_0 also fits" in params["richer_en"] and "quant: q8_0" in params["richer_en"]
    assert "q8_0 也装得下" in params["richer_zh"]
    with using_lang("zh"):
        text = next(
            r.text for r in plan_report(load_catalog(), plan, 8).rules if r.id == "owned-offload"
        )
    assert "q8_0 也装得下" in text and "{" not in text


def test_owned_too_small_leaves_the_offload_hint_to_the_offload_line() -> None:
    plan = _plan(HOBBYIST_3060)
    ids = [r for r, _ in plan.rules]
    assert "owned-offload" in ids
    for lang in ("en", "zh"):
        with using_lang(lang):  # type: ignore[arg-type]
            rules = {r.id: r.text for r in plan_report(load_catalog(), plan, 8).rules}
        assert "CPU offload may make it fit" not in rules["owned-too-small"]
        assert "CPU 卸载也许能装下" not in rules["owned-too-small"]
    assert "individual-local" not in ids  # the offload line says the speed and the format


def test_owned_too_small_keeps_the_hint_when_nothing_keeps_the_card() -> None:
    training = {
        "workload": {
            "kind": "train",
            "model": "qwen2.5:14b",
            "mode": "full",
            "dataset_tokens": 10_000_000,
            "seq_len": 2048,
        },
        "owns": [{"gpu": "rtx-3060-12gb", "count": 1}],
        "months": 1,
        "region": "cn",
    }
    plan = _plan(training)
    with using_lang("en"):
        rules = {r.id: r.text for r in plan_report(load_catalog(), plan, 8).rules}
    assert "CPU offload may make it fit" in rules["owned-too-small"]


def test_the_first_options_rules_do_not_repeat_the_plans() -> None:
    from gpuwise.render.plan import markdown

    plan = _plan(HOBBYIST_3060)
    text = markdown(plan_report(load_catalog(), plan, 8))
    assert text.count("Without buying anything, your NVIDIA GeForce RTX 3060 12GB") == 1


def test_export_of_a_kept_card_with_one_added_names_both_cards() -> None:
    plan = _plan(KEEP_4090)
    best = plan.options[0]
    assert best.candidate.owned_kept == (("rtx-4090", 1),)
    added = best.candidate.gpu.id
    _, e = build(load_catalog(), plan, 1, "ollama")
    head = e.files["Modelfile"].splitlines()[0]
    assert f"1 x rtx-4090 + 1 x {added}" in head
    assert "2 x rtx-4090" not in head


def test_export_of_an_offload_puts_only_the_cards_share_of_layers_on_the_gpu() -> None:
    plan = _plan(HOBBYIST_3060)
    number = next(i for i, o in enumerate(plan.options, 1) if o.candidate.offload_fraction)
    o = plan.options[number - 1]
    _, e = build(load_catalog(), plan, number, "ollama")
    params = dict(
        ln.split()[1:] for ln in e.files["Modelfile"].splitlines() if ln.startswith("PARAMETER")
    )
    layers = 48  # Qwen3-30B-A3B: num_hidden_layers
    assert int(params["num_gpu"]) == int(layers * (1 - o.candidate.offload_fraction))
    assert "system RAM" in e.files["Modelfile"].splitlines()[0]
