"""Regressions from the newcomer review (shared/research/review3/newcomer.md), one test per case,
named after it: `doctor --from` said OK (exit 0) for pastes that show a broken environment.

The pastes are built here in the formats the tools print (nvidia-smi's table, PyTorch's
collect_env, a Python traceback); the review's own inputs are kept outside the repository.
"""

from __future__ import annotations

from typing import Any

from gpuwise.doctor.paste.model import Text
from gpuwise.doctor.paste.report import make_paste_report
from tests.doctor import build as b

SMI_ROW = (
    "|   0  {name:<28} Off |   00000000:01:00.0 Off |                  N/A |\n"
    "|  0%   35C    P8             20W /  575W |       2MiB /  32607MiB |      0%      Default |\n"
)


def _rule(left: str, mid: str, right: str, fill: str) -> str:
    return f"{left}{fill * 41}{mid}{fill * 24}{mid}{fill * 22}{right}\n"


def smi(driver: str, cuda: str, name: str = "NVIDIA GeForce RTX 5090") -> str:
    """nvidia-smi's default table (the form people paste), one GPU."""
    columns = (
        (
            "GPU  Name                 Persistence-M",
            "Bus-Id          Disp.A",
            "Volatile Uncorr. ECC",
        ),
        (
            "Fan  Temp   Perf          Pwr:Usage/Cap",
            "          Memory-Usage",
            "GPU-Util  Compute M.",
        ),
    )
    header = "".join(f"| {a} | {b} | {c} |\n" for a, b, c in columns)
    return (
        "+" + "-" * 89 + "+\n"
        f"| NVIDIA-SMI {driver:<21} Driver Version: {driver:<14} CUDA Version: {cuda:<8}|\n"
        + _rule("|", "+", "|", "-")
        + header
        + _rule("|", "+", "|", "=")
        + SMI_ROW.format(name=name)
        + _rule("+", "+", "+", "-")
    )


def collect_env(torch: str, cuda: str, gpu: str = "NVIDIA GeForce RTX 5090") -> str:
    """python -m torch.utils.collect_env, the lines the doctor reads."""
    return (
        f"PyTorch version: {torch}\n"
        "Is debug build: False\n"
        f"CUDA used to build PyTorch: {cuda}\n"
        "ROCM used to build PyTorch: N/A\n\n"
        "OS: Ubuntu 22.04.5 LTS (x86_64)\n"
        "Python version: 3.11.9 (main, Apr  6 2024, 17:59:24) [GCC 11.4.0] (64-bit runtime)\n"
        "Is CUDA available: True\n"
        f"CUDA runtime version: {cuda}.131\n"
        f"GPU models and configuration: GPU 0: {gpu}\n"
        "Nvidia driver version: 570.124.06\n"
    )


KERNEL_IMAGE = (
    "Traceback (most recent call last):\n"
    '  File "train.py", line 12, in <module>\n'
    "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
)


def paste(*texts: str) -> dict[str, Any]:
    parts = [Text.of(f"p{i}.txt", text) for i, text in enumerate(texts)]
    return make_paste_report(parts, b.tables(), 0.0).model_dump(mode="json")  # what --json prints


def ids(report: dict[str, Any]) -> dict[str, str]:
    return {f["id"]: f["level"] for f in report["findings"]}


def test_d_from_5090_cu124() -> None:
    """An RTX 5090 with torch 2.6.0+cu124 and 'Is CUDA available: True': cu124 has no sm_120."""
    report = paste(smi("570.124.06", "12.8"), collect_env("2.6.0+cu124", "12.4"))
    assert ids(report).get("torch.gpu_too_new") == "error"
    assert "torch.ok" not in ids(report)
    assert report["exit_code"] == 1
    finding = next(f for f in report["findings"] if f["id"] == "torch.gpu_too_new")
    install = next(c for c in finding["commands"] if "pip install" in c)
    assert "/whl/cu128" in install or "/whl/cu13" in install  # a build that has sm_120


def test_d_from_5090_cu118_without_a_table_row() -> None:
    """No arch row for 2.7.0+cu118 in the tables: CUDA 11.8 predates Blackwell's first toolkit
    (12.8), so the wheel cannot carry its code."""
    report = paste(smi("570.124.06", "12.8"), collect_env("2.7.0+cu118", "11.8"))
    assert ids(report).get("torch.gpu_too_new") == "error" and report["exit_code"] == 1


def test_d_from_5090_drv535() -> None:
    """An RTX 5090 listed under driver 535: Blackwell's first driver is 570 (CUDA 12.8)."""
    report = paste(smi("535.183.01", "12.2"))
    found = ids(report)
    assert found.get("nvidia.driver_predates_gpu") == "error" and "nvidia.ok" not in found
    assert report["exit_code"] == 1
    finding = next(f for f in report["findings"] if f["id"] == "nvidia.driver_predates_gpu")
    assert "570.26" in finding["detail"] and "open" in finding["why"]


