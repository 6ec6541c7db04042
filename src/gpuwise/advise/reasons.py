"""Risks of each option and the rules that shaped it, with the numbers behind them."""

from __future__ import annotations

import contextlib
from typing import Any

from gpuwise.advise.engines import EngineChoice, stack_of
from gpuwise.advise.evaluate import Option
from gpuwise.advise.no_longer_made import ended_but_priced_new
from gpuwise.advise.scenario import VISION_SUFFIX, Scenario
from gpuwise.advise.site import legacy_driver_risk, modified_card_risk, site_risks
from gpuwise.advise.stop_start import restart_note
from gpuwise.catalog import Catalog
from gpuwise.catalog.schema import Gpu
from gpuwise.catalog.systems import sold_as_system
from gpuwise.cost.model import busy_hours_per_month
from gpuwise.cost.session import needs_quota_request
from gpuwise.estimate.memory import GIB, HOST_OFFLOAD, gpu_capacity_bytes
from gpuwise.i18n import LANGS, t

Fired = tuple[str, dict[str, Any]]
from gpuwise.advise.sized import joined_machines  # noqa: E402
from gpuwise.advise.sizing import TIGHT_HEADROOM  # noqa: E402

QUANTIZED_4BIT = ("int4-awq", "int4-gptq", "q4_k_m", "q4_0", "q3_k_m", "q2_k", "mlx-q4")


def features_of(cat: Catalog) -> dict[tuple[str, str], str]:
    """(stack, feature) → yes / partial / no, from the feature matrix."""
    return {(f.stack, f.feature): f.support for f in cat.extra("feature")}


def feature_notes(cat: Catalog) -> dict[tuple[str, str], tuple[str, str]]:
    """(stack, feature) → (note_en, note_zh); built once per catalog (asked for every option)."""
    return cat.derived(
        "feature_notes",
        lambda: {(f.stack, f.feature): (f.note_en, f.note_zh) for f in cat.extra("feature")},
    )


def _framework_checks(
    cat: Catalog, s: Scenario, o: Option, feats: dict[Any, str], vision: bool = False
) -> None:
    stack = stack_of(o.candidate.gpu)
    notes = feature_notes(cat)
    for feature in s.feature_names(o.sized.engine, vision):
        support = feats.get((stack, feature)) or _unlisted(feats, stack, feature)
        if support == "no":
            o.blockers.append(("plan.block_framework", {"feature": feature, "stack": stack}))
        elif support == "partial":
            en, zh = notes.get((stack, feature)) or _unverified_note()
            o.risks.append(
                (
                    "risk.partial_support",
                    {"feature": feature, "stack": stack, "note_en": en, "note_zh": zh},
                )
            )


def _unverified_note() -> tuple[str, str]:
    """The note of a partial verdict the matrix has no row for (an engine's image input)."""
    from gpuwise.i18n import t

    return t("plan.feature_unverified", lang="en"), t("plan.feature_unverified", lang="zh")


def _unlisted(feats: dict[Any, str], stack: str, feature: str) -> str:
    """Support of a feature the matrix has no row for: a vision feature of an engine that runs
    on the stack is unverified (partial: no source says images work there, none says they
    fail); anything else does not run."""
    if feature.endswith(VISION_SUFFIX):
        base = feats.get((stack, feature.removesuffix(VISION_SUFFIX)), "no")
        return "partial" if base in ("yes", "partial") else "no"
    return "no"


def _spot_risks(s: Scenario, o: Option) -> None:
    c = o.candidate
    if c.billing != "spot":
        return
    notice = c.provider.spot_notice_s if c.provider else None
    if notice is None:
        o.risks.append(("risk.spot_no_notice", {}))
    else:
        o.risks.append(("risk.spot", {"notice_s": notice}))
    details = o.cost.details
    o.rules.append(
        (
            "spot-fits-the-job",
            {
                "interruptions": round(details.get("interruptions", 0.0), 1),
                "rework_hours": round(details.get("rework_hours", 0.0), 1),
                "checkpoint_min": s.checkpoint_min,
            },
        )
    )


