"""Storage a provider does not publish a price for, ranked at the least the others charge.

A rental's bill lists its storage only where the provider publishes the rate; where it does
not, the item is "unpriced (not counted)" and the bill shows what is known. Ranking on that
bill treats the unknown as free: in blind w48-05 two clouds were charged USD 286-326 of block
storage for the data set while three others, whose storage price the catalog lacks, ranked
ahead partly for paying nothing for it. Every provider charges for the disk that holds the
data, so an unpriced storage item is ranked at the least the plan's other rentals pay for it:
a lower bound (a GPU marketplace is not charged a hyperscaler's cloud disk). Egress and a
public IP are left as they are: whether they cost anything depends on how the provider is
reached (traffic included in the hour, a port proxy instead of an address). Recorded in
cost.details['unpriced_imputed'] and added by margin.option_ranking_total; the bill itself
is unchanged and still says the item is unpriced. Pure.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from typing import Any

from gpuwise.advise.evaluate import Option

STORAGE_ITEMS = ("block_storage", "object_storage", "snapshots")
"""Rental items every provider charges for in some form: the disk the data lives on."""


def _least_per_item(options: list[Option]) -> dict[str, float]:
    """The least each storage item costs a machine over the rentals that price it: every
    machine of a rental holds its own disk, so a two-node cluster's bill is two disks, and a
    one-machine option is imputed one (a 16-GPU cluster's two disks were once imputed to an
    8-GPU node)."""
    seen: dict[str, list[float]] = defaultdict(list)
    for o in options:
        if o.candidate.kind != "rent":
            continue
        for name in STORAGE_ITEMS:
            if name in o.cost.items:
                seen[name].append(o.cost.items[name] / max(1, o.candidate.nodes))
    return {name: min(values) for name, values in seen.items()}


def impute_unpriced_items(options: list[Option]) -> dict[str, Any] | None:
    """Record on each rental with unpriced storage what the cheapest other rental pays for it
    (cost.details['unpriced_imputed']); the note's figures, or None where nothing was imputed."""
    least = _least_per_item(options)
    imputed_items: set[str] = set()
    for o in options:
        if o.candidate.kind != "rent":
            continue
        names = [n for n in o.cost.unpriced if n in least and least[n] > 0]
        if not names:
            continue
        imputed_items.update(names)
        machines = max(1, o.candidate.nodes)
        details = {**o.cost.details, "unpriced_imputed": machines * sum(least[n] for n in names)}
        o.cost = replace(o.cost, details=details)  # a bill may be shared: never edited
    if not imputed_items:
        return None
    return {"item_ids": tuple(sorted(imputed_items))}
