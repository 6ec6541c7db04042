"""Which layout of a machine's cards a service runs: the one that meets its target at the slow
end of the band in the least compressed format (advise/sizing.py lays the candidates out)."""

from __future__ import annotations

import math

from gpuwise.advise.margin import slow_tokens_per_s
from gpuwise.advise.sized import Sized, SizeInputs, weight_bits


def pick_layout(
    layouts: list[Sized | None], target: float, si: SizeInputs, copies_first: bool = False
) -> Sized | None:
    """The layout that meets the target (or the reading-speed floor) at the slow end of the
    band in the least compressed format, then the faster; else, among those meeting it at the
    central estimate, the fully supported one fastest at the slow end (the smallest priced
    shortfall); else the fastest at the slow end. None when no layout's speed is known.
    `copies_first` (a public API): first a safe layout whose other copies carry the target
    with one down (its spare is inside the machine) in a format of 8 bits or more, then the
    least compressed format with the most copies, whose spare is one copy's share rather than
    the whole machine (blind w36-03: one 8-GPU copy of a 70B model on a DGX bought a second
    DGX as its spare; w38-05: two 16-bit copies of an 8B model on an 8-GPU server needed a
    second server, where eight FP8 copies keep their spare inside)."""
    found = [x for x in layouts if x is not None and x.speed_known]
    if not found:
        return None
    rank = {q: i for i, q in enumerate(si.choice.quants)}
    safe = [x for x in found if slow_tokens_per_s(x) >= target]
    if safe:

        def key(x: Sized) -> tuple[bool, int, int, float]:
            outside = copies_first and not _spare_inside(x, target, si)
            copies = -x.replicas if copies_first else 0
            return (outside, rank.get(x.quant, len(rank)), copies, -slow_tokens_per_s(x))

        return min(safe, key=key)
    central = [x for x in found if x.tokens_per_s >= target]  # only at the central estimate
    if central:
        # the least compressed format first, then (a public API) the fewest devices its
        # insured copies and spare take, then the layout fastest at the slow end
        def central_key(x: Sized) -> tuple[bool, int, float, float]:
            insured = insured_devices(x, target) if copies_first else 0.0
            return (
                x.support != "yes",
                rank.get(x.quant, len(rank)),
                insured,
                -slow_tokens_per_s(x),
            )

        return min(central, key=central_key)
    return max(found, key=slow_tokens_per_s)


def insured_devices(x: Sized, target: float) -> float:
    """The devices a public API's layout takes once its slow end is insured and its spare
    added: the copies that meeting the target at the slow end needs (whole copies: a service
    scales out a copy at a time) plus one spare copy, each copy its share of the devices. One
    copy over two 8-GPU machines, short at the slow end, takes two more copies of 16 devices
    (48); two copies of 8 take a third and a spare (32): the copies win where the fastest at
    the slow end would not (blind w43-04: a 16-GPU spare for a copy spanning two nodes)."""
    slow = slow_tokens_per_s(x)
    per_copy = x.count / max(1, x.replicas)
    if slow <= 0:
        return float("inf")
    copies = math.ceil(target / slow * x.replicas - 1e-9)
    return (max(copies, x.replicas) + 1) * per_copy


SPARE_FLOOR_BITS = 8.0
"""The fewest bits a copy may be cut to so that a machine keeps its spare inside: 8-bit
formats lose little, 4-bit ones are a quality call the user should make."""


def _spare_inside(x: Sized, target: float, si: SizeInputs) -> bool:
    """Whether the layout's copies, one down, still carry the target at the central estimate,
    in a format of SPARE_FLOOR_BITS or more (failover.spare_in_server's test)."""
    r = x.replicas
    if r < 2 or weight_bits(si.mc, x.quant) < SPARE_FLOOR_BITS - 1e-6:
        return False
    return x.tokens_per_s * (r - 1) / r >= target


__all__ = ["SPARE_FLOOR_BITS", "pick_layout"]
