"""A model compressed to fit the devices allowed: what its own format would take.

Where the first option runs the model in fewer bits than it ships in (DeepSeek-V3's FP8 cut to
4 bits on eight 80 GB cards) because nothing larger fits the scenario's `max_gpus` (the default
8: one machine), an expert says what the model as shipped would need and cost, so the quality
is traded knowingly (blind w32-02: 16 x H20 at FP8 hid behind the 8-GPU default). The plan is
run again with twice the devices and the first option in the shipped format is quoted. Only
where the scenario left `max_gpus` to its default: a stated limit is the user's.

Pure: the replanning comes in as a callable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpuwise.advise.sized import weight_bits
from gpuwise.advise.workload import workload_model
from gpuwise.errors import UserError
from gpuwise.estimate.constants import MemoryConstants

if TYPE_CHECKING:
    from gpuwise.advise.fixes import Replan
    from gpuwise.advise.outcome import Plan
    from gpuwise.catalog import Catalog

Fired = tuple[str, dict[str, Any]]


def native_format_note(plan: Plan, cat: Catalog, replan: Replan) -> list[Fired]:
    """The ⓘ line quoting the first option in the model's own format with twice the devices;
    [] where the first option already runs it, was compressed for speed, or none is found."""
    s = plan.scenario
    if not plan.options or "max_gpus" in s.model_fields_set or s.workload.kind != "serve":
        return []
    first = plan.options[0]
    if first.sized.compressed_for_target:  # compressed for speed: the shipped format fits
        return []
    mc = MemoryConstants.from_catalog(cat)
    shipped = workload_model(cat, s)[0].weight_format_hint or "bf16"
    try:
        shipped_bits = mc.weight_format(shipped).bits_per_weight
    except UserError:
        return []
    if weight_bits(mc, first.sized.quant) >= shipped_bits - 1e-6:
        return []
    wider = replan(s, {"max_gpus": 2 * s.max_gpus})
    found = next(
        (o for o in wider.options if weight_bits(mc, o.sized.quant) >= shipped_bits - 1e-6), None
    )
    if found is None:
        return []
    from gpuwise.advise.fired_billing import money
    from gpuwise.advise.labels import candidate_words
    from gpuwise.i18n import LANGS

    params: dict[str, Any] = {f"option_{x}": candidate_words(found.candidate, x) for x in LANGS}
    params |= {"quant": first.sized.quant, "shipped": found.sized.quant, "most": s.max_gpus}
    params |= {"devices": found.candidate.count, "wider": 2 * s.max_gpus}
    params |= {"total": money(found.cost.total, plan.currency)}
    params["ratio"] = found.cost.total / first.cost.total if first.cost.total > 0 else 0.0
    return [("plan.note_native_with_more", params)]
