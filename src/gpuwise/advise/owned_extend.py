"""Keep the cards the user owns when they are too small alone: add cards, or offload to RAM.

A careful expert does not tell someone who owns an RTX 4090 to buy four new cards for a 70B
model: they say "add one used card and split the layers across both", or "run the rest from
system RAM for nothing, slowly". Both are options here, priced and timed like any other and
ranked by the same rules, for engines that can do it (catalog engine flags `layer_split`,
`cpu_offload`: llama.cpp, Ollama):

* extend: the owned cards stay in the owned PC and k cards are bought (new or used, as the
  buyer buys: cost.channel), up to the cards a desktop takes (plan_assumption
  `owned_pc_max_cards`); only actively cooled PCIe cards of the owned cards' software stack
  that are sold singly. Cost: the bought cards (no host: the PC is there), the power of all
  cards; speed: owned_sizing.size_split. The PSU is a stated risk.
* offload: the owned cards alone with the layers that do not fit in system RAM (scenario
  `host_ram_gb`, else plan_assumption `owned_pc_system_ram_gb`, less `owned_pc_os_reserve_gb`);
  local chat only (one request at a time). Cost: the owned cards' power, as for any owned card.

Only where the owned cards cannot run the job alone (plan.Search.owned_unfit): otherwise the
owned option itself is the answer and these would only cost more.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from gpuwise.advise.candidates import DOMESTIC_VENDORS, Candidate
from gpuwise.advise.engines import EngineChoice, stack_of
from gpuwise.advise.evaluate import Option, power_options, price, schedule
from gpuwise.advise.margin import slow_tokens_per_s
from gpuwise.advise.owned_sizing import HostRam, Offload, restricted, size_offload, size_split
from gpuwise.advise.scenario import Scenario
from gpuwise.advise.sized import Sized, SizeInputs
from gpuwise.advise.workload import plan_value
from gpuwise.catalog import Catalog
from gpuwise.catalog.schema import Gpu
from gpuwise.catalog.systems import market_of, sold_as_system, sold_in
from gpuwise.cost import own_cost
from gpuwise.cost.channel import card_price
from gpuwise.cost.model import combined
from gpuwise.cost.resolve import Context, resolve_own
from gpuwise.errors import UserError
from gpuwise.i18n import LANGS, t

ChoiceOf = Callable[[Gpu, bool], EngineChoice]
"""The engine and formats for a card (owned: True), as plan._search chooses them."""


@dataclass(frozen=True)
class OwnedInputs:
    """What the owned-card options need from the search: sizing inputs and engine choices."""

    si: SizeInputs
    choice_of: ChoiceOf
    buyer: str | None


def owned_cards(cat: Catalog, s: Scenario) -> list[Gpu]:
    """Every card the user owns, one entry per card."""
    return [cat.gpu(o.gpu) for o in s.owns for _ in range(o.count)]


def owned_options(cat: Catalog, ctx: Context, s: Scenario, oi: OwnedInputs) -> list[Option]:
    """Extension and offload options for owned cards too small for the job."""
    if not s.owns or s.workload.kind == "train":
        return []
    cards = owned_cards(cat, s)
    choice = oi.choice_of(cards[0], True)
    engine = oi.si.mc.engine(choice.engine) if choice.quants else None
    if engine is None or any(stack_of(g) != stack_of(cards[0]) for g in cards):
        return []
    out: list[Option] = []
    if engine.layer_split:
        out += _extensions(cat, ctx, s, oi, cards, choice)
    one_kind = len({g.id for g in cards}) == 1  # priced as n owned cards of one kind
    discrete = not any(g.unified_memory or g.whole_system for g in cards)  # a Mac: no RAM beside
    if engine.cpu_offload and s.workload.kind == "local" and one_kind and discrete:
        found = _offload(cat, ctx, s, replace(oi.si, choice=choice), cards)
        out += [found] if found is not None else []
        out += _extend_offload(cat, ctx, s, oi, cards, choice)
    return out


def _extend_offload(
    cat: Catalog,
    ctx: Context,
    s: Scenario,
    oi: OwnedInputs,
    cards: list[Gpu],
    choice: EngineChoice,
) -> list[Option]:
    """Cards added to the owned PC with the layers that still do not fit in system RAM: a
    second used RTX 3090 beside the first runs gpt-oss-120b with a quarter of it in RAM twice
    as fast as one card with half of it there, for a fraction of a card that holds it all
    (blind w44-04: the search added only cards big enough alone, or no card with RAM, and a
    4 x Tesla P40 server was bought for a home). Any card that goes in the PC, not only more
    of the owned one (blind w64-03: a used RTX 3090 beside an owned 4090, the expert's answer,
    was never tried). Each k up to the PC's room, priced as the k bought and the power of
    all."""
    room = min(int(plan_value(cat, "owned_pc_max_cards")), s.max_gpus) - len(cards)
    total = s.host_ram_gb or plan_value(cat, "owned_pc_system_ram_gb")
    free = total - plan_value(cat, "owned_pc_os_reserve_gb")
    if room <= 0 or free <= 0:
        return []
    ram = HostRam(
        free,
        plan_value(cat, f"system_ram_gbps_{s.host_ram_type}"),
        plan_value(cat, "offload_quality_floor_bits"),
    )
    out: list[Option] = []
    for added in _addable(cat, s, cards[0], oi.buyer):
        theirs = oi.choice_of(added, False)
        si = replace(oi.si, choice=restricted(choice, theirs.quants))
        if theirs.engine != choice.engine or not si.choice.quants:
            continue
        for k in range(1, min(room, added.max_per_host) + 1):
            found = size_offload(s, [*cards, *[added] * k], si, ram)
            if found is None or found.fraction <= 0:
                continue  # all on the cards (the plain extensions), or not even with the RAM
            option = _price_offload_extension(cat, ctx, s, cards, added, k, found, total)
            if option is not None:
                out.append(option)
    return out


def _price_offload_extension(
    cat: Catalog,
    ctx: Context,
    s: Scenario,
    cards: list[Gpu],
    added: Gpu,
    k: int,
    found: Offload,
    ram_gb: float,
) -> Option | None:
    """One extension with RAM offload, priced, with its rule and the power supply's risk."""
    kept, names = _kept(cat, s)
    c = Candidate(
        "own",
        added,
        k,
        cards=k,
        owned_kept=kept,
        owned_kept_names=names,
        offload_fraction=found.fraction,
    )
    option = _price_extension(cat, ctx, s, c, found.sized)
    if option is None:
        return None
    params = {
        "owned": " + ".join(dict.fromkeys(g.name for g in cards)),
        "added": added.name,
        "count": k,
        "pct": found.fraction,
        "ram_gb": ram_gb,
        "tokens_per_s": round(found.sized.tokens_per_s, 1),
        "quant": found.sized.quant,
    }
    option.rules.append(("owned-extend-offload", params))
    tdp = sum(g.tdp_w or 0.0 for g in cards) + (added.tdp_w or 0.0) * k
    option.risks.append(("risk.owned_psu", {"tdp_w": tdp}))
    return option


