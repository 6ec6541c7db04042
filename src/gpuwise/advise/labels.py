"""How an option is named to people, shared by the rules, the answers, the fixes and the site
risks (a module of its own so none of them imports another for a name)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from gpuwise.i18n import Lang, get_lang, t

if TYPE_CHECKING:
    from gpuwise.advise.candidates import Candidate
    from gpuwise.advise.evaluate import Option


def option_label(o: Option) -> str:
    """An option as people read it: 'rtx-4090×2', or '算家云 RTX 4090 ×1 (按量) (rtx-4090×1)'."""
    c = o.candidate
    if c.beside_owned:  # owned machines kept serving beside the added ones
        kept = " + ".join(f"{g}×{n}" for g, n in c.beside_owned)
        return t("plan.kept_beside", kept=kept, added=option_label(_without_beside(o)))
    if c.kind == "own" and c.system is not None:
        return f"{c.system.id}×{c.nodes}"
    machines = t("plan.machines_short", n=c.nodes) if c.nodes > 1 else ""
    if c.owned_kept:
        kept = " + ".join(f"{g}×{n}" for g, n in c.owned_kept)
        return f"{kept} + {c.gpu.id}×{c.cards}"
    if c.offload_fraction:
        return f"{c.gpu.id}×{c.cards or c.count} + CPU"
    if c.kind == "own":
        return f"{c.gpu.id}×{c.cards or c.count}{machines}"
    assert c.provider and c.offer
    name = c.provider.name_zh if get_lang() == "zh" else c.provider.name_en
    billing = t(f"billing.{c.billing}")
    return f"{name} {c.offer.instance} ({billing}) ({c.gpu.id}×{c.node_devices}){machines}"


def _without_beside(o: Option) -> Option:
    """The option as its added hardware alone (for its name)."""
    return replace(o, candidate=replace(o.candidate, beside_owned=()), beside=None)


def candidate_words(c: Candidate, lang: Lang) -> str:
    """A configuration in words, by display names, for a sentence (never 'own:x×1[2/8]'):
    '8× NVIDIA Tesla P40', 'AMD Instinct MI355X server ×1 (uses 2 of 8 devices)', '2 machines
    of 4× …', or a rental's provider, instance and billing."""
    if c.beside_owned:
        kept = " + ".join(f"{g}×{n}" for g, n in c.beside_owned)
        added = candidate_words(replace(c, beside_owned=()), lang)
        return t("plan.kept_beside", lang=lang, kept=kept, added=added)
    if c.system is not None:
        text = f"{c.system.name} ×{c.nodes}"
        if c.idle_devices:
            total = c.count + c.idle_devices
            text += (" " if lang == "en" else "") + t(
                "plan.system_uses", lang=lang, used=c.count, total=total
            )
        return text
    if c.kind == "rent" and c.provider and c.offer:
        name = c.provider.name_zh if lang == "zh" else c.provider.name_en
        billing = t(f"billing.{c.billing}", lang=lang)
        text = t(
            "plan.tie_name", lang=lang, provider=name, instance=c.offer.instance, billing=billing
        )  # N machines of it said: a total for six reads as the price of one (blind w30-01)
        return t("plan.rented_machines", lang=lang, n=c.nodes, rental=text) if c.nodes > 1 else text
    cards = c.cards or c.count  # in one machine
    if c.owned_kept:  # the owned cards kept, then the ones added
        added = t("plan.cards_of", lang=lang, count=cards, gpu=c.gpu.name)
        names = c.owned_kept_names or tuple(g for g, _ in c.owned_kept)
        kept = " + ".join(
            t("plan.cards_of", lang=lang, count=n, gpu=name)
            for (_, n), name in zip(c.owned_kept, names, strict=False)
        )
        return f"{kept} + {added}"
    if c.nodes > 1:
        return t("plan.machines_of_cards", lang=lang, n=c.nodes, count=cards, gpu=c.gpu.name)
    return t("plan.cards_of", lang=lang, count=cards, gpu=c.gpu.name)


def hardware_words(c: Candidate, lang: Lang) -> str:
    """What an option runs on, by device count and memory, for 'X is enough': 'a single 16 GB
    card', '8 × 16 GB cards', 'one NVIDIA DGX Spark (GB10, 128 GB)', '2 × 141 GB devices of
    one NVIDIA HGX H200 server' — never 'a single card' for eight of them."""
    g = c.gpu
    if c.system is not None:
        return t(
            "plan.hw_system_devices",
            lang=lang,
            count=c.count,
            memory_gb=g.memory_gb,
            system=c.system.name,
            systems=c.nodes,
        )
    if g.whole_system:
        machines = c.cards or c.count
        key = "plan.hw_one_whole_system" if machines == 1 else "plan.hw_whole_system"
        return t(key, lang=lang, gpu=g.name, count=machines)
    cards = c.cards or c.count
    memory_gb = g.memory_gb * g.devices_per_card
    if cards == 1:
        return t("plan.hw_one_card", lang=lang, memory_gb=memory_gb)
    return t("plan.hw_cards", lang=lang, count=cards, memory_gb=memory_gb)
