"""An accelerator whose own host CPU is Arm: the stack must exist for aarch64.

A Grace superchip (GH200, GB200, GB300) or a DGX Spark (GB10) comes with its Arm CPU: the
Python wheels, containers and compiled kernels the job installs must be built for aarch64.
The big engines publish such builds; many smaller pieces (prebuilt attention kernels,
quantization libraries, a team's own binaries) are x86_64 only and must be built from source
or replaced. That is porting work like a partly supported stack's, smaller, and it was never
said (the plan ranked a GH200 rental first with no word of its CPU). The risk says so for
every option on such hardware; Apple's Macs, Arm too, carry their own ecosystem in the
catalog's feature matrix. Pure.
"""

from __future__ import annotations

from gpuwise.advise.evaluate import Option


def flag_arm_hosts(options: list[Option]) -> None:
    """Add risk.arm_host (in place) to each option on hardware with an Arm host of its own."""
    for o in options:
        g = o.candidate.gpu
        if g.host_cpu == "aarch64" and g.vendor != "apple":
            o.risks.append(("risk.arm_host", {"gpu": g.name}))
