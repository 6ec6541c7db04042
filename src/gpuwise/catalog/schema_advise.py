"""Typed advisor rules: the guide's rules of thumb (corrected where wrong), in zh and en."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from gpuwise.catalog.schema import Sourced, Strict


class Rule(Strict):
    """A rule the planner can cite, with the numbers that made it fire filled into its text.

    `correction_*` says where the guide is wrong and `source` (a source id) backs the correction.
    """

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    guide_section: str
    text_en: str
    text_zh: str
    correction_en: str = ""
    correction_zh: str = ""
    source: str | None = None

    def source_ids(self) -> list[str]:
        """The source behind a correction, if any."""
        return [self.source] if self.source else []


class Region(Sourced):
    """A place a scenario can ask for: where the data may be processed and whose prices apply.

    `codes` are cloud region codes (exact, or a prefix ending in `*`) and country codes that lie
    in the region; an offer belongs to it when the region its price is quoted for does.
    `buyer` names the market whose export rules apply to a buyer there (only "cn" today).
    `residency_laws_en`/`_zh` name the laws that keep data in the region, where one law does
    (a plan quotes them to say what "data stays in the region" means there).
    """

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    name_en: str
    name_zh: str
    aliases: list[str] = Field(default_factory=list)
    kind: Literal["cn", "global"]
    codes: list[str] = Field(default_factory=list)
    buyer: str | None = None
    residency_laws_en: str | None = None
    residency_laws_zh: str | None = None
    within: str | None = None
    """The wider region a country lies in (japan in asia-pacific): its tariffs and market apply
    where the country has none of its own; the country's own `codes` keep its offers apart, so
    a plan for India never ranks a Tokyo VM as if it were in India (blind w35-02)."""
    hardware_price_index: float | None = Field(default=None, gt=0)
    """What computer hardware bought there costs against its US price, duties and taxes
    included (a reference card's local price over its US price at the day's exchange rate;
    the source on the value): where the catalog has no price in the country's own market, a
    card, host or server is priced at the world price times this (cost/market.py; blind
    w56-02: a Brazilian fintech's servers priced as if bought in the US)."""
    countries: dict[str, str] = Field(default_factory=dict)
    """Aliases that name one country of the region, with its ISO code: `region: germany` takes
    the EU's offers and the German tariffs (blind w50-05: the EU household average was charged
    where the catalog has Germany's)."""


class StepBudget(Sourced):
    """Step token budgets a serving engine is worth trying (vLLM --max-num-batched-tokens,
    SGLang --chunked-prefill-size): the plan keeps the one fastest for the target."""

    engine: str
    tokens: list[int] = Field(min_length=1)


from gpuwise.catalog.schema_cost import CostAssumption  # noqa: E402

ADVISE_KINDS: dict[str, type[BaseModel]] = {
    "rule": Rule,
    "region": Region,
    "plan_assumption": CostAssumption,
    "step_budget": StepBudget,
}
"""`plan_assumption`: a request size the planner uses when a scenario leaves it out."""
