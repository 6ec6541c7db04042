"""Properties every plan must have, whatever the scenario (used by the scenario and fuzz tests)."""

from __future__ import annotations

import datetime as dt
import io
import itertools
import re

from gpuwise.advise.evaluate import Option, incomplete_capex
from gpuwise.advise.fixes import apply_patch
from gpuwise.advise.margin import (
    BAND_RISKS,
    at_risk_of_missing,
    option_ranking_total,
    shortfall_factor,
    slow_hours,
    slow_tokens_per_s,
    tokens_band,
)
from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.regions import buyer_of, find_region
from gpuwise.catalog import Catalog
from gpuwise.catalog.precision import format_support, weight_format_key
from gpuwise.catalog.schema_cloud import HOURS_PER_MONTH
from gpuwise.catalog.systems import market_of, sold_as_system, sold_in, training_refusal
from gpuwise.cost.power import site_pue
from gpuwise.estimate.constants import MemoryConstants

TIE_MARGIN = 0.05
"""The prices' own uncertainty (catalog assumption price_uncertainty_fraction): a service's
cost tie within it may go to the option on fewer machines (advise/ties.py)."""

NEGATIVE_ZERO = re.compile(r"(?<![\w.])-0(?:[.,]0+)?(?![\d.,])")
"""'-0', '-0.0', '-0.00' as a number of its own ('2026-01-08' and 'qwen2.5-0.5b' are not)."""


def _supported(cat: Catalog, o: Option) -> bool:
    """The engine runs the option's format on its card (an fp8 checkpoint also weight-only)."""
    fmt = MemoryConstants.from_catalog(cat).weight_format(o.sized.quant)
    rows = cat.extra("precision_support")
    keys = [weight_format_key(fmt)] + (["fp8-w8a16"] if fmt.kind == "fp8" else [])
    gpu = o.candidate.gpu
    return any(
        format_support(rows, o.sized.engine, gpu, k).support in ("yes", "partial") for k in keys
    )


def _platform_takes(cat: Catalog, o: Option) -> bool:
    """A passively cooled card is never put in a desktop or workstation."""
    if o.platform is None or o.candidate.already_owned:
        return True
    platforms = {p.id: p for p in cat.extra("host_platform")}
    p = platforms.get(o.platform)
    return p is None or o.candidate.gpu.cooling in p.coolings


def _check_power(cat: Catalog, plan: Plan, o: Option) -> None:
    """Owned hardware costs what it draws: never more than every card at its TDP plus the host
    for every hour, times the PUE of the site the scenario declares, times the tariff (owned
    machines kept serving beside it add their own such bound); and an owned machine's
    running cost is never negative."""
    bound = _power_bound(cat, plan, o) if o.candidate.kind == "own" else 0.0
    if o.beside is not None:
        bound += _power_bound(cat, plan, o.beside)
    c = o.candidate
    assert o.cost.items.get("electricity", 0.0) <= bound * (1 + 1e-9) + 1e-9, (c.label, bound)
    if c.already_owned:
        running = o.cost.items.get("electricity", 0.0) + o.cost.items.get("maintenance", 0.0)
        assert running >= 0, (c.label, o.cost.items)


def _power_bound(cat: Catalog, plan: Plan, o: Option) -> float:
    """The most an owned option's power can cost: every card at its TDP plus the host, every
    hour, at the declared PUE and the tariff."""
    spec, c = o.own_spec, o.candidate
    assert spec is not None, c.label
    declared, _ = site_pue(cat, plan.scenario.owned_site(), None)
    assert spec.pue == declared, (c.label, spec.pue, declared)
    tdp = (c.gpu.tdp_w or 0.0) * c.gpu.devices_per_card
    if spec.gpu_load_w is not None:
        assert spec.gpu_load_w <= tdp + 1e-9, (c.label, spec.gpu_load_w, tdp)
    hours = o.cost.details.get("busy_hours", 0.0) + o.cost.details.get("idle_hours", 0.0)
    cards_w = (spec.count + spec.idle_cards) * tdp  # owned cards left unused sit in the box
    if c.owned_kept:  # owned cards kept beside the bought ones: each at its own TDP
        kept = [(cat.gpu(g), n) for g, n in c.owned_kept]
        kept_w = sum((g.tdp_w or 0.0) * g.devices_per_card * n for g, n in kept)
        cards_w = kept_w + c.cards * tdp
    ceiling_w = (cards_w + spec.host_load_w) * c.nodes  # spec: one machine of nodes
    return ceiling_w * hours / 1000 * declared * spec.tariff_per_kwh


def _check_period(o: Option) -> None:
    """Busy hours never exceed the hours of the period they are billed over."""
    busy = o.cost.details.get("busy_hours", 0.0)
    assert busy <= o.cost.months * HOURS_PER_MONTH * (1 + 1e-9), (o.candidate.label, busy)
    assert o.busy_hours_per_month <= HOURS_PER_MONTH * (1 + 1e-9), o.candidate.label


