"""A plan as plain data: the JSON contract of `gpuwise plan` (tables and Markdown read it too)."""

from __future__ import annotations

from typing import Any

from gpuwise.advise.evaluate import Option, incomplete_capex
from gpuwise.advise.fired import money
from gpuwise.advise.margin import band_fields
from gpuwise.advise.plan import Plan
from gpuwise.advise.reasons import message, rule_text
from gpuwise.catalog import Catalog
from gpuwise.estimate.memory import gpu_capacity_bytes
from gpuwise.i18n import get_lang, t


def _msg(key: str, params: dict[str, Any]) -> str:
    return message(key, params)


def option_dict(cat: Catalog, o: Option, currency: str) -> dict[str, Any]:
    """One ranked option."""
    c = o.candidate
    lang = get_lang()
    return {
        "kind": c.kind,
        "gpu": c.gpu.id,
        "vendor": c.gpu.vendor,
        "count": c.cards or c.count,
        "devices": c.count,
        "machines": c.nodes,
        "system": c.system.id if c.system else None,
        "systems": c.nodes if c.system else None,
        "idle_devices": c.idle_devices,
        "provider": c.provider.id if c.provider else None,
        "provider_name": provider_name(cat, c.provider.id) if c.provider else None,
        "instance": c.offer.instance if c.offer else None,
        "billing": c.billing,
        "already_owned": c.already_owned,
        "platform": o.platform,
        "total_cost": round(o.cost.total, 2),
        "monthly_cost": round(o.cost.monthly, 2),
        "hardware_priced": not incomplete_capex(o),
        "currency": currency,
        "items": {k: round(v, 2) for k, v in o.cost.items.items()},
        "unpriced": list(o.cost.unpriced),
        "time_hours": round(o.time_hours, 2) if o.time_hours is not None else None,
        "busy_hours_per_month": round(o.busy_hours_per_month, 1),
        "memory_per_gpu_bytes": o.sized.memory.device_total_bytes,
        "memory_capacity_bytes": gpu_capacity_bytes(c.gpu),
        "tokens_per_s": round(o.sized.tokens_per_s, 1),
        **band_fields(o.sized, o.time_hours),
        "config": o.sized.as_dict(),
        "pareto": o.pareto,
        "risks": [{"id": k.removeprefix("risk."), "text": _msg(k, p)} for k, p in o.risks],
        "rules": [
            {"id": rid, "text": rule_text(cat, rid, lang, params), "numbers": _plain(params)}
            for rid, params in o.rules
        ],
        "blockers": [
            {"id": k.removeprefix("plan.block_"), "text": _msg(k, p)} for k, p in o.blockers
        ],
        "unchecked": [
            {"id": k.removeprefix("plan.unchecked_"), "text": _msg(k, p)} for k, p in o.unchecked
        ],
        "opportunity_value": _rounded(o.cost.details.get("opportunity_value")),
        "prices": [p.as_dict() for p in o.prices],
    }


def _rounded(v: float | None) -> float | None:
    return None if v is None else round(v, 2)


def _plain(params: dict[str, Any]) -> dict[str, Any]:
    """A rule's numbers without the bilingual note texts (they are in `text`)."""
    return {k: v for k, v in params.items() if k not in ("note_en", "note_zh")}


def plan_report(cat: Catalog, plan: Plan, top: int) -> dict[str, Any]:
    """Answers, top options, rules that fired (with text), dropped counts and suggestions."""
    lang = get_lang()
    cur = plan.currency
    return {
        "scenario": plan.scenario.model_dump(mode="json"),
        "answers": plan.answers,
        "answer_text": answer_lines(cat, plan),
        "options": [option_dict(cat, o, cur) for o in plan.options[:top]],
        "options_considered": len(plan.options) + len(plan.infeasible) + len(plan.unchecked),
        "unchecked": [option_dict(cat, o, cur) for o in plan.unchecked[:top]],
        "infeasible": [option_dict(cat, o, cur) for o in plan.infeasible[:3]]
        if not plan.options
        else [],
        "assumptions": [{"id": k, "text": t(k, **p)} for k, p in plan.assumptions],
        "rules": [
            {"id": rid, "text": rule_text(cat, rid, lang, params), "numbers": params}
            for rid, params in plan.rules
        ],
        "dropped": plan.dropped,
        "suggestions": [{"id": k, "text": t(k, **p)} for k, p in plan.suggestions],
        "currency": cur,
    }


