"""Buy-or-rent cost model (pure: no I/O, deterministic, `today` passed in).

- :mod:`gpuwise.cost.fx` converts between currencies with a dated rate (`--fx` overrides it).
- :mod:`gpuwise.cost.own` prices owning N cards: cards, host, electricity, maintenance, resale.
- :mod:`gpuwise.cost.rent` prices renting an offer in one billing mode with its hidden costs.
- :mod:`gpuwise.cost.spot` adds the expected rework of spot interruptions.
- :mod:`gpuwise.cost.compare` finds the break-even hours per day and month.
- :mod:`gpuwise.cost.resolve` turns catalog entries into the plain specs the functions above
  take, so a planner can price thousands of candidates with plain arithmetic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpuwise.cost.model import CostOption
    from gpuwise.cost.own import OwnSpec, own_cost
    from gpuwise.cost.rent import RentSpec, RentUsage, rent_cost

__all__ = ["CostOption", "OwnSpec", "RentSpec", "RentUsage", "own_cost", "rent_cost"]
_HOME = {"CostOption": "model", "OwnSpec": "own", "own_cost": "own"}


def __getattr__(name: str) -> Any:
    """Load the cost modules on first use, so `gpuwise.cost.fx` alone stays light (the offers
    listing imports it without the typed catalog)."""
    if name in __all__:
        import importlib

        module = importlib.import_module(f"gpuwise.cost.{_HOME.get(name, 'rent')}")
        return getattr(module, name)
    raise AttributeError(name)
