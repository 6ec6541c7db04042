"""Which of the guide's rules fired for a plan, and what would make an impossible plan possible."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from gpuwise.advise.evaluate import Option, incomplete_capex
from gpuwise.advise.fired_billing import SHOWN, billing_rule, why_no_spot
from gpuwise.advise.fired_billing import money as money
from gpuwise.advise.labels import candidate_words, hardware_words, option_label
from gpuwise.advise.outcome import break_even_of, break_even_runs, hours_per_day_of
from gpuwise.advise.site import site_rules
from gpuwise.catalog import Catalog
from gpuwise.cost.power import assumption
from gpuwise.cost.rent import HIDDEN_ITEMS
from gpuwise.cost.resolve import Context
from gpuwise.i18n import LANGS, get_lang, t

if TYPE_CHECKING:
    from gpuwise.advise.candidates import Candidate
    from gpuwise.advise.outcome import Plan

Fired = tuple[str, dict[str, Any]]


_label = option_label


def tied(own: Option, rent: Option, margin: float, currency: str) -> bool:
    """Two totals the plan cannot tell apart: within `margin` of the cheaper one (the prices'
    own uncertainty), or the same once rounded as shown ("$1 below $1" is never said)."""
    a, b = own.cost.total, rent.cost.total
    return abs(a - b) <= margin * min(a, b) or money(a, currency) == money(b, currency)


def _tie(plan: Plan, own: Option, rent: Option, margin: float) -> Fired:
    """A near tie: hardware already owned is said to win it (nothing to buy or start);
    otherwise both totals are named as equal and the break-even settles it."""
    cur, months = plan.currency, plan.scenario.months
    params: dict[str, Any] = {
        "own_option": _label(own),
        "own_total": money(own.cost.total, cur),
        "rent_option": _label(rent),
        "rent_total": money(rent.cost.total, cur),
        "margin": margin,
    }
    if own.candidate.already_owned:
        return ("owned-tie", params)
    be = break_even_of(own, rent, months, plan.scenario.days_per_week)
    params["busy_hours_per_month"] = rent.busy_hours_per_month
    params["months"] = months
    params["break_even"] = _break_even_words(plan, own, rent, be.hours_per_day)
    return ("own-rent-tie", params)


def _break_even_words(plan: Plan, own: Option, rent: Option, hours: float | None) -> str:
    """Where owning breaks even, in the job's own terms: runs a month for a run or batch (the
    work is fixed, and a slower owned card needs more hours for it: blind w43-02 read "22.4
    h/day" of an RTX 3090 as the user's hours), hours a day for a service."""
    w = plan.scenario.workload
    if w.one_off() and w.runs_per_month:
        runs = break_even_runs(own, rent, w.runs_per_month)
        if runs is None:
            return t("plan.never_breaks_even_runs")
        return t("plan.breaks_even_runs", runs=f"{runs:g}")
    if hours is None:
        return t("plan.never_breaks_even")
    return t("plan.breaks_even_at", hours=f"{hours:.1f}")