def check_option(cat: Catalog, plan: Plan, o: Option) -> None:
    """What holds for every option the planner considered."""
    c = o.candidate
    assert o.cost.total >= 0, (c.label, o.cost.items)
    assert all(v == v for v in o.cost.items.values()), c.label  # no NaN
    _check_period(o)
    if c.kind == "own" or o.beside is not None:
        _check_power(cat, plan, o)
    if o.beside is not None:
        check_beside(plan, o)
    assert _supported(cat, o), (c.label, o.sized.engine, o.sized.quant)
    if c.kind == "own" and not c.already_owned:
        assert not c.gpu.rent_only, c.label
        region = find_region(cat, plan.scenario.region)
        buyer, _ = buyer_of(region, plan.currency)
        assert buyer not in c.gpu.export_restricted_in, (c.label, buyer)
        assert _platform_takes(cat, o), (c.label, o.platform, c.gpu.cooling)
        check_purchasable_unit(o, market_of(buyer))
    check_can_train(cat, plan, o)
    if c.kind == "rent" and c.offer and c.offer.node_gpus:
        assert c.count >= c.offer.node_gpus * c.gpu.devices_per_card, c.label


def check_beside(plan: Plan, o: Option) -> None:
    """Owned machines kept serving beside added ones: only for a service, the owned part is
    hardware the user owns, its share of the requests is some but not all, and the bill holds
    its running cost beside the added hardware's."""
    assert o.beside is not None
    w = plan.scenario.workload
    assert w.kind == "serve" and not w.one_off(), o.candidate.label
    assert o.beside.candidate.already_owned and o.beside.beside is None, o.candidate.label
    rule = dict(o.rules)["owned-beside"]
    assert 0 < rule["requests"] < w.concurrency == rule["total"], (o.candidate.label, rule)
    assert o.cost.total >= o.beside.cost.total, o.candidate.label


def _speeds(o: Option) -> tuple[float, float]:
    """(central, slow end) tokens/s of the option, owned machines kept beside it included."""
    parts = [o.sized] if o.beside is None else [o.sized, o.beside.sized]
    return sum(p.tokens_per_s for p in parts), sum(slow_tokens_per_s(p) for p in parts)


def check_purchasable_unit(o: Option, market: str) -> None:
    """Every own purchase is a unit someone sells: a card bought singly (PCIe, an Apple Mac), or
    whole systems of the catalog sold in the buyer's market, priced as one item (no host added
    on top), holding at least the devices the job uses; an unused device is said, with its
    number."""
    c = o.candidate
    assert sold_in(c.gpu, market), (c.label, market)
    if sold_as_system(c.gpu):
        assert c.system is not None, c.label
    if c.system is None:
        return
    assert c.system.gpu == c.gpu.id, c.label
    assert sold_in(c.system, market), (c.label, market)
    bought = c.systems * c.system.gpus * c.gpu.devices_per_card
    assert 0 < c.count <= bought, c.label
    assert not {"cards", "host"} & {*o.cost.items, *o.cost.unpriced}, (c.label, o.cost.items)
    assert "system" in o.cost.items or "system" in o.cost.unpriced, c.label
    idle = [p for k, p in o.risks if k == "risk.idle_devices"]
    if bought > c.count:
        assert idle and idle[0]["idle"] == bought - c.count, (c.label, idle)
    else:
        assert not idle, c.label


def check_can_train(cat: Catalog, plan: Plan, o: Option) -> None:
    """No training option, bought or rented, on a card that cannot train with the job's
    frameworks (inference-only parts: Atlas 300I Duo / Ascend 310P, AWS Inferentia2)."""
    s = plan.scenario
    if s.workload.kind == "train":
        refusal = training_refusal(cat, o.candidate.gpu.id, s.feature_names())
        assert refusal is None, (o.candidate.label, refusal)


def check_ranked(plan: Plan, o: Option) -> None:
    """What holds for every option ranked as a possible answer."""
    s = plan.scenario
    w = s.workload
    if w.target_tokens_per_s or s.deadline_days or (w.kind == "train" and w.train_tokens()):
        assert o.sized.speed_known, o.candidate.label
    if s.budget is not None:
        assert not incomplete_capex(o), o.candidate.label
    if not s.spot_allowed():
        assert o.candidate.billing != "spot", o.candidate.label
    assert o.rules, o.candidate.label
    assert not o.blockers and not o.unchecked
    check_band(plan, o)