def _hardware_rules(cat: Catalog, o: Option, feats: dict[tuple[str, str], str]) -> None:
    c, g = o.candidate, o.candidate.gpu
    per_replica = c.count // max(o.sized.replicas, 1)  # replicas never talk to each other
    if per_replica > 1 and g.interconnect == "none":
        pcie = cat.extra("host_memory")[0].pcie_gbps_per_gen_x16
        cards = c.cards or c.count
        if cards == 1:  # one multi-chip card: its chips talk through the card's PCIe switch
            o.risks.append(("risk.pcie_only_chips", {"gpu": g.name, "chips": c.count}))
        else:
            o.risks.append(("risk.pcie_only", {"gpu": g.name, "count": cards, "pcie": g.pcie_gen}))
        rule = "rtx-6000-ada-no-nvlink" if g.id == "rtx-6000-ada" else "no-nvlink-multi-gpu"
        if cards == 1:
            rule = ""  # the chips of one card: said as a risk above, not as cards over PCIe
        params = {
            "count": c.cards or c.count,
            "gpu": g.name,
            "pcie_gen": g.pcie_gen,
            "strategy": o.sized.strategy,
            "link_gbps": pcie.get(str(g.pcie_gen), pcie["4"]),
        }
        if rule:
            o.rules.append((rule, params))
    if stack_of(g) == "rocm":
        compile_support = feats.get(("rocm", "torch_compile"), "no")
        o.rules.append(
            ("rocm-pytorch-official", {"option": g.id, "torch_compile": compile_support})
        )
    if c.already_owned:
        o.rules.append(("owned-hardware", {"gpu": g.name, "count": c.cards or c.count}))
    if g.whole_system and c.kind == "own":
        o.rules.append(("whole-system", {"gpu": g.name, **memory_share(g)}))
    if c.system is not None and c.kind == "own" and not c.already_owned:
        _system_rules(o)


def memory_share(g: Gpu) -> dict[str, Any]:
    """How much of a whole computer's memory a GPU job gets, in en and zh, by its platform as
    the catalog describes it: a Metal (macOS) machine wires a share for the GPU; another
    unified-memory machine (DGX Spark's GB10 on DGX OS, a Ryzen AI Max under Linux) shares it
    with the CPU through its driver — never macOS words for a machine that does not run macOS."""
    if "metal" in g.stack.names():
        key = "plan.memory_share_metal"
    elif g.unified_memory and g.usable_memory_fraction:
        key = "plan.memory_share_driver"
    elif g.unified_memory:
        key = "plan.memory_share_shared"
    else:
        key = "plan.memory_share_own"
    numbers = {"memory_gb": g.memory_gb, "pct": g.usable_memory_fraction or 1.0}
    phrases = {f"memory_share_{lang}": t(key, lang=lang, **numbers) for lang in LANGS}
    return {"memory_gb": g.memory_gb, **phrases}


def _system_rules(o: Option) -> None:
    """A whole system bought: say so, and how many of its devices the job leaves idle."""
    c, g = o.candidate, o.candidate.gpu
    assert c.system is not None
    if sold_as_system(g):
        params = {"gpu": g.name, "form": g.form_factor.upper(), "system": c.system.name}
        o.rules.append(
            ("bought-as-system", {**params, "count": c.systems, "cards": c.cards * c.nodes})
        )
    if c.idle_devices:
        total = c.count + c.idle_devices
        o.risks.append(
            (
                "risk.idle_devices",
                {"system": c.system.name, "used": c.count, "total": total, "idle": c.idle_devices},
            )
        )