def test_d_from_b200_drv535_from_the_name() -> None:
    report = paste(smi("535.183.01", "12.2", name="NVIDIA B200"))
    assert ids(report).get("nvidia.driver_predates_gpu") == "error"


def test_d_from_4090_drv470() -> None:
    """Ada needs the driver of CUDA 11.8 (520.61.05); 470 predates it."""
    report = paste(smi("470.82.01", "11.4", name="NVIDIA GeForce RTX 4090"))
    finding = next(f for f in report["findings"] if f["id"] == "nvidia.driver_predates_gpu")
    assert "520.61.05" in finding["detail"] and report["exit_code"] == 1


def test_d_from_kernel_image() -> None:
    """The error line with nvidia-smi: the GPU is known, the build is not: an error about this
    GPU, and with the Python known too, the wheel that has its code."""
    report = paste(KERNEL_IMAGE, smi("570.124.06", "12.8"))
    finding = next(f for f in report["findings"] if f["id"] == "torch.no_kernel_image")
    assert finding["level"] == "error" and report["exit_code"] == 1
    assert "RTX 5090" in finding["detail"] and "12.0" in finding["detail"]
    assert any("get_arch_list" in c for c in finding["commands"])
    with_python = paste(KERNEL_IMAGE, smi("570.124.06", "12.8"), "Python version: 3.12\n")
    named = next(f for f in with_python["findings"] if f["id"] == "torch.no_kernel_image")
    install = next(c for c in named["commands"] if "pip install" in c)
    assert "/whl/cu128" in install or "/whl/cu13" in install


def test_d_from_kernel_image_alone() -> None:
    report = paste(KERNEL_IMAGE)
    assert ids(report).get("torch.no_kernel_image") == "error" and report["exit_code"] == 1
    pytorch_row = next(r for r in report["summary"] if r["probe"] == "torch")
    assert "CPU" not in pytorch_row["value"]  # the build is unknown, not a CPU build


def test_d_from_driver_insufficient() -> None:
    report = paste(
        "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version\n"
    )
    assert ids(report).get("torch.driver_too_old") == "error" and report["exit_code"] == 1


def test_d_from_nccl_error() -> None:
    report = paste(
        "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, "
        "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5\n"
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed\n"
    )
    assert any(fid.startswith("nccl.") and lv == "error" for fid, lv in ids(report).items())
    assert report["exit_code"] == 1


def test_d_from_oom() -> None:
    report = paste(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
        "total capacity of 23.55 GiB of which 1.06 GiB is free. Of the allocated memory 21.80 "
        "GiB is allocated by PyTorch, and 1.50 GiB is reserved by PyTorch but unallocated.\n"
    )
    finding = next(f for f in report["findings"] if f["id"] == "torch.out_of_memory")
    assert finding["level"] == "error" and report["exit_code"] == 1
    assert "2.00 GiB" in finding["detail"] and "1.06 GiB" in finding["detail"]
    assert any("expandable_segments" in c for c in finding["commands"])


def test_d_from_oom_old_format() -> None:
    report = paste(
        "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total "
        "capacity; 6.67 GiB already allocated; 17.56 MiB free; 6.90 GiB reserved in total)\n"
    )
    finding = next(f for f in report["findings"] if f["id"] == "torch.out_of_memory")
    assert "7.79 GiB" in finding["detail"] and "17.56 MiB" in finding["detail"]


def test_collect_env_alone_names_the_gpu() -> None:
    """collect_env without nvidia-smi: the GPU's capability comes from its name."""
    report = paste(collect_env("2.6.0+cu124", "12.4"))
    assert ids(report).get("torch.gpu_too_new") == "error"


def test_healthy_4090_paste_stays_ok() -> None:
    report = paste(
        smi("570.124.06", "12.8", name="NVIDIA GeForce RTX 4090"),
        collect_env("2.7.1+cu126", "12.6", gpu="NVIDIA GeForce RTX 4090"),
    )
    assert report["exit_code"] == 0, report["findings"]
    assert {"nvidia.ok", "torch.ok"} <= set(ids(report))


def test_live_nvidia_smi_without_nvml_gets_the_capability_from_the_name() -> None:
    """This machine, NVML unreadable, nvidia-smi listing an RTX 5090 without its capability and
    PyTorch unable to report devices: the architecture rules still know it is sm_120."""
    from gpuwise.doctor.report import make_report

    smi_gpu = {"index": 0, "name": "NVIDIA GeForce RTX 5090"}
    facts = b.machine(
        nvidia_smi=b.Found(
            {"driver_version": "570.124.06", "cuda_version": "12.8", "gpus": [smi_gpu]}
        ),
        torch=b.torch(version="2.6.0+cu124", cuda="12.4", devices=[], arch_list=[]),
    )
    report = make_report(facts, b.tables(), 0.0).model_dump(mode="json")
    assert ids(report).get("torch.gpu_too_new") == "error" and report["exit_code"] == 1