def _kept(cat: Catalog, s: Scenario) -> tuple[tuple[tuple[str, int], ...], tuple[str, ...]]:
    """The owned cards kept in the PC, as (id, count) and their display names."""
    cards = [(cat.gpu(o.gpu), o.count) for o in s.owns]
    return tuple((g.id, n) for g, n in cards), tuple(g.name for g, _ in cards)


def _can_add(g: Gpu, s: Scenario, owned: Gpu, buyer: str | None) -> bool:
    """Whether `g` can go into the owned PC beside the owned cards: an actively cooled PCIe
    card sold singly, of the owned cards' software stack, sold in the buyer's market (catalog
    gpu `regions`), that this buyer can buy and has a price for."""
    if g.rent_only or g.whole_system or sold_as_system(g) or g.form_factor != "pcie":
        return False
    if g.cooling != "active" or stack_of(g) != stack_of(owned):
        return False
    if buyer and buyer in g.export_restricted_in:
        return False
    if not sold_in(g, market_of(buyer)):  # RTX 4090 D, the modified 2080 Ti: China only
        return False
    if s.domestic_only and g.vendor not in DOMESTIC_VENDORS:
        return False
    return card_price(g, s.entity, "") is not None


def _addable(cat: Catalog, s: Scenario, owned: Gpu, buyer: str | None) -> list[Gpu]:
    """Cards that can go into the owned PC beside the owned ones (_can_add)."""
    return [g for g in cat.gpus if _can_add(g, s, owned, buyer)]


