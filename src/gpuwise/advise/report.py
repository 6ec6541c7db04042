"""A plan as its report (advise/report_model.PlanReport): the JSON contract of `gpuwise plan`,
which the tables, the Markdown, the web page and the exports read too."""

from __future__ import annotations

from typing import Any, Literal

from gpuwise.advise.candidates import Candidate
from gpuwise.advise.evaluate import Option, incomplete_capex
from gpuwise.advise.fired import money
from gpuwise.advise.labels import candidate_words, option_label
from gpuwise.advise.margin import band_fields, tokens_band
from gpuwise.advise.outcome import Plan
from gpuwise.advise.reasons import message, rule_text, words
from gpuwise.advise.report_model import (
    Answers,
    Either,
    KeptBeside,
    PlanOption,
    PlanReport,
    RuleItem,
    SizedConfig,
    TextItem,
    Tie,
    TimeTie,
)
from gpuwise.advise.sized import Sized
from gpuwise.advise.table_rows import skipped_rows, table_rows
from gpuwise.catalog import Catalog
from gpuwise.cost.report_model import PriceEntry
from gpuwise.estimate.memory import gpu_capacity_bytes
from gpuwise.i18n import get_lang, t


def _texts(fired: list[tuple[str, dict[str, Any]]], prefix: str = "") -> list[TextItem]:
    """Risks, blockers, unchecked limits: the id without its message prefix, and the words."""
    return [TextItem(id=k.removeprefix(prefix), text=message(k, p)) for k, p in fired]


def _note(key: str, params: dict[str, Any]) -> str:
    """An ⓘ line in the user's language; cost item ids named as words (advise.reasons.words)."""
    return t(key, **(words(params) if "item_ids" in params else params))


def _rules(cat: Catalog, fired: list[tuple[str, dict[str, Any]]], plain: bool) -> list[RuleItem]:
    """Rules that fired, in words, with their numbers (`plain`: without the bilingual note
    texts, which are in `text`)."""
    lang = get_lang()
    return [
        RuleItem(
            id=rid,
            text=rule_text(cat, rid, lang, params),
            numbers={k: v for k, v in params.items() if k not in _NOTES} if plain else params,
        )
        for rid, params in fired
    ]


_NOTES = ("note_en", "note_zh")


def sized_config(sized: Sized) -> SizedConfig:
    """The configuration that fits, as the report states it."""
    return SizedConfig(
        quant=sized.quant,
        engine=sized.engine,
        strategy=sized.strategy,
        memory_per_gpu_bytes=sized.memory.device_total_bytes,
        tokens_per_s=sized.tokens_per_s,
        format_support=sized.support,
        compute_precision=sized.compute,
        micro_batch=sized.micro_batch,
        grad_accumulation=sized.grad_accumulation,
        grad_checkpointing=sized.grad_checkpointing,
        prompt_tokens=sized.prompt_tokens,
        kv_tokens_per_request=sized.kv_tokens_per_request,
        compressed_for_target_from=sized.compressed_for_target,
        replicas=sized.replicas if sized.replicas > 1 else None,
        machines_per_replica=sized.machines_per_replica if sized.machines_per_replica > 1 else None,
        step_tokens=sized.step_tokens,
        throughput_of="input_tokens" if sized.pooling else None,
        kv_cache_dtype=sized.lighter_kv_cache,
    )


