"""A public institution in mainland China gets nothing back for the hardware it sells.

What a 事业单位 (a public university, hospital or research institute) sells its equipment for
is government non-tax revenue paid into the treasury (State Council Decree 738, art. 25), not
money back to the project that bought it; the disposal itself needs the finance bureau's
approval. Crediting the catalog's resale curve to such a buyer's bill made buying look
cheaper than it is to the budget that pays for it. Where the scenario leaves `resale_pct`
unset, an institution buying in mainland China is read as crediting the catalog's
`cn_public_body_resale_pct` (0), and the plan says so; setting resale_pct keeps the user's
reading. Pure.
"""

from __future__ import annotations

from typing import Any

from gpuwise.advise.scenario import Scenario
from gpuwise.advise.workload import plan_value
from gpuwise.catalog import Catalog

Fired = tuple[str, dict[str, Any]]


def public_body_resale(
    cat: Catalog, s: Scenario, buyer: str | None
) -> tuple[Scenario, list[Fired]]:
    """The scenario with the public-body resale share where it applies, and the note."""
    if s.entity != "institution" or buyer != "cn" or s.resale_pct is not None:
        return s, []
    pct = plan_value(cat, "cn_public_body_resale_pct")
    return s.model_copy(update={"resale_pct": pct}), [
        ("plan.note_public_body_resale", {"pct": pct})
    ]
