"""Advice only from known facts, and fixes where they can run.

No wheel is named "for this GPU and driver" when either is unknown, never `pip install --upgrade
torch`; the last release per old architecture comes from the sourced tables; in a container the
driver fix is on the host, in WSL 2 on Windows; one component gets one verdict."""

from __future__ import annotations

import pytest

from gpuwise.doctor.model import Finding
from gpuwise.doctor.recommend import advise, last_release_for
from gpuwise.doctor.verdict import component, consistent
from tests.doctor import build as b

RTX3060 = b.gpu("NVIDIA GeForce RTX 3060", "8.6", memory_total_bytes=12 * 1024**3)
CONTAINER = b.Found(
    {"in_container": True, "runtime": "docker", "docker": {"installed": False}, "toolkit": {}}
)


def commands(findings: list[Finding]) -> list[str]:
    return [c for f in findings for c in f.commands]


@pytest.mark.parametrize(
    ("cc", "last"),
    [
        ("3.5", None),  # sm_35 lost its kernels in PyTorch 1.3: no official wheel at all
        ("3.7", ("2.5", "11.8")),  # Kepler K80: the last cu118 builds with sm_37
        ("5.2", ("2.14", "12.6")),  # Maxwell: cu126 only, never cu128 from 2.8 on or cu13x
        ("6.1", ("2.14", "12.6")),  # Pascal: likewise
        ("7.0", ("2.14", "12.6")),  # Volta: dropped by CUDA 13 wheels
        ("8.6", ("2.14", "13.2")),
    ],
)
def test_last_release_per_architecture(cc: str, last: tuple[str, str] | None) -> None:
    w = last_release_for(b.tables(), cc)
    assert (None if w is None else (w.torch, w.cuda)) == last


@pytest.mark.parametrize(
    ("ccs", "driver", "missing"),
    [([], "550.54.14", ("gpu",)), (["8.6"], None, ("driver",)), ([], None, ("gpu", "driver"))],
)
def test_no_wheel_when_gpu_or_driver_is_unknown(
    ccs: list[str], driver: str | None, missing: tuple[str, ...]
) -> None:
    a = advise(b.tables(), "3.11", ccs, driver)
    assert a.wheel is None and a.missing == missing


@pytest.mark.parametrize(
    ("driver", "cuda"),
    [("470.82.01", "11.8"), ("525.60.13", "12.6"), ("535.183.01", "12.6"), ("580.65.06", "13.2")],
)
def test_wheel_follows_the_driver(driver: str, cuda: str) -> None:
    """cu118 on 470, cu12x on 525+ (minor-version compatibility), cu13x from 580 (2.14 ships
    CUDA 13.2 as a stable build; the CUDA 13 family runs on 580 under minor-version compat)."""
    a = advise(b.tables(), "3.11", ["8.6"], driver)
    assert a.wheel is not None and a.wheel.cuda == cuda


def test_gpu_on_the_bus_but_driver_unknown_names_no_wheel() -> None:
    facts = b.machine(kernel=b.kernel(pci_gpus=b.nvidia_pci()))
    found = b.run(facts)
    cmds = commands(found)
    assert not any("pip install" in c and "torch==" in c for c in cmds), cmds
    assert not any("--upgrade torch" in c for c in cmds)


def test_driver_too_old_for_every_wheel_asks_for_the_driver_not_a_reinstall() -> None:
    facts = b.machine(nvml=b.nvml("450.80", "11.0", [b.gpu()]))
    found = b.run(facts)
    f = b.by_id(found, "torch.not_installed")
    text = " ".join(f.commands)
    assert "580" in text and "pip install" not in text


def test_driver_fix_in_a_container_is_on_the_host() -> None:
    facts = b.machine(
        container=CONTAINER,
        nvml=b.nvml("470.82.01", "11.4", [RTX3060]),
        torch=b.torch(
            version="2.7.1+cu128",
            cuda="12.8",
            is_available=False,
            devices=[],
            init_error="RuntimeError: The NVIDIA driver on your system is too old (found version "
            "11040).",
        ),
    )
    found = b.run(facts)
    f = b.by_id(found, "torch.driver_too_old")
    runnable = [c for c in f.commands if not c.startswith("#")]
    assert not any(
        x in c for c in runnable for x in ("apt-get", "ubuntu-drivers", "modprobe", "reboot")
    )
    assert any("host" in c for c in f.commands)


def test_driver_fix_in_wsl2_is_on_windows() -> None:
    facts = b.machine(
        wsl=b.Found(
            {
                "version": 2,
                "dxg": True,
                "distro": "Ubuntu",
                "kernel": "5.15.153.1-microsoft-standard-WSL2",
            }
        ),
        nvml=b.nvml("470.82.01", "11.4", [RTX3060]),
        torch=b.torch(version="2.7.1+cu128", cuda="12.8", is_available=False, devices=[]),
    )
    f = b.by_id(b.run(facts), "torch.driver_too_old")
    runnable = [c for c in f.commands if not c.startswith("#")]
    assert not any(
        x in c for c in runnable for x in ("apt-get", "ubuntu-drivers", "modprobe", "dkms")
    )
    assert "wsl --update" in runnable or any("Windows" in c for c in f.commands)


def test_gpu_not_passed_into_the_container_is_not_no_driver() -> None:
    facts = b.machine(
        container=CONTAINER,
        kernel=b.kernel(pci_gpus=b.nvidia_pci(), modules=["nvidia"]),
    )
    found = b.run(facts)
    assert "container.gpu_not_passed" in b.ids(found)
    assert not [
        i for i in b.ids(found) if i in ("nvidia.driver_missing", "nvidia.driver_not_loaded")
    ]
    cmds = " ".join(commands(found))
    assert "--gpus all" in cmds


def test_consistent_drops_ok_next_to_a_problem() -> None:
    fs = [
        Finding("nvidia.ok", "ok", {}),
        Finding("torch.driver_too_old", "error", {}),
        Finding("torch.ok", "ok", {}),
        Finding("ollama.ok", "ok", {}),
        Finding("nvidia.pcie_narrow", "warn", {}),
    ]
    kept = [f.id for f in consistent(fs)]
    assert kept == ["torch.driver_too_old", "ollama.ok", "nvidia.pcie_narrow"]
    assert component("ollama.driver_too_old") == "nvidia"