def plan_option(cat: Catalog, o: Option, currency: str) -> PlanOption:
    """One option of the plan."""
    c = o.candidate
    kept = c.owned_kept[0] if c.owned_kept else None  # the owned card kept, the bought added
    kept_tokens = o.beside.sized.tokens_per_s if o.beside else 0.0  # owned serving beside
    pooled = bool(c.owned_kept or c.offload_fraction)  # memory of all the cards together
    return PlanOption(
        kind="own" if c.kind == "own" else "rent",
        gpu=kept[0] if kept else c.gpu.id,
        vendor=c.gpu.vendor,
        count=sum(n for _, n in c.owned_kept) if kept else c.cards or c.count,
        devices=c.count + sum(n for _, n in c.owned_kept),
        added_gpu=c.gpu.id if kept else None,
        added_count=c.cards if kept else None,
        offload_fraction=round(c.offload_fraction, 3) if c.offload_fraction else None,
        machines=c.nodes,
        system=c.system.id if c.system else None,
        systems=c.nodes if c.system else None,
        idle_devices=c.idle_devices,
        provider=c.provider.id if c.provider else None,
        provider_name=provider_name(cat, c.provider.id) if c.provider else None,
        instance=c.offer.instance if c.offer else None,
        billing=c.billing,
        already_owned=c.already_owned or bool(kept),
        platform=o.platform,
        total_cost=round(o.cost.total, 2),
        monthly_cost=round(o.cost.monthly, 2),
        hardware_priced=not incomplete_capex(o),
        currency=currency,
        items={k: round(v, 2) for k, v in o.cost.items.items()},
        unpriced=list(o.cost.unpriced),
        time_hours=round(o.time_hours, 2) if o.time_hours is not None else None,
        busy_hours_per_month=round(o.busy_hours_per_month, 1),
        memory_per_gpu_bytes=o.sized.memory.device_total_bytes + o.sized.companion_bytes,
        memory_capacity_bytes=gpu_capacity_bytes(o.sized.gpu if pooled else c.gpu),
        tokens_per_s=round(o.sized.tokens_per_s + kept_tokens, 1),
        tokens_per_s_band=_beside_band(o) if o.beside else band_fields(o.sized, o.time_hours)[0],
        time_hours_band=band_fields(o.sized, o.time_hours)[1],
        config=sized_config(o.sized),
        pareto=o.pareto,
        risks=_texts(o.risks, "risk."),
        rules=_rules(cat, o.rules, plain=True),
        blockers=_texts(o.blockers, "plan.block_"),
        unchecked=_texts(o.unchecked, "plan.unchecked_"),
        opportunity_value=_rounded(o.cost.details.get("opportunity_value")),
        porting_cost=_rounded(o.cost.details.get("porting_cost")),
        unpriced_ranked_at=_rounded(o.cost.details.get("unpriced_imputed")),
        prices=[PriceEntry.of(p) for p in o.prices],
        kept_beside=_kept_beside(o),
        standby=_standby(o),
        spare_devices=_spare_devices(o),
    )


def _standby(o: Option) -> Literal["hot", "cold"] | None:
    """How this option of a public API rides out a failure (advise/failover.py)."""
    if o.cold_standby:
        return "cold"
    return "hot" if "failover_replica" in o.cost.items else None


