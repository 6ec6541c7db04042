"""Huawei Ascend NPUs: the `npu-smi info` table, /dev/davinci*, the CANN toolkit and driver.

`npu-smi` reports DCMI failures as "dcmi module initialize failed. ret is -8005" instead of a
table; the code is kept (the catalog says what it means). The CANN version comes from the
toolkit's install info, the driver's from /usr/local/Ascend/driver/version.info.
"""

from __future__ import annotations

from typing import Any

from gpuwise.parse.npu_smi import parse_dcmi_error, parse_npu_smi_info, parse_version_info
from gpuwise.parse.result import Failed, Found, Missing, ProbeResult
from gpuwise.probe.context import ProbeContext
from gpuwise.probe.run import run_cmd, which

_TOOLKIT = "/usr/local/Ascend/ascend-toolkit/latest"


def cann_version(ctx: ProbeContext) -> str:
    """CANN toolkit version from its install info (architecture subfolder or top level)."""
    for sub in ctx.glob(_TOOLKIT, "*-linux"):
        text = ctx.read(f"{_TOOLKIT}/{sub}/ascend_toolkit_install.info")
        if text:
            return parse_version_info(text)
    return parse_version_info(ctx.read(f"{_TOOLKIT}/version.cfg") or "")


def probe_ascend(ctx: ProbeContext) -> ProbeResult:
    """`npu-smi info`; Missing when neither the tool nor /dev/davinci* exist."""
    davinci = [n for n in ctx.glob("/dev", "davinci*") if n[7:].isdigit()]
    facts: dict[str, Any] = {
        "davinci": davinci,
        "toolkit": ctx.exists(_TOOLKIT),
        "cann_version": cann_version(ctx),
        "driver_version": parse_version_info(
            ctx.read("/usr/local/Ascend/driver/version.info") or ""
        ),
        "visible": ctx.env.get("ASCEND_RT_VISIBLE_DEVICES", ""),
    }
    if which("npu-smi", ctx.env) is None:
        return Found(facts) if davinci else Missing("not_present", facts=facts)
    res = run_cmd(["npu-smi", "info"], ctx.left(6.0), ctx.env)
    if res.timed_out:
        return Failed("timeout", "npu-smi did not answer", facts)
    code = parse_dcmi_error(f"{res.stdout}\n{res.stderr}")
    if code is not None:
        return Failed("dcmi", f"ret is {code}", {**facts, "dcmi_code": code})
    try:
        return Found({**facts, **parse_npu_smi_info(res.stdout)})
    except ValueError:
        return Failed("garbage" if res.rc == 0 else "error", res.first_line(), facts)
