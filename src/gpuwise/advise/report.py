"""A plan as plain data: the JSON contract of `gpuwise plan` (tables and Markdown read it too)."""

from __future__ import annotations

from typing import Any

from gpuwise.advise.evaluate import Option
from gpuwise.advise.fired import money
from gpuwise.advise.plan import Plan
from gpuwise.advise.reasons import rule_text
from gpuwise.catalog import Catalog
from gpuwise.estimate.memory import gpu_capacity_bytes
from gpuwise.i18n import get_lang, t


def _msg(key: str, params: dict[str, Any]) -> str:
    lang = get_lang()
    if "note_en" in params:
        params = {**params, "note": params["note_zh"] if lang == "zh" else params["note_en"]}
    return t(key, **params)


def option_dict(o: Option, currency: str) -> dict[str, Any]:
    """One ranked option."""
    c = o.candidate
    return {
        "kind": c.kind,
        "gpu": c.gpu.id,
        "vendor": c.gpu.vendor,
        "count": c.count,
        "provider": c.provider.id if c.provider else None,
        "instance": c.offer.instance if c.offer else None,
        "billing": c.billing,
        "already_owned": c.already_owned,
        "total_cost": round(o.cost.total, 2),
        "monthly_cost": round(o.cost.monthly, 2),
        "hardware_priced": not ({"cards", "host"} & set(o.cost.unpriced)),
        "currency": currency,
        "items": {k: round(v, 2) for k, v in o.cost.items.items()},
        "unpriced": list(o.cost.unpriced),
        "time_hours": round(o.time_hours, 2) if o.time_hours is not None else None,
        "busy_hours_per_month": round(o.busy_hours_per_month, 1),
        "memory_per_gpu_bytes": o.sized.memory.device_total_bytes,
        "memory_capacity_bytes": gpu_capacity_bytes(c.gpu),
        "tokens_per_s": round(o.sized.tokens_per_s, 1),
        "config": o.sized.as_dict(),
        "pareto": o.pareto,
        "risks": [{"id": k.removeprefix("risk."), "text": _msg(k, p)} for k, p in o.risks],
        "rules": list(dict.fromkeys(o.rules)),
        "blockers": [
            {"id": k.removeprefix("plan.block_"), "text": _msg(k, p)} for k, p in o.blockers
        ],
    }


def plan_report(cat: Catalog, plan: Plan, top: int) -> dict[str, Any]:
    """Answers, top options, rules that fired (with text), dropped counts and suggestions."""
    lang = get_lang()
    cur = plan.currency
    return {
        "scenario": plan.scenario.model_dump(mode="json"),
        "answers": plan.answers,
        "answer_text": answer_lines(plan),
        "options": [option_dict(o, cur) for o in plan.options[:top]],
        "options_considered": len(plan.options) + len(plan.infeasible),
        "infeasible": [option_dict(o, cur) for o in plan.infeasible[:3]]
        if not plan.options
        else [],
        "rules": [
            {"id": rid, "text": rule_text(cat, rid, lang, params), "numbers": params}
            for rid, params in plan.rules
        ],
        "dropped": plan.dropped,
        "suggestions": [{"id": k, "text": t(k, **p)} for k, p in plan.suggestions],
        "currency": cur,
    }


def answer_lines(plan: Plan) -> list[str]:
    """The three answers, one line each, in the user's language."""
    a = plan.answers
    if not plan.options:
        return [t("plan.answer_none")]
    best = plan.options[0]
    cur = plan.currency
    if {"cards", "host"} & set(best.cost.unpriced):
        lines = [t("plan.answer_unpriced", card=best.candidate.gpu.id)]
    else:
        lines = [
            t(
                f"plan.answer_{a['buy_or_rent']}",
                total=money(best.cost.total, cur),
                monthly=money(best.cost.monthly, cur),
            )
        ]
    lines.append(t("plan.answer_card", vendor=a["vendor"], card=a["card"], count=a["count"]))
    if a["cloud"]:
        lines.append(
            t(
                "plan.answer_cloud",
                provider=a["cloud"]["provider"],
                instance=a["cloud"]["instance"],
                billing=t(f"billing.{a['cloud']['billing']}"),
            )
        )
    else:
        lines.append(t("plan.answer_no_cloud"))
    return lines