def _spare_devices(o: Option) -> int | None:
    """Devices the hot spare adds: its copies' devices, or a whole system's where the part is
    sold only as one (advise/failover.py)."""
    if "failover_replica" not in o.cost.items:
        return None
    c = o.candidate
    if c.kind == "own" and c.system is not None and c.nodes == 1 and not c.already_owned:
        return c.count + c.idle_devices
    per_copy = max(1, c.count // max(1, o.sized.replicas))
    return per_copy * max(1, o.spare_replicas)


def _kept_beside(o: Option) -> KeptBeside | None:
    """The owned hardware serving its share beside the option's, where there is some."""
    if o.beside is None:
        return None
    b, rule = o.beside, next(p for k, p in o.rules if k == "owned-beside")
    return KeptBeside(
        gpu=b.candidate.gpu.id,
        count=b.candidate.cards or b.candidate.count,
        requests=int(rule["requests"]),
        tokens_per_s=round(b.sized.tokens_per_s, 1),
        quant=b.sized.quant,
        monthly_cost=round(b.cost.monthly, 2),
    )


def _beside_band(o: Option) -> tuple[float, float] | None:
    """The two parts' bands added (each part's p10 and p90 summed: the limit is checked so)."""
    assert o.beside is not None
    bands = [tokens_band(o.sized), tokens_band(o.beside.sized)]
    if bands[0] is None or bands[1] is None:
        return None
    return round(bands[0][0] + bands[1][0], 1), round(bands[0][1] + bands[1][1], 1)


def _rounded(v: float | None) -> float | None:
    return None if v is None else round(v, 2)


def plan_report(cat: Catalog, plan: Plan, top: int) -> PlanReport:
    """Answers, top options, rules that fired (with text), dropped counts and suggestions."""
    cur = plan.currency
    rows = table_rows(plan.options, top)
    return PlanReport(
        scenario=plan.scenario,
        answers=plan.answers,
        answer_text=answer_lines(cat, plan),
        options=[plan_option(cat, o, cur).model_copy(update={"rank": r}) for r, o in rows],
        options_considered=len(plan.options) + len(plan.infeasible) + len(plan.unchecked),
        unchecked=[plan_option(cat, o, cur) for o in plan.unchecked[:top]],
        infeasible=[plan_option(cat, o, cur) for o in plan.infeasible[:3]]
        if not plan.options
        else [],
        assumptions=[TextItem(id=k, text=_note(k, p)) for k, p in plan.assumptions]
        + skipped_rows(rows),
        rules=_rules(cat, plan.rules, plain=False),
        dropped=plan.dropped,
        suggestions=[TextItem(id=k, text=t(k, **p)) for k, p in plan.suggestions],
        currency=cur,
    )


def _first_line(plan: Plan) -> str:
    """Buy or rent, with the cost; a total with unpriced parts is called a floor, not the least."""
    a, best, cur = plan.answers, plan.options[0], plan.currency
    c = best.candidate
    if {"cards", "host", "system"} & set(best.cost.unpriced):
        return t("plan.answer_unpriced", card=c.gpu.name)
    total, monthly = money(best.cost.total, cur), per_month(plan, money(best.cost.monthly, cur))
    verdict_key = "owned" if a.already_owned and a.buy_or_rent == "buy" else a.buy_or_rent
    items = t("plan.enum_sep").join(t(f"cost.item.{u}") for u in best.cost.unpriced)
    if a.buy_or_rent == "either" and a.either:  # a near tie keeps what decides it, floor or not
        e = a.either
        tied = [o.cost.total for o in plan.options if option_label(o) in (e.own, e.rent)]
        text = t(
            "plan.answer_either",
            own=e.own,
            rent=e.rent,
            margin=e.margin,
            total=money(min(tied, default=best.cost.total), cur),
            decides=either_deciders(e, plan.scenario.months),
        )
        unpriced = t("plan.either_unpriced", option=option_label(best), items=items)
        return text + (unpriced if items else "")
    cheaper = _cheaper_ranked_after(plan)
    if cheaper:  # "it costs least" would be false: say what the first is, then the cheaper one
        verdict = t(f"plan.verdict_{verdict_key}")
        return t("plan.answer_ranked", verdict=verdict, total=total, **monthly) + cheaper
    if best.cost.unpriced:
        verdict = t(f"plan.verdict_{verdict_key}")
        return t("plan.answer_floor", verdict=verdict, total=total, items=items, **monthly)
    return t(f"plan.answer_{verdict_key}", total=total, **monthly)


def per_month(plan: Plan, monthly: str) -> dict[str, Any]:
    """The cost a month beside the total ('' for a single run: a one-off job bought or rented
    once has no monthly cost; blind w30-03 read "CNY 525,611 per month" for one training run)."""
    w = plan.scenario.workload
    if w.one_off() and w.runs_per_month * plan.scenario.months <= 1:
        return {"per_month": "", "per_month_paren": ""}
    return {
        "per_month": t("plan.per_month", monthly=monthly),
        "per_month_paren": t("plan.per_month_paren", monthly=monthly),
    }


CHEAPER_SHARE = 0.95
"""An option ranked after the first is called cheaper when it costs under this share of it
(outside the prices' 5% uncertainty, plan_assumption price_uncertainty_fraction)."""


def _cheaper_ranked_after(plan: Plan) -> str:
    """The sentence naming a fully priced option that costs clearly less than the first but
    ranks after it for its risks (a public API on an owned box in an office, partial support,
    a marketplace host): blind w16-03 read 'it costs least' beside a cheaper purchase."""
    best = plan.options[0]
    priced = [o for o in plan.options[1:] if not incomplete_capex(o)]
    cheaper = min(priced, key=lambda o: o.cost.total, default=None)
    if cheaper is None or cheaper.cost.total >= best.cost.total * CHEAPER_SHARE:
        return ""
    labels = dict.fromkeys(t(f"risk_short.{k.removeprefix('risk.')}") for k, _ in cheaper.risks)
    name = candidate_words(cheaper.candidate, get_lang())  # display names, not ids
    spare = _spare_devices(cheaper)  # a spare in the total is said (blind w65-03: "× 3
    if spare:  # machines" at a price that billed 4)
        name += t("plan.answer_with_spare", n=spare)
    return t(
        "plan.answer_cheaper_after",
        option=name,
        total=money(cheaper.cost.total, plan.currency),
        risks=t("plan.name_sep").join(labels) or "—",
    )


def either_deciders(e: Either, months: float) -> str:
    """What settles a near tie between owning and renting, in words."""
    parts: list[str] = []
    if e.own_above_runs_per_month is not None:
        parts.append(t("plan.either_own_above_runs", runs=f"{e.own_above_runs_per_month:g}"))
    if e.own_above_hours_per_day is not None:
        parts.append(t("plan.either_own_above", hours=f"{e.own_above_hours_per_day:.1f}"))
    elif e.cheaper_always in ("own", "rent"):
        parts.append(t(f"plan.either_{e.cheaper_always}_always", months=months))
    if e.rent_before_month is not None and e.rent_before_month > 1:
        parts.append(t("plan.either_rent_before", month=e.rent_before_month))
    return " ".join(parts)


def answer_lines(cat: Catalog, plan: Plan) -> list[str]:
    """The three answers, one line each, in the user's language."""
    a = plan.answers
    if not plan.options:
        if plan.unchecked and plan.infeasible:  # the priced ones break a limit (blind w29-04)
            return [t("plan.answer_unchecked_and_blocked")]
        if plan.unchecked:
            return [t("plan.answer_only_unchecked")]
        # "see the changes below" only where the search found one (blind w12-05: an empty list)
        return [t("plan.answer_none" if plan.suggestions else "plan.answer_none_no_fix")]
    lines = [_first_line(plan)]
    gpu = plan.options[0].candidate.gpu
    vendor = t(f"vendor.{a.vendor}")
    if t(f"vendor.{a.vendor}", lang="en").lower() in gpu.name.lower():
        vendor = ""  # the card's name says it: 'Huawei Atlas 300I Duo', not '华为 Huawei …'
    card = f"{vendor} {gpu.name}".strip()
    system = plan.options[0].candidate.system
    if system is not None:
        cards = a.count or 0  # Answers.count holds every machine's cards already
        line = t("plan.answer_system", system=system.name, count=a.systems, cards=cards, card=card)
        lines.append(line)
    else:
        lines.append(_card_line(cat, plan.options[0].candidate, card, a))
    lines[-1] += _beside_text(cat, plan.options[0])
    if a.decided_by_time:
        lines[-1] += time_tie_text(a.decided_by_time)
    if a.decided_by_machines:
        x = a.decided_by_machines
        lines[-1] += t(
            "plan.tie_by_machines",
            cheaper=x.cheaper,
            margin=x.margin,
            machines=x.fewer_machines,
            other_machines=x.cheaper_machines,
        )
    if a.cloud:
        line = t(
            "plan.answer_cloud",
            provider=provider_name(cat, a.cloud.provider or ""),
            instance=a.cloud.instance,
            billing=t(f"billing.{a.cloud.billing}"),
        )
        lines.append(line + _ties_text(cat, a.cloud.ties))
    else:
        lines.append(t(_no_cloud_key(plan, a.already_owned)))
    return lines


def _no_cloud_key(plan: Plan, owned: bool) -> str:
    """Why no cloud is named: owning costs less, or no rental was ranked at all, which is not
    owning winning (blind w52-04: a country with no rental priced in it read "owning wins")."""
    if owned:
        return "plan.answer_no_cloud_owned"
    if plan.scenario.acquire == "buy":
        return "plan.answer_no_cloud_buy_only"
    everything = [*plan.options, *plan.infeasible, *plan.unchecked]
    clouds = plan.scenario.data_may_leave
    if clouds and not any(o.candidate.kind == "rent" for o in everything):
        return "plan.answer_no_cloud_unranked"
    return "plan.answer_no_cloud"


def _beside_text(cat: Catalog, o: Option) -> str:
    """' Keep your 4× A100 serving 32 of the 64 requests beside it.' for an option that adds
    to owned hardware too slow alone (advise/owned_beside.py); '' otherwise."""
    rule = next((p for k, p in o.rules if k == "owned-beside"), None)
    if o.beside is None or rule is None:
        return ""
    b = o.beside.candidate
    owned = t("plan.cards_of", count=b.cards or b.count, gpu=b.gpu.name)
    return t("plan.answer_beside", owned=owned, requests=rule["requests"], total=rule["total"])


def time_tie_text(x: TimeTie) -> str:
    """Why a run ranks above a cheaper one it is tied with: it ends sooner, and with a deadline,
    the slack each leaves at the long end of its band (advise/ties.py)."""
    text = t(
        "plan.tie_by_time",
        cheaper=x.cheaper,
        margin=x.margin,
        hours=x.shorter_hours,
        long=x.shorter_long_hours,
        other_hours=x.cheaper_hours,
        other_long=x.cheaper_long_hours,
    )
    if x.deadline_hours is None:
        return text
    spare, other = x.deadline_hours - x.shorter_long_hours, x.deadline_hours - x.cheaper_long_hours
    deadline = x.deadline_hours
    if other >= 0:
        return text + t("plan.tie_by_time_spare", other_spare=other, spare=spare, deadline=deadline)
    return text + t("plan.tie_by_time_miss", other_miss=-other, spare=spare, deadline=deadline)


def _card_line(cat: Catalog, c: Candidate, card: str, a: Answers) -> str:
    """'Which card?': the card bought or owned, or the owned cards kept and what is added to
    them, or the owned cards with part of the model in system RAM."""
    count = a.count
    owned = t("plan.name_sep").join(
        t("plan.cards_of", count=n, gpu=cat.gpu(g).name) for g, n in c.owned_kept
    )
    if c.owned_kept:
        return t("plan.answer_card_keep", owned=owned, card=card, count=count)
    if c.offload_fraction:
        kept = t("plan.cards_of", count=c.cards, gpu=c.gpu.name)
        return t("plan.answer_card_offload", owned=kept, pct=c.offload_fraction)
    key = "plan.answer_card_owned" if a.already_owned else "plan.answer_card"
    if a.spare_count and not a.already_owned:
        total = (count or 0) + a.spare_count
        return t("plan.answer_card_spare", card=card, count=count, spare=a.spare_count, total=total)
    return t(key, card=card, count=count)


def _ties_text(cat: Catalog, ties: list[Tie]) -> str:
    """' As good, within 5%: …' for rentals as cheap as the answer within the prices' own
    uncertainty; '' when there are none."""
    if not ties:
        return ""
    from gpuwise.cost.power import assumption

    names = t("plan.list_sep").join(
        t(
            "plan.tie_name",
            provider=provider_name(cat, x.provider or ""),
            instance=x.instance,
            billing=t(f"billing.{x.billing}"),
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