def _buy_vs_rent(plan: Plan, own: Option, rent: Option, margin: float = 0.0) -> Fired:
    """Owning against renting, each at its total; totals the plan cannot tell apart (within the
    prices' own uncertainty `margin`, or the same once rounded) are a tie, said as such."""
    cur, months = plan.currency, plan.scenario.months
    if tied(own, rent, margin, cur):
        return _tie(plan, own, rent, margin)
    be = break_even_of(own, rent, months, plan.scenario.days_per_week)
    if own.cost.total <= rent.cost.total and own.candidate.already_owned:
        return (  # nothing bought: no month it breaks even in (blind w68-02)
            "owned-below-rent",
            {
                "option": _label(own),
                "own_total": money(own.cost.total, cur),
                "rent_option": _label(rent),
                "rent_total": money(rent.cost.total, cur),
            },
        )
    if own.cost.total <= rent.cost.total:
        return (
            "own-when-busy",
            {
                "hours_per_day": round(
                    hours_per_day_of(own) * 7.0 / plan.scenario.days_per_week, 1
                ),
                "months": months,
                "option": _label(own),
                "own_total": money(own.cost.total, cur),
                "rent_total": money(rent.cost.total, cur),
                "rent_option": _label(rent),
                "break_even_month": be.months if be.months else "—",
            },
        )
    rent_total, own_total = money(rent.cost.total, cur), money(own.cost.total, cur)
    same = rent_total == own_total or own.cost.total - rent.cost.total <= margin * min(
        own.cost.total, rent.cost.total
    )
    compare = "plan.compare_about_same" if same else "plan.compare_below"
    if own.candidate.already_owned:  # nothing to buy, so nothing to break even on (w66-04)
        return (
            "rent-below-owned-running",
            {
                **{f"compare_{lang}": t(compare, lang=lang) for lang in LANGS},
                "rent_option": _label(rent),
                "rent_total": rent_total,
                "own_option": _label(own),
                "own_total": own_total,
            },
        )
    return (
        "rent-when-light",
        {
            **{f"compare_{lang}": t(compare, lang=lang) for lang in LANGS},
            "busy_hours_per_month": rent.busy_hours_per_month,
            "months": months,
            "rent_option": _label(rent),
            "rent_total": rent_total,
            "own_option": _label(own),
            "own_total": own_total,
            "break_even": _break_even_words(plan, own, rent, be.hours_per_day),
        },
    )


def _rent_rules(plan: Plan, rent: Option) -> list[Fired]:
    out: list[Fired] = []
    cur, items = plan.currency, rent.cost.items
    gpu_part = sum(items.get(k, 0.0) for k in ("compute", "spot_rework", "session_overhead"))
    # only what the rule's words name: a standby or failover replica, or an institution's
    # indirect costs, are items of their own with their own rules (not storage or egress)
    hidden = sum(items.get(k, 0.0) for k in HIDDEN_ITEMS)
    if gpu_part > 0 and round(hidden) >= 1 and hidden / gpu_part >= 0.005:  # never "$0 (0%)"
        out.append(
            (
                "hidden-costs",
                {
                    "hidden": money(hidden, cur),
                    "hidden_pct": hidden / gpu_part,
                    "option": _label(rent),
                },
            )
        )
    offer, c = rent.candidate.offer, rent.candidate
    if offer and c.billing == "spot":
        spot, od = offer.price("spot"), offer.price("on-demand")
        if spot and od and rent.busy_hours_per_month:
            rework = rent.cost.details.get("rework_hours", 0.0) / (
                rent.busy_hours_per_month * plan.scenario.months
            )
            out.append(
                (
                    "spot-discount",
                    {
                        "gpu": c.gpu.id,
                        "provider": (
                            c.provider.name_zh if get_lang() == "zh" else c.provider.name_en
                        )
                        if c.provider
                        else "",
                        "spot_pct": spot.per_hour / od.per_hour,
                        "rework_pct": rework,
                        "checkpoint_min": plan.scenario.checkpoint_min,
                    },
                )
            )
    return out


def _option_rules(plan: Plan) -> list[Fired]:
    """The rules that shaped the top options, once each, with the first option's numbers."""
    out: list[Fired] = []
    seen: set[str] = set()
    for o in plan.options[:SHOWN]:
        for rule, params in o.rules:
            if rule in seen or rule in PER_OPTION_ONLY:
                continue
            seen.add(rule)
            out.append((rule, {"option": _label(o), **params}))
    return out


KEEP_OWNED = ("owned-extend", "owned-offload")
"""Rules of the options that keep the user's too-small cards (advise/owned_extend.py)."""

PER_OPTION_ONLY = (
    "sized-format",
    "sized-format-for-speed",
    "micro-batch-fits",
    "micro-batch-rounded",
    "micro-batch-fits-unset",
    "micro-batch-assumed",
    "requests-not-maxima",
    "spot-fits-the-job",
    "server-grade-host",
    *KEEP_OWNED,  # said with owned-too-small (_keep_owned_rules)
)
"""Rules that describe one option's configuration: shown on the option, not on the plan."""


def hardware_name(cat: Catalog, hardware_id: str) -> str:
    """A card's or a system's display name for a sentence (the id where the catalog has none)."""
    with contextlib.suppress(KeyError):
        return cat.gpu_by_id(hardware_id).name
    system = next((x for x in cat.extra("system") if x.id == hardware_id), None)
    return system.name if system is not None else hardware_id


