"""Risks of each option and the guide's rules that fired, with the numbers behind them."""

from __future__ import annotations

import contextlib
from typing import Any

from gpuwise.advise.evaluate import Option
from gpuwise.advise.scenario import Scenario
from gpuwise.catalog import Catalog
from gpuwise.estimate.memory import gpu_capacity_bytes

Fired = tuple[str, dict[str, Any]]


def features_of(cat: Catalog) -> dict[tuple[str, str], str]:
    """(stack, feature) → yes / partial / no, from the feature matrix."""
    return {(f.stack, f.feature): f.support for f in cat.extra("feature")}


def feature_notes(cat: Catalog) -> dict[tuple[str, str], tuple[str, str]]:
    """(stack, feature) → (note_en, note_zh)."""
    return {(f.stack, f.feature): (f.note_en, f.note_zh) for f in cat.extra("feature")}


def option_risks(cat: Catalog, s: Scenario, o: Option, feats: dict[tuple[str, str], str]) -> None:
    """Fill the option's risks, framework blockers and option-level rules."""
    c, g = o.candidate, o.candidate.gpu
    stack = g.stack.names()[0] if g.stack.names() else "other"
    notes = feature_notes(cat)
    for feature in s.feature_names():
        support = feats.get((stack, feature), "no")
        if support == "no":
            o.blockers.append(("plan.block_framework", {"feature": feature, "stack": stack}))
        elif support == "partial":
            en, zh = notes.get((stack, feature), ("", ""))
            o.risks.append(
                (
                    "risk.partial_support",
                    {"feature": feature, "stack": stack, "note_en": en, "note_zh": zh},
                )
            )
    if c.billing == "spot":
        notice = c.provider.spot_notice_s if c.provider else None
        if notice is None:
            o.risks.append(("risk.spot_no_notice", {}))
        else:
            o.risks.append(("risk.spot", {"notice_s": notice}))
    if c.count > 1 and g.interconnect == "none":
        o.risks.append(("risk.pcie_only", {"gpu": g.id, "count": c.count, "pcie": g.pcie_gen}))
        o.rules.append(
            "rtx-6000-ada-no-nvlink" if g.id == "rtx-6000-ada" else "no-nvlink-multi-gpu"
        )
    if stack == "rocm":
        o.rules.append("rocm-pytorch-official")
    headroom = 1 - o.sized.memory.device_total_bytes / gpu_capacity_bytes(g)
    if headroom < 0.1:
        o.risks.append(("risk.tight_memory", {"pct": headroom}))
    if o.sized.quant in ("int4-awq", "q4_k_m", "q3_k_m", "int4-gptq"):
        o.risks.append(("risk.quantized", {"quant": o.sized.quant}))
    if not o.sized.speed_known:
        o.risks.append(("risk.speed_unknown", {"gpu": g.id}))
    if o.stale_prices:
        o.risks.append(("risk.stale_price", {"count": o.stale_prices}))
    if o.cost.unpriced:
        o.risks.append(("risk.unpriced", {"items": ", ".join(o.cost.unpriced)}))
    if c.kind == "own" and s.ops_capacity == "none":
        o.risks.append(("risk.ops_own", {}))
    if c.kind == "own" and g.vendor != "nvidia" and s.ops_capacity != "strong":
        o.risks.append(("risk.ecosystem", {"vendor": g.vendor}))


def rule_text(cat: Catalog, rule_id: str, lang: str, params: dict[str, Any]) -> str:
    """A rule's text filled with its numbers; the correction follows where the guide is wrong."""
    rule = next(r for r in cat.extra("rule") if r.id == rule_id)
    text = rule.text_zh if lang == "zh" else rule.text_en
    with contextlib.suppress(KeyError, ValueError, IndexError):
        text = text.format(**params)
    correction = rule.correction_zh if lang == "zh" else rule.correction_en
    return f"{text} ({correction})" if correction else text