def _sizing_rules(s: Scenario, o: Option, choice: EngineChoice | None) -> None:
    """How the configuration was chosen: engine and format, batch or requests."""
    c, z, g, w = o.candidate, o.sized, o.candidate.gpu, s.workload
    params = {"engine": z.engine, "quant": z.quant, "gpu": g.name, "count": c.cards or z.count}
    if z.compressed_for_target:  # a faster format than the least compressed that fits
        o.rules.append(("sized-format-for-speed", {**params, "fitted": z.compressed_for_target}))
    else:
        o.rules.append(("sized-format", params))
    if choice and choice.refused:
        first = choice.refused[0][1]
        # an unknown verdict has no note: say it is undocumented, not that the engine refuses it
        o.rules.append(
            (
                "format-not-run" if first.note_en else "format-not-documented",
                {
                    "engine": z.engine,
                    "formats": tuple(q for q, _ in choice.refused),
                    "architecture": g.architecture or g.id,
                    "note_en": first.note_en,
                    "note_zh": first.note_zh,
                },
            )
        )
    if w.kind == "train" and z.micro_batch is not None:
        # a batch the user never set is no training advice: say what fits, and where to set it
        stated = "batch" in w.model_fields_set
        assumed = not stated and w.global_batch() != w.batch
        rule = "micro-batch-fits" if stated else "micro-batch-fits-unset"
        # the global batch the layout gives: the asked one, or just above it where the devices
        # do not divide it, which is said (blind w60-02: 512 ran as 528 on 24 GPUs unsaid)
        runs = z.micro_batch * (z.grad_accumulation or 1) * z.count
        if stated and runs != w.global_batch():
            rule = "micro-batch-rounded"
        o.rules.append(
            (
                "micro-batch-assumed" if assumed else rule,
                {
                    "micro": z.micro_batch,
                    "accumulation": z.grad_accumulation,
                    "batch": runs,
                    "asked": w.global_batch(),
                    "devices": z.count,
                    "checkpointing_on": bool(z.grad_checkpointing),
                },
            )
        )
    elif w.kind == "serve" and not z.pooling:  # an embedder keeps no KV cache to size
        o.rules.append(
            (
                "requests-not-maxima",
                {
                    "concurrency": w.concurrency,
                    "prompt": z.prompt_tokens,
                    "gen": w.gen_tokens,
                    "held": z.kv_tokens_per_request,
                    "context": w.context,
                },
            )
        )


def _offload_risk(s: Scenario, o: Option) -> None:
    """A training run that fits only with DeepSpeed's offload says what it moves to system RAM
    and how much RAM each machine needs for it (against the RAM the scenario states for the
    user's own machines)."""
    host = o.sized.memory.extra.get(HOST_OFFLOAD)
    if not host or not o.sized.strategy.endswith("offload"):
        return
    per_machine = host / max(1, o.candidate.nodes) / GIB
    have = s.host_ram_gb if o.candidate.kind == "own" else None  # a rental's RAM is its own
    key = "risk.offload_ram_short" if have and have < per_machine else "risk.offload_ram"
    o.risks.append((key, {"gib": per_machine, "have": have or 0, "strategy": o.sized.strategy}))