def _sized_name(cat: Catalog, gpu_id: str, memory_gb: float) -> str:
    """'AMD Ryzen AI Max+ 395 (128 GB)', without a second size where the name says it."""
    name = hardware_name(cat, gpu_id)
    size = f"{memory_gb:g}"
    return name if f"{size} GB" in name or f"{size}GB" in name else f"{name} ({size} GB)"


def domestic_vendors(cat: Catalog) -> dict[str, str]:
    """The Chinese accelerator makers the catalog has parts of, and those it has none of (so
    a 国产化 buyer is not told Hygon or MetaX were compared when the catalog lists none of
    their cards: blind w60-01)."""
    from gpuwise.advise.candidates import DOMESTIC_VENDORS

    present = {g.vendor for g in cat.gpus}
    params: dict[str, str] = {}
    for lang in LANGS:
        sep = t("plan.vendor_sep", lang=lang)
        listed = [t(f"vendor.{v}", lang=lang) for v in DOMESTIC_VENDORS if v in present]
        missing = [t(f"vendor.{v}", lang=lang) for v in DOMESTIC_VENDORS if v not in present]
        params[f"listed_{lang}"] = sep.join(listed)
        params[f"missing_{lang}"] = sep.join(missing) or t("plan.none_missing", lang=lang)
    return params


def _region_words(cat: Catalog, named: str) -> dict[str, str]:
    """The region as the user named it and, where that is one of its names, the region it
    stands for: offers are matched to the whole region (blind w60-03: "priced for
    netherlands" over a list led by Finland, netherlands being a name of the EU / EEA)."""
    from gpuwise.advise.regions import find_region

    region = find_region(cat, named)
    if region is None or named.strip().lower() in (region.id, region.name_en.lower()):
        return {"region": named, "region_zh": region.name_zh if region else named}
    return {
        "region": f"{named} ({region.name_en})",
        "region_zh": f"{named}（{region.name_zh}）",
    }


def _dropped_rules(cat: Catalog, plan: Plan) -> list[Fired]:
    """Why whole groups of options are missing: export rules, rent-only chips, spot, region;
    the cards and systems named as people know them (the ids stay in `plan.dropped_examples`)."""
    out: list[Fired] = []
    n = plan.dropped
    ex = {k: [hardware_name(cat, i) for i in v] for k, v in plan.dropped_examples.items()}
    for rule in (
        "export-restricted",
        "rent-only-hardware",
        "no-system-listed",
        "not-sold-here",
        "no-longer-made",
        "consumer-card-not-racked",
        "cannot-train",
    ):
        if n.get(rule):
            out.append(
                (
                    rule,
                    {
                        "cards": t("plan.name_sep").join(ex.get(rule, []))
                        + (" …" if n[rule] > 4 else "")
                    },
                )
            )
    if n.get("spot-not-for-this-job") and plan.scenario.workload.kind != "local":
        reason = why_no_spot(plan.scenario)
        out.append(("spot-not-for-this-job", {"count": n["spot-not-for-this-job"], **reason}))
    for rule in ("region", "region-unrecorded"):
        if n.get(rule):
            out.append((rule, {**_region_words(cat, plan.scenario.region), "count": n[rule]}))
    if n.get("provider-not-listed"):
        out.append(("provider-not-listed", {"count": n["provider-not-listed"]}))
    return out


SCALE_LIMITS = frozenset(
    {
        "plan.block_deadline",
        "plan.block_budget",
        "plan.block_hours",
        "plan.block_throughput",
        "plan.block_reading_speed",
    }
)
"""Blockers that say an option is too small, too slow or too dear, not the wrong kind."""


