"""The kernel log's GPU lines (`dmesg`): NVRM messages, Xid errors, the module that loaded.

Only the kernel knows some causes: a driver/library "API mismatch" names both versions, "Xid 79"
means the GPU fell off the bus, and a driver too new for an old GPU says which legacy branch
still drives it ("supported through the NVIDIA 470.xx Legacy drivers … will ignore this GPU").
gpuwise.parse.kmsg reads the lines, here and when they are pasted into `gpuwise doctor --from`.
Reading the log may need root (kernel.dmesg_restrict): then the probe reports it as Missing.
"""

from __future__ import annotations

from gpuwise.parse.kmsg import parse_kmsg
from gpuwise.parse.result import Found, Missing, ProbeResult
from gpuwise.probe.context import ProbeContext
from gpuwise.probe.run import run_cmd, which


def probe_kmsg(ctx: ProbeContext) -> ProbeResult:
    """`dmesg`, filtered to GPU lines and parsed; Missing when it cannot be read."""
    if which("dmesg", ctx.env) is None:
        return Missing("not_installed")
    res = run_cmd(["dmesg"], ctx.left(2.0), ctx.env)
    if not res.ok:
        reason = "timeout" if res.timed_out else "not_permitted"
        return Missing(reason, res.first_line())
    return Found(parse_kmsg(res.stdout))
