"""`bench` reads the PCIe link of the benchmarked GPU through the shared NVML adapter."""

from __future__ import annotations

import sys

import pytest

from gpuwise.bench.runner import pcie_link
from tests.probe.test_nvml import fake_pynvml


def test_pcie_link_reads_current_and_maximum_generation_and_width(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", fake_pynvml())
    assert pcie_link(0) == {"pcie_gen": 4, "pcie_gen_max": 4, "pcie_width": 8, "pcie_width_max": 16}


def test_pcie_link_is_none_when_nvml_cannot_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", fake_pynvml(init_error=9))  # driver not loaded
    assert pcie_link(0) is None


@pytest.mark.gpu
def test_real_pcie_link_of_gpu_0_is_a_plausible_link() -> None:
    """On a machine with an NVIDIA GPU (`pytest -m gpu`): generation 1–6, width 1–32 lanes."""
    link = pcie_link(0)
    assert link is not None
    assert 1 <= link["pcie_gen"] <= link["pcie_gen_max"] <= 6
    assert 1 <= link["pcie_width"] <= link["pcie_width_max"] <= 32