def _first_line(plan: Plan) -> str:
    """Buy or rent, with the cost; a total with unpriced parts is called a floor, not the least."""
    a, best, cur = plan.answers, plan.options[0], plan.currency
    c = best.candidate
    if {"cards", "host", "system"} & set(best.cost.unpriced):
        return t("plan.answer_unpriced", card=c.gpu.name)
    total, monthly = money(best.cost.total, cur), money(best.cost.monthly, cur)
    if best.cost.unpriced:
        items = ", ".join(t(f"cost.item.{u}") for u in best.cost.unpriced)
        verdict = t(f"plan.verdict_{a['buy_or_rent']}")
        return t("plan.answer_floor", verdict=verdict, total=total, monthly=monthly, items=items)
    if a["buy_or_rent"] == "either" and a.get("either"):
        e = a["either"]
        return t(
            "plan.answer_either",
            own=e["own"],
            rent=e["rent"],
            margin=e["margin"],
            total=total,
            decides=either_deciders(e, plan.scenario.months),
        )
    return t(f"plan.answer_{a['buy_or_rent']}", total=total, monthly=monthly)


def either_deciders(e: dict[str, Any], months: float) -> str:
    """What settles a near tie between owning and renting, in words."""
    parts: list[str] = []
    if e["own_above_hours_per_day"] is not None:
        parts.append(t("plan.either_own_above", hours=f"{e['own_above_hours_per_day']:.1f}"))
    elif e["cheaper_always"] in ("own", "rent"):
        parts.append(t(f"plan.either_{e['cheaper_always']}_always", months=months))
    if e["rent_before_month"] is not None and e["rent_before_month"] > 1:
        parts.append(t("plan.either_rent_before", month=e["rent_before_month"]))
    return " ".join(parts)


def answer_lines(cat: Catalog, plan: Plan) -> list[str]:
    """The three answers, one line each, in the user's language."""
    a = plan.answers
    if not plan.options:
        return [t("plan.answer_only_unchecked" if plan.unchecked else "plan.answer_none")]
    lines = [_first_line(plan)]
    gpu = plan.options[0].candidate.gpu
    vendor = t(f"vendor.{a['vendor']}")
    if t(f"vendor.{a['vendor']}", lang="en").lower() in gpu.name.lower():
        vendor = ""  # the card's name says it: 'Huawei Atlas 300I Duo', not '华为 Huawei …'
    card = f"{vendor} {gpu.name}".strip()
    system = plan.options[0].candidate.system
    if system is not None:
        cards = a["count"] * a["systems"]
        line = t(
            "plan.answer_system", system=system.name, count=a["systems"], cards=cards, card=card
        )
        lines.append(line)
    else:
        lines.append(t("plan.answer_card", card=card, count=a["count"]))
    if a["cloud"]:
        line = t(
            "plan.answer_cloud",
            provider=provider_name(cat, a["cloud"]["provider"]),
            instance=a["cloud"]["instance"],
            billing=t(f"billing.{a['cloud']['billing']}"),
        )
        lines.append(line + _ties_text(cat, a["cloud"].get("ties") or []))
    else:
        lines.append(t("plan.answer_no_cloud"))
    return lines


def _ties_text(cat: Catalog, ties: list[dict[str, Any]]) -> str:
    """' As good, within 5%: …' for rentals as cheap as the answer within the prices' own
    uncertainty; '' when there are none."""
    if not ties:
        return ""
    from gpuwise.cost.power import assumption

    names = t("plan.list_sep").join(
        t(
            "plan.tie_name",
            provider=provider_name(cat, x["provider"]),
            instance=x["instance"],
            billing=t(f"billing.{x['billing']}"),
        )
        for x in ties
    )
    margin = assumption(cat, "price_uncertainty_fraction").value
    return t("plan.answer_cloud_ties", names=names, margin=margin)  # en starts with a space


def provider_name(cat: Catalog, provider_id: str) -> str:
    """A provider shown by its name in the user's language (算家云, not `suanjiayun`)."""
    p = cat.providers.get(provider_id)
    if p is None:
        return provider_id
    return p.name_zh if get_lang() == "zh" else p.name_en