def check_band(plan: Plan, o: Option) -> None:
    """A ranked option meets the speed target and the deadline at its central estimate; where
    it misses either at the slow end of its error band it says so (a band risk, with its
    shortfall factor) and ranks above a safe option of its tier only when its total times that
    factor is no dearer (advise/margin.py); its band brackets its central figure."""
    s, w = plan.scenario, plan.scenario.workload
    band = tokens_band(o.sized)
    if band is not None:
        assert band[0] <= o.sized.tokens_per_s <= band[1], (o.candidate.label, band)
    short = False
    if w.kind != "train" and w.target_tokens_per_s:
        central, slow = _speeds(o)
        assert central >= w.target_tokens_per_s, o.candidate.label
        short = slow < w.target_tokens_per_s
    if s.deadline_days and o.time_hours:
        assert o.time_hours <= s.deadline_days * 24, o.candidate.label
        short = short or slow_hours(o.sized, o.time_hours) > s.deadline_days * 24
    risky = at_risk_of_missing(o.risks)
    assert not short or risky, ("missing band risk", o.candidate.label)
    # more hardware mends a band shortfall (priced by its factor), not a per-request ceiling
    mendable = any(k in BAND_RISKS for k, _ in o.risks)
    assert (shortfall_factor(o.risks) > 1) == mendable, o.candidate.label
    if not risky:  # a risky option of its tier ranked before it is cheaper even insured
        from gpuwise.advise.ranking import TIERS, rank_key  # tiers: priced, timed, quality, site…

        tier = rank_key(s)
        earlier = plan.options[: plan.options.index(o)]
        same = [e for e in earlier if tier(e)[:TIERS] == tier(o)[:TIERS]]
        for e in same:  # a service's tie may go to fewer machines (ties.py): within TIE_MARGIN
            if at_risk_of_missing(e.risks) and not e.candidate.already_owned:
                insured = option_ranking_total(e)  # its spare copy not scaled (margin.py)
                limit = option_ranking_total(o) * (1 + TIE_MARGIN + 1e-9)  # porting in both
                assert insured <= limit, (e.candidate.label, o.candidate.label)


def check_plan(cat: Catalog, plan: Plan) -> None:
    """Every option valid; ranked ones pass every limit; floors after fully priced totals."""
    for o in (*plan.options, *plan.unchecked, *plan.infeasible, *plan.set_aside):
        check_option(cat, plan, o)
    for o in plan.options:
        check_ranked(plan, o)
    floors = [incomplete_capex(o) for o in plan.options]
    assert floors == sorted(floors), "an option with an unpriced card ranks above a priced one"
    if plan.options and plan.answers.buy_or_rent == "either":
        assert not incomplete_capex(plan.options[0])
    check_more_devices_faster(plan)
    check_owned_not_below_for_support(plan)
    check_pooling(cat, plan)


def check_owned_not_below_for_support(plan: Plan) -> None:
    """A card the user owns is never ranked below an option that costs more only because its
    own support is partial: what ranks above it must be better known (priced, timed) or, for a
    public API, free of the licence / marketplace concern; partial support is a stated risk."""
    from gpuwise.advise.marketplace import on_marketplace
    from gpuwise.advise.site import unfit_for_public_service

    s = plan.scenario

    def tier(o: Option) -> tuple[bool, ...]:
        public = s.public_api and (on_marketplace(o) or unfit_for_public_service(s, o))
        at_home = s.owned_site() == "home" and any(k == "risk.server_site" for k, _ in o.risks)
        return (incomplete_capex(o), not o.sized.speed_known, at_home, public)

    from gpuwise.advise.ranking import TIERS, rank_key

    ranked_tier = rank_key(s)

    def insured(o: Option) -> float:
        # a target met only at the central estimate is ranked by its insured total, in the
        # whole cards or machines it comes in (margin.py), as the ranking itself does: owned
        # hardware's shortfall at the market value of the cards it would add (an owned Mac
        # short by 2x is not its power bill doubled), a public API's spare copy not scaled
        return option_ranking_total(o)

    for i, owned in enumerate(plan.options):
        if not owned.candidate.already_owned:
            continue
        for above in plan.options[:i]:
            same_card = above.candidate.already_owned and (
                above.candidate.gpu.id == owned.candidate.gpu.id
            )  # margin.sure_owned_first orders those by sureness, then 8 bits before 4
            if insured(above) > insured(owned) + 1e-6 and not same_card:
                first = (tier(above), ranked_tier(above)[:TIERS])
                assert first < (tier(owned), ranked_tier(owned)[:TIERS]), (
                    above.candidate.label,
                    owned.candidate.label,
                )


