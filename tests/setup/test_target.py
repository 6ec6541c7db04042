"""Targets from flags and from the doctor's probe results."""

from __future__ import annotations

from typing import Any

from gpuwise.parse.result import Found
from gpuwise.setup.target import TargetFlags, from_facts, from_flags


def test_flags_take_the_architecture_from_the_catalog(catalog: Any) -> None:
    t = from_flags(TargetFlags(gpu="rtx-5090", driver="550.54", os="ubuntu22.04"), catalog, "3.11")
    assert (t.vendor, t.compute_capability, t.driver, t.os, t.python) == (
        "nvidia",
        "12.0",
        "550.54",
        "ubuntu22.04",
        "3.11",
    )
    amd = from_flags(TargetFlags(vendor="amd", gfx="GFX1100", rocm="6.2"), catalog, "3.12")
    assert (amd.vendor, amd.gfx, amd.rocm) == ("amd", "gfx1100", "6.2")
    wsl = from_flags(TargetFlags(gpu="rtx-4090", os="wsl2"), catalog, "3.12")
    assert wsl.place == "wsl2"


def test_facts_amd_apple_cpu() -> None:
    amd = from_facts(
        {
            "amd": Found({"cards": [{"name": "Radeon RX 7900 XTX", "gfx": "gfx1100"}]}),
            "system": Found({"os": "Linux", "python": "3.12.3"}),
        }
    )
    assert (amd.vendor, amd.gfx, amd.python) == ("amd", "gfx1100", "3.12")
    mac = from_facts({"system": Found({"os": "Darwin", "machine": "arm64", "python": "3.13.1"})})
    assert (mac.vendor, mac.os) == ("apple", "macos")
    cpu = from_facts({"system": Found({"os": "Linux", "python": "3.11.2"})}, python="3.10")
    assert (cpu.vendor, cpu.python) == ("cpu", "3.10")


def test_ascend_flags_and_facts(catalog: Any) -> None:
    t = from_flags(TargetFlags(ascend="910B", cann="8.0.RC3"), catalog, "3.10")
    assert (t.vendor, t.gpu, t.cann) == ("ascend", "ascend-910b", "8.0.RC3")
    facts = {
        "ascend": Found({"davinci": ["davinci0"], "cann_version": "8.0.0"}),
        "system": Found({"os": "Linux", "python": "3.10.12"}),
    }
    npu = from_facts(facts)
    assert (npu.vendor, npu.cann, npu.python) == ("ascend", "8.0.0", "3.10")
