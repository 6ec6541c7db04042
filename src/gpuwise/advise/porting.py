"""The porting work a partly supported stack needs, priced in the team's own wages.

An option whose framework runs on its chip only partly (vllm-ascend on a 310P, a ROCm gap:
risk.partial_support) or whose format runs there only through an engine fork's undocumented
path (evaluate.caveats counts these layers) costs more than its bill: someone ports, patches
and debugs it. That work is a fixed effort, whatever the hardware costs, so it weighs a
one-month pilot heavily and a three-year, CNY 2 million purchase hardly at all. The plan used
to rank every such option after every option without it, whatever the price (blind w40-02:
an 8 × 910B server at CNY 2.31 million ranked above two Atlas 300I Duo cards at CNY 40,000
that met the target at the slow end of their band, for a 14B model). Now each partial layer
is priced at `porting_engineer_weeks_per_layer` weeks of a software engineer's published
wage in the buyer's region (catalog engineer_wage) and ranked as part of the option's total
(margin.option_ranking_total); the bill itself is unchanged.

A team with strong ops capacity ports stacks for a living, owned hardware is a sunk choice,
a buyer who prefers domestic chips has chosen the porting, and a person's own evenings are no
payroll: none of those is charged.
Pure: the catalog and the context come in.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gpuwise.advise.evaluate import Option, caveats
from gpuwise.advise.ranking import preference
from gpuwise.advise.scenario import Scenario
from gpuwise.catalog import Catalog
from gpuwise.cost.context import Context
from gpuwise.cost.power import assumption, region_chain

WEEKS_PER_YEAR = 52.0


def weekly_wage(cat: Catalog, ctx: Context, region: str | None) -> tuple[float, Any] | None:
    """A week of a software engineer's wage in the plan's currency, from the nearest region
    that lists one (the region, the region it lies in, the currency's home), with its row."""
    rows = {w.region: w for w in cat.extra("engineer_wage")}
    for key in region_chain(cat, region, ctx.currency):
        row = rows.get(key)
        if row is not None:
            return ctx.money(row.annual, row.currency) / WEEKS_PER_YEAR, row
    return None


def porting_charged(s: Scenario, o: Option) -> int:
    """The partial layers the ranking charges this option for (0: none charged). A person's
    own time is no payroll: an individual's porting is a risk said, not wages charged (blind
    w49-04: a hobbyist's Ryzen AI Max+ ranked behind a DGX Spark on two engineer-weeks)."""
    if s.ops_capacity == "strong" or o.candidate.already_owned or preference(s, o) > 1:
        return 0
    if not s.organisation():
        return 0
    return caveats(o)


def price_porting_work(
    cat: Catalog, s: Scenario, ctx: Context, options: list[Option], region: str | None
) -> dict[str, Any] | None:
    """Record on each option with partial layers what porting them costs
    (cost.details['porting_cost']); the note's figures, or None where nothing was charged."""
    wage = weekly_wage(cat, ctx, region)
    if wage is None:
        return None
    week, row = wage
    weeks = assumption(cat, "porting_engineer_weeks_per_layer").value
    charged = False
    for o in options:
        layers = porting_charged(s, o)
        if layers:
            details = {**o.cost.details, "porting_cost": layers * weeks * week}
            o.cost = replace(o.cost, details=details)  # a bill may be shared: never edited
            charged = True
    if not charged:
        return None
    names = {r.id: (r.name_en, r.name_zh) for r in cat.extra("region")}
    en, zh = names.get(row.region, (row.region, row.region))
    return {
        "weeks": weeks,
        "week": week,
        "region_en": en,
        "region_zh": zh,
        "currency": ctx.currency,
    }
