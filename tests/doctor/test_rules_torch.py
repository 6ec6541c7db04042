"""PyTorch rules: CPU-only build on a GPU machine, driver too old for the build's CUDA, GPU too
new or too old for the wheel (RTX 50 needs cu128+, cu130 drops Volta), the guide's §7 row
"torch.cuda.is_available() returns False"."""

from __future__ import annotations

import re

from gpuwise.probe.result import Failed, TimedOut
from tests.doctor import build as b

RTX5090 = b.gpu("NVIDIA GeForce RTX 5090", "12.0", memory_total_bytes=32 * 1024**3)
V100 = b.gpu("Tesla V100-SXM2-32GB", "7.0", memory_total_bytes=32 * 1024**3)
CU124_ARCHS = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]
CU130_ARCHS = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120", "compute_120"]


def test_not_installed_on_gpu_machine_recommends_a_fitting_wheel() -> None:
    facts = b.machine(nvml=b.nvml("570.124.06", "12.8", [RTX5090]))
    f = b.by_id(b.run(facts), "torch.not_installed")
    # 2.12's stable CUDA 13.0 needs driver 580+, its CUDA 12.6 has no sm_120 → 2.11 + cu128.
    assert "/whl/cu128" in f.commands[0] and "torch==2.11.*" in f.commands[0]
    assert f.commands[0].startswith(b.PY["executable"])


def test_not_installed_without_gpu_suggests_cpu_build() -> None:
    f = b.by_id(b.run(b.machine()), "torch.not_installed_cpu")
    assert "/whl/cpu" in f.commands[0]


def test_cpu_only_build_on_gpu_machine() -> None:
    facts = b.machine(
        nvml=b.nvml("590.44.01", "13.1", [V100]),
        torch=b.torch(version="2.9.0+cpu", cuda=None, is_available=False, arch_list=[], devices=[]),
    )
    f = b.by_id(b.run(facts), "torch.cpu_only")
    assert f.level == "error"
    assert "/whl/cu126" in f.commands[0]  # V100: cu130 dropped Volta


def test_driver_too_old_for_the_build() -> None:
    facts = b.machine(
        nvml=b.nvml("470.82.01", "11.4", [b.gpu()]),
        torch=b.torch(
            is_available=False,
            devices=[],
            init_error="RuntimeError: The NVIDIA driver on your system is too old "
            "(found version 11040).",
        ),
    )
    findings = b.run(facts)
    f = b.by_id(findings, "torch.driver_too_old")
    assert f.params["need"] == "525" and f.level == "error"
    assert "torch.cuda_unavailable" not in b.ids(findings)  # already explained


def test_driver_below_toolkit_but_inside_minor_compat() -> None:
    facts = b.machine(nvml=b.nvml("550.54.14", "12.4", [b.gpu()]), torch=b.torch())
    f = b.by_id(b.run(facts), "torch.driver_minor_compat")
    assert f.level == "info" and f.params["need"] == "570.26"


def test_rtx_50_on_a_cu124_wheel_is_too_new() -> None:
    facts = b.machine(
        nvml=b.nvml("590.44.01", "13.1", [RTX5090]),
        torch=b.torch(version="2.5.1+cu124", cuda="12.4", arch_list=CU124_ARCHS),
    )
    f = b.by_id(b.run(facts), "torch.gpu_too_new")
    assert f.params["cc"] == "12.0" and f.level == "error"
    assert re.search(r"/whl/cu1(28|3\d)\b", f.commands[0])  # a wheel with sm_120 code
    assert "RTX 50" in f.text("why")


def test_volta_on_a_cu130_wheel_is_too_old() -> None:
    facts = b.machine(
        nvml=b.nvml("590.44.01", "13.1", [V100]),
        torch=b.torch(version="2.9.1+cu130", cuda="13.0", arch_list=CU130_ARCHS),
    )
    f = b.by_id(b.run(facts), "torch.gpu_too_old")
    assert f.params["cc"] == "7.0"
    assert "/whl/cu126" in f.commands[0]


def test_ada_runs_on_sm86_code() -> None:
    facts = b.machine(
        nvml=b.nvml("590.44.01", "13.1", [b.gpu()]),
        torch=b.torch(arch_list=CU124_ARCHS, cuda="12.4"),
    )
    ids = b.ids(b.run(facts))
    assert "torch.gpu_too_new" not in ids and "torch.ok" in ids


def test_cuda_unavailable_with_pytorchs_reason() -> None:
    facts = b.machine(
        nvml=b.nvml("590.44.01", "13.1", [b.gpu()]),
        torch=b.torch(
            is_available=False, devices=[], init_error="RuntimeError: No CUDA GPUs are available"
        ),
    )
    f = b.by_id(b.run(facts), "torch.cuda_unavailable")
    assert "No CUDA GPUs" in f.text("seen")
    assert any("nvcc" in c for c in f.commands)  # the guide's nvcc advice, corrected


def test_ok_reports_loaded_libraries() -> None:
    f = b.by_id(
        b.run(b.machine(nvml=b.nvml("590.44.01", "13.1", [b.gpu()]), torch=b.torch())), "torch.ok"
    )
    assert f.params["cudnn"] == 90701 and f.params["nccl"] == "2.26.2"


def test_mixed_cuda_wheels_and_nvcc_mismatch() -> None:
    t = b.torch()
    t.facts["packages"] = {
        "nvidia-cublas-cu11": "11.11.3.6",
        "nvidia-cublas-cu12": "12.8.3.14",
        "torch": "2.7.1",
    }
    toolkit = b.Found(
        {"nvcc": [{"path": "/usr/local/cuda-11.8/bin/nvcc", "version": "11.8", "error": ""}]}
    )
    findings = b.run(
        b.machine(nvml=b.nvml("590.44.01", "13.1", [b.gpu()]), torch=t, toolkit=toolkit)
    )
    assert "cu11" in b.by_id(findings, "torch.mixed_cuda_wheels").params["listing"]
    assert b.by_id(findings, "torch.nvcc_major_mismatch").params["nvcc"] == "11.8"


def test_probe_failures_become_findings() -> None:
    assert "torch.probe_timeout" in b.ids(b.run(b.machine(torch=TimedOut(8.0))))
    broken = b.run(
        b.machine(
            torch=Failed("import_failed", "OSError: libcudnn.so.9: cannot open shared object file")
        )
    )
    assert b.by_id(broken, "torch.import_failed").level == "error"
    assert "torch.probe_failed" in b.ids(b.run(b.machine(torch=Failed("garbage", "?"))))
    assert "torch.python_missing" in b.ids(b.run(b.machine(torch=b.Missing("python_not_found"))))
