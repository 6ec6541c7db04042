"""nvidia-smi XML parsing on recorded outputs from several drivers and GPUs (fixtures/README)."""

from __future__ import annotations

import pytest

from gpuwise.parse.nvidia_smi import MIB, classify_error, number, parse_nvidia_smi_xml
from tests.probe.support import FIXTURES

SMI = FIXTURES / "nvidia-smi"


def parse(name: str) -> dict:  # type: ignore[type-arg]
    return parse_nvidia_smi_xml((SMI / name).read_text())


@pytest.mark.parametrize(
    ("name", "driver", "cuda", "count", "gpu_name", "mem_mib"),
    [
        (
            "a100-sxm4-80gb-mig-535.54.03.xml",
            "535.54.03",
            "12.2",
            1,
            "NVIDIA A100-SXM4-80GB",
            81920,
        ),
        (
            "rtx-pro-6000-blackwell-590.44.01.xml",
            "590.44.01",
            "13.1",
            1,
            "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition",
            97887,
        ),
        ("dual-rtx-a5000-590.44.01.xml", "590.44.01", "13.1", 2, "NVIDIA RTX A5000", 24564),
        ("tesla-t4-515.105.01.xml", "515.105.01", "11.7", 1, "Tesla T4", 15360),
        ("quadro-p2000-525.125.06.xml", "525.125.06", "12.0", 1, "Quadro P2000", 5120),
        ("gtx-1660-ti-418.43.xml", "418.43", "10.1", 1, "Graphics Device", 5912),
        ("rtx-3080-windows-536.40.xml", "536.40", "12.2", 1, "NVIDIA GeForce RTX 3080", 10240),
    ],
)
def test_driver_gpus_and_memory(
    name: str, driver: str, cuda: str, count: int, gpu_name: str, mem_mib: int
) -> None:
    facts = parse(name)
    assert facts["driver_version"] == driver
    assert facts["cuda_version"] == cuda
    assert len(facts["gpus"]) == count
    assert facts["gpus"][0]["name"] == gpu_name
    assert facts["gpus"][0]["memory_total_bytes"] == mem_mib * MIB


def test_old_throttle_tags_and_new_event_tags_both_read() -> None:
    old = parse("quadro-p2000-525.125.06.xml")["gpus"][0]  # <clocks_throttle_reasons>
    new = parse("dual-rtx-a5000-590.44.01.xml")["gpus"][0]  # <clocks_event_reasons>
    assert old["throttle_active"] == ["gpu_idle"]
    assert new["throttle_active"] == ["gpu_idle"]
    assert parse("a100-sxm4-80gb-mig-535.54.03.xml")["gpus"][0]["throttle_active"] == []


def test_ecc_mig_and_datacenter_fields() -> None:
    a100 = parse("a100-sxm4-80gb-mig-535.54.03.xml")["gpus"][0]
    assert a100["mig_mode"] == "Enabled"
    assert a100["ecc_mode"] == "Enabled"
    assert a100["ecc_uncorrected_volatile"] == 0
    t4 = parse("tesla-t4-515.105.01.xml")["gpus"][0]
    assert t4["ecc_mode"] == "Enabled" and t4["ecc_uncorrected_aggregate"] == 0
    assert t4["retired_pages"] == 0 and t4["retired_pending"] is False
    geforce = parse("rtx-3080-windows-536.40.xml")["gpus"][0]
    assert geforce["ecc_mode"] is None and geforce["ecc_uncorrected_volatile"] is None


def test_power_pcie_processes_and_driver_model() -> None:
    t4 = parse("tesla-t4-515.105.01.xml")["gpus"][0]  # old <power_readings>
    assert t4["power_w"] == pytest.approx(26.78) and t4["power_limit_w"] == pytest.approx(70.0)
    assert (t4["pcie_width"], t4["pcie_width_max"]) == (8, 16)
    blackwell = parse("rtx-pro-6000-blackwell-590.44.01.xml")["gpus"][0]
    assert blackwell["power_limit_w"] == pytest.approx(300.0)
    procs = blackwell["processes"]
    assert procs and procs[0]["name"].endswith("llama-server")
    assert procs[0]["used_memory_bytes"] == 65710 * MIB
    assert parse("rtx-3080-windows-536.40.xml")["gpus"][0]["driver_model"] == "WDDM"


@pytest.mark.parametrize(
    "text",
    ["", "not xml at all", "<nvidia_smi_log><gpu>", "\x00\x01\xff<nvidia_smi_log><gpu>\x80 not"],
)
def test_garbage_raises_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        parse_nvidia_smi_xml(text)


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ("Failed to initialize NVML: GPU access blocked by the operating system", "os_blocked"),
        (
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
            "Make sure that the latest NVIDIA driver is installed and running.",
            "driver_not_loaded",
        ),
        ("Failed to initialize NVML: Driver/library version mismatch", "version_mismatch"),
        ("No devices were found", "no_devices"),
        ("Unable to determine the device handle for GPU0000:01:00.0: GPU is lost.", "gpu_lost"),
        ("Failed to initialize NVML: Unknown Error", "nvml_lost"),
        ("Segmentation fault", "unknown"),
    ],
)
def test_error_messages_classified(message: str, reason: str) -> None:
    assert classify_error(message) == reason


def test_number_parses_units_and_sentinels() -> None:
    assert number("8188 MiB") == 8188
    assert number("16x") == 16
    assert number("-2 C") == -2
    assert number("N/A") is None
    assert number(None) is None