def option_risks(
    cat: Catalog,
    s: Scenario,
    o: Option,
    feats: dict[tuple[str, str], str],
    choice: EngineChoice | None = None,
    vision: bool = False,
) -> None:
    """Fill the option's risks, framework blockers and the rules that shaped it (`vision`: the
    model takes images, so the engine's image input must run on the stack too)."""
    c, g = o.candidate, o.candidate.gpu
    _framework_checks(cat, s, o, feats, vision)
    _spot_risks(s, o)
    restart_note(s, o, busy_hours_per_month(s.hours_per_day, s.days_per_week))
    _hardware_rules(cat, o, feats)
    _sizing_rules(s, o, choice)
    # a layer split sizes a pooled device (advise/owned_sizing.py): its memory is the cards';
    # an offload fills the card by design and keeps the rest in system RAM
    used = o.sized.memory.device_total_bytes + o.sized.companion_bytes
    headroom = 1 - used / gpu_capacity_bytes(o.sized.gpu)
    if headroom < TIGHT_HEADROOM and not c.offload_fraction:
        o.risks.append(("risk.tight_memory", {"pct": headroom}))
    _offload_risk(s, o)
    if o.sized.fused_only:
        o.risks.append(("risk.fused_only", {}))
    if o.sized.quant in QUANTIZED_4BIT:
        o.risks.append(("risk.quantized", {"quant": o.sized.quant}))
    if o.sized.lighter_kv_cache == "fp8":  # a batch takes it for speed alone (w66-05)
        key = "risk.kv_cache_fp8_batch" if s.workload.one_off() else "risk.kv_cache_fp8"
        o.risks.append((key, {"engine": o.sized.engine}))
    if o.sized.network_assumed:
        o.risks.append(
            ("risk.network_assumed", {"gbps": o.sized.network_gbps_per_node, "n": c.nodes})
        )
    owned_fabric = c.already_owned and c.owned_network_gbps_per_gpu  # theirs, switch and all
    if c.kind == "own" and c.nodes > 1 and joined_machines(s, o.sized) and not owned_fabric:
        o.risks.append(("risk.cluster_network_unpriced", {"n": c.nodes}))
    if o.sized.step_tokens:
        o.risks.append(("risk.step_tokens", {"tokens": o.sized.step_tokens}))
    if o.sized.machines_per_replica > 1:
        span = o.sized.machines_per_replica
        from gpuwise.advise.workload import workload_model

        moe = workload_model(cat, s)[0].moe is not None  # dense: layers split, not experts
        key = "risk.replica_spans" if moe else "risk.replica_spans_dense"
        o.risks.append((key, {"machines": span, "replicas": o.sized.replicas}))
    if o.sized.compressed_for_target:
        fitted = o.sized.compressed_for_target
        # a one-off batch takes the fastest format whether or not the other meets its
        # deadline (sizing._size_batch): said as speed bought, not a target missed (w66-05)
        key = "risk.compressed_for_batch" if s.workload.one_off() else "risk.compressed_for_target"
        o.risks.append((key, {"quant": o.sized.quant, "fitted": fitted}))
    if choice and choice.requantized_from:
        params = {"quant": o.sized.quant, "native": choice.requantized_from}
        o.risks.append(("risk.requantized_checkpoint", params))
    if o.sized.support == "partial" and choice and o.sized.quant in choice.verdicts:
        v = choice.verdicts[o.sized.quant]
        notes = {"note_en": v.note_en, "note_zh": v.note_zh}
        o.risks.append(("risk.format_partial", {"quant": o.sized.quant, **notes}))
    if not o.sized.speed_known:
        o.risks.append(("risk.speed_unknown", {"gpu": g.name}))
    if o.stale_prices:
        o.risks.append(("risk.stale_price", {"count": o.stale_prices}))
    ended = ended_but_priced_new(o)
    if ended:
        o.risks.append(("risk.no_longer_made", {"gpu": g.name, "since": ended}))
    bought = c.kind == "own" and not c.already_owned
    if bought and c.market in g.supply_uncertain_in:  # licensing has stopped deliveries
        o.risks.append(("risk.supply_uncertain", {"gpu": g.name}))
    if o.undated_prices:
        o.risks.append(("risk.undated_price", {"count": o.undated_prices}))
    if o.user_quote:
        o.risks.append(("risk.user_quote", {}))
    if c.kind == "rent" and c.offer is not None and c.offer.machine_unconfirmed:
        o.risks.append(("risk.machine_unconfirmed", {}))
    if o.cost.unpriced:
        o.risks.append(("risk.unpriced", {"item_ids": tuple(o.cost.unpriced)}))
    if c.kind == "own" and s.ops_capacity == "none" and not c.already_owned:
        o.risks.append(("risk.ops_own", {}))
    if g.vendor not in ("nvidia", "apple") and s.ops_capacity != "strong":
        # porting work is the same on a rented chip as on a bought one (blind w35-05: an
        # Ascend rental ranked first for a transformers job with no word of CANN)
        o.risks.append(("risk.ecosystem", {"vendor_id": g.vendor}))
    _server_site_risk(cat, s, o)
    _quota_risk(cat, s, o)
    site_risks(s, o)
    legacy_driver_risk(cat, o)
    modified_card_risk(o)


def _quota_risk(cat: Catalog, s: Scenario, o: Option) -> None:
    """A person renting a public cloud's GPU VM: its GPU family needs a quota the account must
    request first (spot apart), which a new personal account may not have; the blind review's
    hobbyist was sent to an 8x A100 spot VM no new account can launch."""
    c = o.candidate
    if c.kind != "rent" or c.provider is None or s.entity != "individual":
        return
    if needs_quota_request(cat, c.provider.id, c.provider.hosting):
        names = {"note_en": c.provider.name_en, "note_zh": c.provider.name_zh}
        o.risks.append(("risk.cloud_quota", names))