def same_card_extensions(
    cat: Catalog,
    ctx: Context,
    s: Scenario,
    owned: Option,
    sized_of: Callable[[int], Sized | None],
    buyer: str | None,
) -> list[Option]:
    """More of the owned card in the owned PC, for owned cards that hold the model but are too
    slow for the service's target at the slow end of their band: k more cards (up to the
    cards a desktop takes), sized as one machine of n + k cards (`sized_of`: tensor parallel,
    the engine the bought cards get), priced as the k bought and the power of all. The
    expert's "add a second 3090 to the PC" (blind w34-04), beside owned_beside.py's second
    machine. Stops at the first k that meets the target at the slow end."""
    gpu, n = owned.candidate.gpu, owned.candidate.cards or owned.candidate.count
    target = s.workload.target_tokens_per_s or 0.0
    room = min(int(plan_value(cat, "owned_pc_max_cards")), s.max_gpus, gpu.max_per_host) - n
    if not target or not _can_add(gpu, s, gpu, buyer):
        return []
    out: list[Option] = []
    for k in range(1, room + 1):
        sized = sized_of(n + k)
        if sized is None or sized.tokens_per_s <= owned.sized.tokens_per_s:
            continue
        c = Candidate(
            "own", gpu, k, cards=k, owned_kept=((gpu.id, n),), owned_kept_names=(gpu.name,)
        )
        option = _price_extension(cat, ctx, s, c, sized)
        if option is None:
            continue
        params = {
            "owned": f"{n}× {gpu.name}",
            "count": k,
            "devices": n + k,
            "engine": sized.engine,
            "tokens_per_s": round(sized.tokens_per_s, 1),
            "owned_tokens_per_s": round(owned.sized.tokens_per_s, 1),
            "quant": sized.quant,
        }
        option.rules.append(("owned-extend-same", params))
        option.risks.append(("risk.owned_psu", {"tdp_w": (gpu.tdp_w or 0.0) * (n + k)}))
        out.append(option)
        if slow_tokens_per_s(sized) >= target:
            break
    return out


def _extensions(
    cat: Catalog,
    ctx: Context,
    s: Scenario,
    oi: OwnedInputs,
    cards: list[Gpu],
    choice: EngineChoice,
) -> list[Option]:
    """Every k of every addable card that, with the owned cards, fits and can be priced."""
    room = min(int(plan_value(cat, "owned_pc_max_cards")), s.max_gpus) - len(cards)
    hop_s = plan_value(cat, "layer_split_hop_ms") / 1000.0
    kept, names = _kept(cat, s)
    out: list[Option] = []
    for added in _addable(cat, s, cards[0], oi.buyer):
        theirs = oi.choice_of(added, False)
        if theirs.engine != choice.engine:
            continue
        si = replace(oi.si, choice=restricted(choice, theirs.quants))
        if not si.choice.quants:
            continue
        for k in range(1, room + 1):
            sized = size_split(s, [*cards, *[added] * k], si, hop_s)
            if sized is None:
                continue
            c = Candidate("own", added, k, cards=k, owned_kept=kept, owned_kept_names=names)
            option = _price_extension(cat, ctx, s, c, sized)
            if option is not None:
                _extension_notes(option, cards, added, k)
                out.append(option)
            break  # more of the same card only adds hops and cost once k fits
    return out


