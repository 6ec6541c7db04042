"""How an option is named to people, shared by the rules, the answers, the fixes and the site
risks (a module of its own so none of them imports another for a name)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpuwise.i18n import get_lang, t

if TYPE_CHECKING:
    from gpuwise.advise.evaluate import Option


def option_label(o: Option) -> str:
    """An option as people read it: 'rtx-4090×2', or '算家云 RTX 4090 ×1 (按量) (rtx-4090×1)'."""
    c = o.candidate
    if c.kind == "own" and c.system is not None:
        return f"{c.system.id}×{c.nodes}"
    machines = t("plan.machines_short", n=c.nodes) if c.nodes > 1 else ""
    if c.kind == "own":
        return f"{c.gpu.id}×{c.cards or c.count}{machines}"
    assert c.provider and c.offer
    name = c.provider.name_zh if get_lang() == "zh" else c.provider.name_en
    billing = t(f"billing.{c.billing}")
    return f"{name} {c.offer.instance} ({billing}) ({c.gpu.id}×{c.node_devices}){machines}"