def _vram_rule(cat: Catalog, plan: Plan) -> list[Fired]:
    """Cards that could not hold the job at all, beside the smallest configuration that does
    (smallest in memory over all its devices, so counts of different sizes compare fairly)."""
    # the smallest among the configurations that hold the job and are held back only by how
    # much of them the limits allow (a deadline, a budget): a 64-GPU option ranked for a
    # deadline does not make the model need 64 GPUs of memory. One blocked for what it is (a
    # Mac for a company's service, a framework it lacks) is no example to give.
    scale_only = [o for o in plan.infeasible if all(k in SCALE_LIMITS for k, _ in o.blockers)]
    fitted = [*plan.options, *scale_only] or [*plan.unchecked, *plan.infeasible]
    # one machine's memory: an owned box kept beside another, or owned cards with cards added,
    # hold the model in two parts or twice and are no smallest configuration (blind w34-04)
    fitted = [o for o in fitted if o.beside is None and not o.candidate.owned_kept]
    if not plan.unfit or not fitted:
        return []
    smallest = min(fitted, key=lambda o: o.sized.memory.device_total_bytes * o.candidate.count)
    cards = t("plan.name_sep").join(_sized_name(cat, g, mem) for g, mem in plan.unfit[:3])
    total = smallest.sized.memory.device_total_bytes * smallest.candidate.count
    words = {f"option_{lang}": candidate_words(smallest.candidate, lang) for lang in LANGS}
    return [
        (
            "vram-too-small",
            {
                "model": plan.scenario.workload.model,
                "need_gib": total / 1024**3,
                **words,
                "cards": cards + (" …" if len(plan.unfit) > 3 else ""),
            },
        )
    ]


def _small_rentals_rule(cat: Catalog, plan: Plan) -> list[Fired]:
    """Rented machines of a card that holds the job elsewhere but too small to hold it alone
    or to be joined into a training cluster (search.Search.small_rentals), by name: a user
    who named the provider expects to hear why it is missing (blind w52-05)."""
    held = {o.candidate.gpu.id for o in [*plan.options, *plan.infeasible, *plan.unchecked]}
    small = [c for c in plan.small_rentals if c.gpu.id in held]
    if not small:
        return []
    from gpuwise.advise.workload import plan_value

    most = int(plan_value(cat, "scale_out_min_node_gpus"))
    params: dict[str, Any] = {"min": most, "count": len(small)}
    for lang in LANGS:
        names = list(dict.fromkeys(_offer_words(c, lang) for c in small))
        rest = " …" if len(names) > 4 else ""
        params[f"offers_{lang}"] = t("plan.name_sep", lang=lang).join(names[:4]) + rest
    return [("rentals-too-small-to-join", params)]


def _offer_words(c: Candidate, lang: str) -> str:
    """A rented machine by its provider and instance, whatever its billing."""
    assert c.provider is not None and c.offer is not None
    return f"{getattr(c.provider, f'name_{lang}')} {c.offer.instance}"


def _owned_unfit_rule(cat: Catalog, plan: Plan) -> list[Fired]:
    """The user's own hardware that cannot run the job, beside the smallest configuration that
    can — said first, since it is the option the user expected to see."""
    if not plan.owned_unfit:
        return []
    fitted = [*plan.options, *plan.unchecked, *plan.infeasible]
    need = (
        min(o.sized.memory.device_total_bytes * o.candidate.count for o in fitted) / 1024**3
        if fitted
        else None
    )
    owned = t("plan.name_sep").join(
        f"{n}× {_sized_name(cat, g, mem)}" for g, n, mem in plan.owned_unfit
    )
    kept = _keep_owned_rules(plan)
    # where the next lines keep the cards (a card added, layers in RAM), the hint that offload
    # may make it fit would say their fact twice: it is left out
    said = {
        "owned": owned,
        "model": plan.scenario.workload.model,
        "need": f"{need:.1f} GiB" if need is not None else "—",
        **{f"next_{lang}": "" if kept else t("plan.owned_small_hint", lang=lang) for lang in LANGS},
    }
    return [("owned-too-small", said), *kept]


def _keep_owned_rules(plan: Plan) -> list[Fired]:
    """What keeps the owned cards (advise/owned_extend.py), said right after they are found
    too small: the best-ranked card to add, and CPU offload even where it is too slow to rank
    (the reader learns what it gives for nothing)."""
    out: list[Fired] = []
    for rule in KEEP_OWNED:
        found = next(
            (p for o in (*plan.options, *plan.infeasible) for r, p in o.rules if r == rule), None
        )
        if found is not None:
            out.append((rule, found))
    return out


