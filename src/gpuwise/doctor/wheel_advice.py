"""The wheel advice sentence the PyTorch and architecture rules share: which wheel fits this
GPU and driver, the newest one and the driver it needs, or which fact is missing."""

from __future__ import annotations

from typing import Any

from gpuwise.doctor.inputs import Inputs
from gpuwise.doctor.recommend import Advice, advise, last_release_for
from gpuwise.doctor.view import any_facts, capabilities, driver_version, found
from gpuwise.i18n import t


def advice_for(inp: Inputs) -> Advice:
    """Which wheel fits this machine's GPUs, driver and Python (see recommend.advise)."""
    py = any_facts(inp.facts, "torch").get("python", {}).get("version") or found(
        inp.facts, "system"
    ).get("python", "")
    driver = driver_version(inp.facts) or None
    return advise(inp.tables, str(py), capabilities(inp.facts), driver, inp.host.windows)


def wheel_params(inp: Inputs, advice: Advice) -> dict[str, Any]:
    """The `advice` sentence: which wheel fits this GPU and driver, or what is missing."""
    w, newest = advice.wheel, advice.newest
    if w is not None:
        text = t("doctor.wheel_advice", torch=w.torch, cuda=w.cuda, index=w.index_url)
        if newest is not None:
            text += " " + t(
                "doctor.wheel_newer", torch=newest.torch, cuda=newest.cuda, need=advice.need_driver
            )
        return {"advice": text}
    if newest is not None and advice.missing:
        return {
            "advice": t(
                "doctor.wheel_check_driver",
                torch=newest.torch,
                cuda=newest.cuda,
                index=newest.index_url,
                need=advice.need_driver or "?",
            )
        }
    if newest is not None:
        return {
            "advice": t(
                "doctor.wheel_driver_first",
                torch=newest.torch,
                cuda=newest.cuda,
                need=advice.need_driver or "?",
            )
        }
    if advice.missing:
        names = t("doctor.list_sep").join(t(f"doctor.fact_name.{m}") for m in advice.missing)
        return {"advice": t("doctor.wheel_missing_facts", missing=names)}
    return {"advice": _no_wheel_text(inp)}


def _no_wheel_text(inp: Inputs) -> str:
    """No wheel in the tables carries code for this GPU: say when support ended."""
    for cc in capabilities(inp.facts):
        last = last_release_for(inp.tables, cc)
        support = inp.tables.arch_support(cc)
        if last is not None:
            return t("doctor.wheel_last_release", cc=cc, torch=last.torch, cuda=last.cuda)
        if support is not None:
            return t("doctor.wheel_arch_ended", cc=cc, arch=support.arch)
    return t("doctor.wheel_unknown")