def _server_site_risk(cat: Catalog, s: Scenario, o: Option) -> None:
    """A server bought to sit at home or under an office desk: it is loud and hot and usually
    needs a server room, whose overhead (PUE) the scenario has not declared."""
    spec = o.own_spec
    if o.candidate.kind != "own" or o.candidate.already_owned or spec is None:
        return
    if s.owned_site() not in ("home", "office"):
        return
    system = o.candidate.system
    if system is not None:  # a whole purchasable system: a rack server or a workstation
        if system.form != "server":
            return
    else:
        platform = next((p for p in cat.extra("host_platform") if p.id == o.platform), None)
        if platform is None or platform.pue == "home":
            return
    if spec.gpu_load_w is None:  # no TDP for the cards: the host alone is no server's draw
        watts = system.max_power_w if system is not None else None
        if watts is None:
            o.risks.append(("risk.server_site_power_unknown", {}))
            return
        kw = watts / 1000
    else:
        kw = (spec.count * spec.gpu_load_w + spec.host_load_w) / 1000
    o.risks.append(("risk.server_site", {"kw": kw}))


def message(key: str, params: dict[str, Any]) -> str:
    """A message in the user's language: bilingual notes picked, item ids shown as words."""
    from gpuwise.i18n import get_lang, t

    if "note_en" in params:
        params = {**params, "note": params["note_zh"] if get_lang() == "zh" else params["note_en"]}
    named = words(params)
    text = t(str(params.get("message_key", key)), **named)  # a worded variant of the limit
    if get_lang() != "zh":
        return text
    from gpuwise.i18n import unspaced_zh

    return unspaced_zh(text, [str(v) for k, v in named.items() if v != params.get(k)])


def words(params: dict[str, Any]) -> dict[str, Any]:
    """Ids in a message's numbers shown as words in the user's language (vendors, cost items,
    on/off), so no raw id reaches a sentence."""
    from gpuwise.i18n import t

    out = dict(params)
    if "item_ids" in params:
        out["items"] = t("plan.enum_sep").join(t(f"cost.item.{i}") for i in params["item_ids"])
    for name, value in params.items():  # a list of names, joined as the language lists them
        if isinstance(value, tuple) and value and all(isinstance(v, str) for v in value):
            out[name] = t("plan.enum_sep").join(value)
    if "vendor_id" in params:
        out["vendor"] = t(f"vendor.{params['vendor_id']}")
    if params.get("architecture"):
        key = "arch." + str(params["architecture"]).lower().replace(" ", "-")
        named = t(key)
        out["architecture"] = params["architecture"] if named == key else named
    for name in ("stack", "feature", "strategy"):
        if isinstance(params.get(name), str):
            key = f"{name}.{params[name]}"
            named = t(key)
            out[name] = params[name] if named == key else named
    for name in ("platform", "plain"):  # host platforms (cost.toml host_platform)
        if isinstance(params.get(name), str):
            out[name] = t(f"platform.{params[name]}")
    if isinstance(params.get("torch_compile"), str):
        out["torch_compile"] = t(f"support.{params['torch_compile']}")
    if "checkpointing_on" in params:
        out["checkpointing"] = t(f"checkpointing.{'on' if params['checkpointing_on'] else 'off'}")
    return out


def rule_text(cat: Catalog, rule_id: str, lang: str, params: dict[str, Any]) -> str:
    """A rule's text filled with its numbers; the correction follows where the guide is wrong."""
    from gpuwise.i18n import fill, tidy_zh, unspaced_zh

    rule = next(r for r in cat.extra("rule") if r.id == rule_id)

    text = rule.text_zh if lang == "zh" else rule.text_en
    named = words(params)
    named_words = [str(v) for k, v in named.items() if v != params.get(k) and isinstance(v, str)]
    params = named
    if "note_en" in params:
        params = {**params, "note": params["note_zh"] if lang == "zh" else params["note_en"]}
    with contextlib.suppress(KeyError, ValueError, IndexError):
        text = fill(text, params)
    correction = rule.correction_zh if lang == "zh" else rule.correction_en
    if lang == "zh":
        text = unspaced_zh(text, named_words)
        return tidy_zh(f"{text}（{correction}）" if correction else text)
    return f"{text} ({correction})" if correction else text