def _price_extension(
    cat: Catalog, ctx: Context, s: Scenario, c: Candidate, sized: Sized
) -> Option | None:
    """The bought cards (in the owned PC: no host) plus the power of the owned ones."""
    sch = schedule(s, sized)
    base = power_options(s)
    try:
        bought = resolve_own(
            cat, ctx, c.gpu.id, c.cards, replace(base, host_price=0.0, host_owned=True)
        )
        kept = [
            resolve_own(cat, ctx, g, n, replace(base, owned=True, host_owned=s.owns_host))
            for g, n in c.owned_kept
        ]
    except UserError:
        return None
    # one machine: its host draws once, on the kept cards' bill (in a server room both bills
    # charged it: an invariant of the random scenarios found the double count)
    alone = replace(bought.spec, host_load_w=0.0, host_idle_w=0.0) if kept else bought.spec
    cost = own_cost(alone, sch.busy_hours_per_month, sch.months)
    for k in kept:
        cost = combined(cost, own_cost(k.spec, sch.busy_hours_per_month, sch.months))
    stale = sum(p.stale for p in bought.prices)
    option = Option(c, sized, cost, sch.busy_hours_per_month, sch.run_hours, stale)
    # one machine: the host the kept cards' bill charges power for is the bought cards' host too
    host_w = max([bought.spec.host_load_w, *(k.spec.host_load_w for k in kept)])
    option.own_spec = replace(bought.spec, host_load_w=host_w)
    option.platform = bought.platform
    option.prices = bought.prices + tuple(p for k in kept for p in k.prices)
    return option


def _extension_notes(option: Option, cards: list[Gpu], added: Gpu, k: int) -> None:
    """The rule that says what the option is, and the power supply as a risk."""
    tdp = sum(g.tdp_w or 0.0 for g in cards) + (added.tdp_w or 0.0) * k
    owned = " + ".join(dict.fromkeys(g.name for g in cards))
    option.rules.append(
        (
            "owned-extend",
            {
                "owned": owned,
                "added": added.name,
                "count": k,
                "tokens_per_s": round(option.sized.tokens_per_s, 1),
                "quant": option.sized.quant,
            },
        )
    )
    option.risks.append(("risk.owned_psu", {"tdp_w": tdp}))


def _offload(
    cat: Catalog, ctx: Context, s: Scenario, si: SizeInputs, cards: list[Gpu]
) -> Option | None:
    """The owned cards with the layers that do not fit them in system RAM."""
    total = s.host_ram_gb or plan_value(cat, "owned_pc_system_ram_gb")
    free = total - plan_value(cat, "owned_pc_os_reserve_gb")
    gbps = plan_value(cat, f"system_ram_gbps_{s.host_ram_type}")
    if free <= 0:
        return None
    floor = plan_value(cat, "offload_quality_floor_bits")
    found = size_offload(s, cards, si, HostRam(free, gbps, floor))
    if found is None:
        return None
    sized, fraction = found.sized, found.fraction
    first = s.owns[0]
    gpu = cat.gpu(first.gpu)
    c = Candidate(
        "own", gpu, len(cards), already_owned=True, cards=len(cards), offload_fraction=fraction
    )
    option = price(cat, ctx, s, c, sized)
    if option is None:
        return None
    params = {
        "owned": " + ".join(dict.fromkeys(g.name for g in cards)),
        "pct": fraction,
        "ram_gb": total,
        "tokens_per_s": round(sized.tokens_per_s, 1),
        "quant": sized.quant,
        **_richer_words(found),
    }
    option.rules.append(("owned-offload", params))
    return option


def _richer_words(found: Offload) -> dict[str, str]:
    """The less compressed format passed over for speed, in each language ('' where none)."""
    if found.richer is None:
        return {f"richer_{lang}": "" for lang in LANGS}
    rich, pct = found.richer
    return {
        f"richer_{lang}": t(
            "plan.offload_richer",
            lang=lang,
            quant=rich.quant,
            pct=pct,
            tokens_per_s=rich.tokens_per_s,
            chosen=found.sized.quant,
        )
        for lang in LANGS
    }


def without_card_format(option: Option) -> Option:
    """The option without the per-card 'sized-format' line (it names one card; the
    owned-extend and owned-offload rules say the format for all the cards)."""
    option.rules = [r for r in option.rules if not r[0].startswith("sized-format")]
    return option
