"""`offers`: cloud GPU offers, cheapest per GPU-hour first, every price dated."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpuwise.i18n import get_lang, t

if TYPE_CHECKING:
    from gpuwise.cost.plain_context import PlainContext
    from gpuwise.prices.index import OfferIndex


def default_currency(value: str | None) -> str:
    """The --currency value, or CNY for Chinese output and USD otherwise."""
    if value:
        return value
    return "CNY" if get_lang() == "zh" else "USD"


@dataclass
class OffersResult:
    """The matching offers as rows, with what the text view also needs."""

    index: OfferIndex
    ctx: PlainContext
    rows: list[dict[str, Any]]
    hint: str | None

    def as_json(self) -> dict[str, Any]:
        """The `gpuwise offers --json` document."""
        data: dict[str, Any] = {
            "currency": self.ctx.currency,
            "today": self.ctx.today.isoformat(),
            "offers": self.rows,
        }
        data["findings"] = [finding_text(k, p) for k, p in self.index.findings]
        if self.hint:
            data["hint"] = self.hint
        return data


def query_offers(
    gpu: str | None,
    provider: str | None,
    region: str | None,
    billing: str | None,
    max_price: float | None,
    currency: str | None,
    fx: float | None,
) -> OffersResult:
    """Offers matching the filters, cheapest per GPU-hour first."""
    import datetime as dt

    from gpuwise.cost.plain_context import plain_context
    from gpuwise.prices.index import load_index
    from gpuwise.prices.offer_query import query
    from gpuwise.service.money import money_in

    index = load_index()  # plain data: no typed catalog on this path (10,000 offers load fast)
    ctx = plain_context(index, default_currency(currency), dt.date.today(), fx)
    max_price = money_in(ctx, max_price, "--max-price")
    rows = [r.as_dict() for r in query(index, ctx, gpu, provider, region, billing, max_price)]
    return OffersResult(index, ctx, rows, _no_public_prices(index, provider))


def finding_text(key: str, params: tuple[tuple[str, str], ...]) -> str:
    """A loading problem that did not stop the command, in the user's language."""
    values: dict[str, Any] = dict(params)
    return t(key, None, **values)


def _no_public_prices(index: OfferIndex, provider: str | None) -> str | None:
    """For a provider that publishes no price list: say so, and how to add the user's quotes."""
    if not provider:
        return None
    from gpuwise.prices.offer_query import provider_id

    p = index.providers[provider_id(index, provider)]
    if p.public_prices and any(r.provider == p.id for r in index.records):
        return None
    name = p.name_zh if get_lang() == "zh" else p.name_en
    return t("prices.no_public_prices", name=name, provider=p.id)
