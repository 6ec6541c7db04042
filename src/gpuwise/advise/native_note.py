"""A model run in fewer bits than it ships in: what its own format would cost.

Where the first option runs the model in fewer bits than it ships in, an expert says what the
model as shipped would cost, so the quality is traded knowingly. Two cases:

* compressed as a choice (the shipped format fits the devices allowed, but a compressed one
  was cheaper: copies of fewer cards, a faster batch): the plan is run again with the shipped
  format pinned (`workload.quant`) and its first option quoted (blind w53-05: FP8 copies of a
  72B VLM on 2 of 4 H100s were quoted against BF16 on 16 A100s at 2.9x, where one BF16 copy on
  the same 4 H100s costs about 1.2x);
* compressed to fit (DeepSeek-V3's FP8 cut to 4 bits on eight 80 GB cards, because nothing
  larger fits the default `max_gpus` of 8): the plan is run again with twice the devices and
  the first option in the shipped format is quoted (blind w32-02: 16 x H20 at FP8 hid behind
  the 8-GPU default); only where the scenario left `max_gpus` to its default.

Pure: the replanning comes in as a callable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpuwise.advise.sized import weight_bits
from gpuwise.advise.workload import workload_model
from gpuwise.errors import UserError
from gpuwise.estimate.constants import MemoryConstants

if TYPE_CHECKING:
    from gpuwise.advise.evaluate import Option
    from gpuwise.advise.fixes import Replan
    from gpuwise.advise.outcome import Plan
    from gpuwise.catalog import Catalog

Fired = tuple[str, dict[str, Any]]


def native_format_note(plan: Plan, cat: Catalog, replan: Replan) -> list[Fired]:
    """The ⓘ line quoting the first option in the model's own format, on the devices allowed
    or else with twice them; [] where the first option already runs it, was compressed for a
    speed target, or none is found."""
    s = plan.scenario
    if not plan.options or s.workload.kind != "serve" or s.workload.quant:
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
    as_shipped = _in_format(replan(s, {"workload": {"quant": shipped}}), mc, shipped_bits)
    if as_shipped is not None:
        return [("plan.note_native_same_devices", _params(plan, first, as_shipped))]
    if "max_gpus" in s.model_fields_set:
        return []
    wider = _in_format(replan(s, {"max_gpus": 2 * s.max_gpus}), mc, shipped_bits)
    if wider is None:
        return []
    params = _params(plan, first, wider) | {"most": s.max_gpus, "wider": 2 * s.max_gpus}
    return [("plan.note_native_with_more", params)]


def _in_format(plan: Plan, mc: MemoryConstants, bits: float) -> Option | None:
    """The plan's first option in a format of at least `bits` per weight."""
    return next((o for o in plan.options if weight_bits(mc, o.sized.quant) >= bits - 1e-6), None)


def _params(plan: Plan, first: Option, found: Option) -> dict[str, Any]:
    from gpuwise.advise.fired_billing import money
    from gpuwise.advise.labels import candidate_words
    from gpuwise.i18n import LANGS

    params: dict[str, Any] = {f"option_{x}": candidate_words(found.candidate, x) for x in LANGS}
    params |= {"quant": first.sized.quant, "shipped": found.sized.quant}
    params |= {"devices": found.candidate.count, "total": money(found.cost.total, plan.currency)}
    params["ratio"] = found.cost.total / first.cost.total if first.cost.total > 0 else 0.0
    return params