def fire_rules(cat: Catalog, plan: Plan, ctx: Context) -> list[Fired]:
    """The rules behind the answers, each with its numbers."""
    s = plan.scenario
    out: list[Fired] = []
    if not s.data_may_leave:
        out.append(("data-stays-on-premises", {}))
    if s.domestic_only:
        out.append(("domestic-only", domestic_vendors(cat)))
    if s.acquire != "any":
        out.append((f"acquire-{s.acquire}-only", {}))
    if "hipaa" in s.compliance:
        out.append(hipaa_rule(cat, plan))
    own = _priced_own(plan.options)
    rent = next((o for o in plan.options if o.candidate.kind == "rent"), None)
    # compare with the cheapest of the other kind even when it breaks the budget, never with
    # one that cannot do the job (a Mac that misses the deadline is no alternative)
    over_budget = [o for o in plan.infeasible if _only_over_budget(o)]
    other_own = own or _priced_own(over_budget)
    other_rent = rent or next(
        (o for o in plan.set_aside + over_budget if o.candidate.kind == "rent"), None
    )
    if other_own and other_rent and other_own.own_spec and other_rent.rent_spec:
        margin = assumption(cat, "price_uncertainty_fraction").value
        out.append(_buy_vs_rent(plan, other_own, other_rent, margin))
    if own and s.months <= 3 and "resale" in own.cost.items:
        capex = sum(own.cost.items.get(k, 0.0) for k in ("cards", "host", "system"))
        resale = -own.cost.items.get("resale", 0.0)
        pct = resale / capex if capex else 0.0
        out.append(("rent-short-project", {"months": s.months, "resale_pct": pct}))
    if rent:
        out += _rent_rules(plan, rent)
    out += billing_rule(plan)
    out = _owned_unfit_rule(cat, plan) + out
    out += _vram_rule(cat, plan) + _small_rentals_rule(cat, plan)
    out += _local_rules(plan) + site_rules(plan)
    return out + _dropped_rules(cat, plan) + _option_rules(plan)


def _only_over_budget(o: Option) -> bool:
    """An option whose only broken limit is the budget: it does the job, at a price."""
    return bool(o.blockers) and all(k == "plan.block_budget" for k, _ in o.blockers)


def _priced_own(options: list[Option]) -> Option | None:
    """The first owning option whose hardware is priced (a floor is never compared)."""
    return next((o for o in options if o.candidate.kind == "own" and not incomplete_capex(o)), None)


def _local_rules(plan: Plan) -> list[Fired]:
    """Local chat: the speed the owned card gives, and the rentals set aside for it."""
    out: list[Fired] = []
    best = plan.options[0] if plan.options else None
    kept = best is not None and (best.candidate.offload_fraction or best.candidate.owned_kept)
    if plan.scenario.workload.kind == "local" and best and best.sized.speed_known and not kept:
        # an owned card kept with RAM or an added card: its own rule says the speed and format
        params = {
            "tokens_per_s": best.sized.tokens_per_s,
            "option": _label(best),
            "quant": best.sized.quant,
            "memory_gb": best.candidate.gpu.memory_gb,
            "hardware_en": hardware_words(best.candidate, "en"),
            "hardware_zh": hardware_words(best.candidate, "zh"),
        }
        out.append(("individual-local", params))
    if plan.set_aside:
        cheapest = min(plan.set_aside, key=lambda o: o.cost.total)
        params = {
            "count": len(plan.set_aside),
            "rent_option": _label(cheapest),
            "rent_total": money(cheapest.cost.total, plan.currency),
        }
        out.append(("local-runs-on-own-hardware", params))
    return out


def hipaa_rule(cat: Catalog, plan: Plan) -> Fired:
    """HIPAA data: which clouds the plan rented from (those that sign a BAA for their GPU
    instances) and how many offers it left out; owned hardware is the user's own safeguards."""
    providers = sorted({p.name_en for p in cat.providers.values() if p.hipaa_baa is True})
    left_out = plan.dropped.get("no-hipaa-baa", 0)
    return ("hipaa-baa-only", {"providers": t("plan.name_sep").join(providers), "count": left_out})