def check_pooling(cat: Catalog, plan: Plan) -> None:
    """An embedder or reranker generates nothing: no option is held to the reading-speed
    floor, none is sized in a 4-bit format, and its speed is input (prefill) tokens/s."""
    from gpuwise.advise.plan import workload_model
    from gpuwise.estimate.pooling import pools

    s = plan.scenario
    if s.workload.kind == "train" or not pools(workload_model(cat, plan.scenario)[0]):
        return
    for o in (*plan.options, *plan.unchecked, *plan.infeasible, *plan.set_aside):
        assert all(k != "plan.block_reading_speed" for k, _ in o.blockers), o.candidate.label
        assert o.sized.pooling and o.sized.speed.decode_tokens_per_s is None, o.candidate.label
        bits = MemoryConstants.from_catalog(cat).weight_format(o.sized.quant).bits_per_weight
        assert bits >= 8, (o.candidate.label, o.sized.quant)


def _seller_format(o: Option) -> tuple[object, ...]:
    c = o.candidate
    seller = (c.provider.id if c.provider else "", c.offer.instance if c.offer else "")
    system = c.system.id if c.system else ""
    kept = tuple(c.owned_kept)  # owned cards kept beside bought ones: other hardware
    # owned machines serving their share beside a rental: the rental serves only the rest of
    # the requests, at the rate those few give (a property run compared 8 rented nodes for
    # the rest with 4 for the whole load)
    beside = tuple(c.beside_owned)
    return (
        c.kind,
        c.gpu.id,
        c.already_owned,
        kept,
        beside,
        *seller,
        system,
        c.billing,
        o.sized.quant,
    )


def check_more_devices_faster(plan: Plan) -> None:
    """More devices of one card, seller and format are never slower than fewer (those that
    would be are dropped with the reason the plan states)."""
    groups: dict[tuple[object, ...], list[Option]] = {}
    for o in (*plan.options, *plan.infeasible):
        if o.sized.speed_known:
            groups.setdefault(_seller_format(o), []).append(o)
    for group in groups.values():
        ordered = sorted(group, key=lambda o: o.candidate.count)
        for fewer, more in itertools.pairwise(ordered):
            if more.candidate.count == fewer.candidate.count:
                continue
            if more.time_hours and fewer.time_hours:
                assert more.time_hours < fewer.time_hours, (more.candidate.label, fewer.time_hours)
            elif not more.time_hours and not fewer.time_hours:
                assert more.sized.tokens_per_s > fewer.sized.tokens_per_s, more.candidate.label


def check_fixes(cat: Catalog, plan: Plan, today: dt.date) -> None:
    """Every suggested change, applied to the scenario, gives a plan whose first option and
    total are the ones the suggestion quotes; a budget fix never quotes less than the budget."""
    for key, params in plan.suggestions:
        if "patch" not in params:
            continue
        again = make_plan(cat, apply_patch(plan.scenario, params["patch"]), today, fixes=False)
        assert again.options, (key, params["patch"])
        assert round(again.options[0].cost.total, 2) == params["total_value"], key
        if key == "plan.fix_budget" and plan.scenario.budget:
            b = plan.scenario.budget
            if b.currency == plan.currency:
                assert params["patch"]["budget"]["amount"] > b.amount


def check_rendered(cat: Catalog, plan: Plan) -> None:
    """No '-0.0' (or '-0') anywhere a user reads the plan: text, Markdown and JSON; and no raw
    configuration id, unfilled i18n key or (in Chinese) stray English word in the text and
    Markdown (tests/advise/plan_text.py), in the language the plan was made in."""
    from rich.console import Console

    from gpuwise.advise.report import plan_report
    from gpuwise.i18n import get_lang
    from gpuwise.render.out import json_text
    from gpuwise.render.plan import markdown, render_plan
    from tests.advise.plan_text import text_defects

    report = plan_report(cat, plan, top=10)
    buf = io.StringIO()  # wide enough that no name is wrapped in two
    render_plan(Console(file=buf, width=1000, markup=False, highlight=False), report)
    quoted = (plan.scenario.name, plan.scenario.workload.model)
    for kind, text in (("text", buf.getvalue()), ("markdown", markdown(report))):
        assert not NEGATIVE_ZERO.search(text), (kind, NEGATIVE_ZERO.findall(text))
        defects = text_defects(cat, text, get_lang(), quoted)
        assert not defects, (kind, defects)
    text = json_text(report)
    assert not NEGATIVE_ZERO.search(text), ("json", NEGATIVE_ZERO.findall(text))
    check_system_answer(cat, plan)


def check_system_answer(cat: Catalog, plan: Plan) -> None:
    """A bought system's answer counts every system's cards once: N systems of G cards are
    N × G cards (blind w45-05: 8 servers of 8 were called 512 cards)."""
    from gpuwise.advise.report import answer_lines

    if not plan.options or plan.options[0].candidate.system is None:
        return
    c = plan.options[0].candidate
    assert c.system is not None
    cards = c.systems * c.system.gpus
    assert plan.answers.count == cards, (plan.answers.count, cards)
    line = answer_lines(cat, plan)[1]
    assert f"×{c.systems}" in line and str(cards) in line.replace(",", ""), line
