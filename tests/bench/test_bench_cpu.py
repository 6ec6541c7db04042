"""`gpuwise bench` on the CPU: the same code paths as on a GPU, small sizes, real timings."""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

import pytest

from gpuwise.bench.formulas import layer_weight_count

if importlib.util.find_spec("torch") is None:  # found, not imported: the run imports it, in
    pytest.skip("needs torch (the dev extra)", allow_module_level=True)  # one worker only


@pytest.fixture(scope="module")
def cpu_result() -> dict[str, Any]:
    """One CPU run shared by the shape and range checks (torch's import and the run: ~3 s)."""
    from gpuwise.bench.runner import BenchOptions, run_bench

    ticks: list[str] = []
    steps: list[int] = []
    result = run_bench(BenchOptions(device="cpu"), ticks.append, steps.append)
    result["_ticks"], result["_steps"] = ticks, steps
    return result


def test_progress_counts_every_step(cpu_result: dict[str, Any]) -> None:
    assert cpu_result["_steps"] == [len(cpu_result["_ticks"])]
    assert cpu_result["_ticks"][-1] == "decode"


def test_plausible_cpu_figures(cpu_result: dict[str, Any]) -> None:
    res = cpu_result["results"]
    matmul = {m["dtype"]: m for m in res["matmul"]}
    assert set(matmul) == {"fp32", "bf16"}
    for m in matmul.values():
        assert m["status"] == "ok"
        best = m["best"]
        # a 2-core Xeon does ~0.01–2 TFLOPS FP32; anything outside is a timing bug
        assert 1e9 < best["median_flops"] <= best["max_flops"] < 1e14
        assert best["spread"] >= 0 and best["runs"] == 5
        assert best in m["shapes"] and len(m["shapes"]) == 2
    copy = res["memory_copy"]
    assert 1e8 < copy["median_bps"] < 1e12 and copy["bytes_convention"] == "read+write"
    dec = res["decode_stream"]
    d = dec["dims"]  # the CPU plan caps hidden and intermediate at 1024 and heads at 8
    assert (d["hidden"], d["intermediate"], d["heads"], d["kv_heads"]) == (1024, 1024, 8, 8)
    assert dec["weight_bytes"] == 4 * layer_weight_count(1024, 1024, 8, 8)  # fp32 on the CPU
    assert 1e7 < dec["median_bps"] < 1e12
    assert res["host_device"] == {"status": "not_applicable"}
    ar = res["allreduce"]
    assert (ar["backend"], ar["ranks"]) == ("gloo", 1)
    assert all(r["busbw_bps"] == 0 and r["algbw_bps"] > 0 for r in ar["sizes"])


def test_cpu_run_is_a_smoke_run(cpu_result: dict[str, Any]) -> None:
    assert cpu_result["smoke"] is True and cpu_result["gpu"] is None
    assert cpu_result["plan"] == "cpu-smoke"
    assert {f["verdict"] for f in cpu_result["figures"]} == {"no_reference"}
    assert cpu_result["decode_model"] == "llama-3.1-8b"


def test_cli_json_and_table(cli: Any) -> None:
    res = cli("bench", "--device", "cpu", "--json")
    assert res.code == 0, res.err
    data = res.json()
    assert data["saved"] and data["device"]["kind"] == "cpu"
    for key in ("measured_at", "monitor", "results", "figures", "gpuwise_version"):
        assert key in data
    table = cli("bench", "--device", "cpu", "--no-save")
    assert table.code == 0
    assert "Matmul FP32" in table.out and "CPU smoke run" in table.out
    assert "not applicable on the CPU" in table.out
    zh = cli("--lang", "zh", "bench", "--device", "cpu", "--no-save")
    assert "矩阵乘 FP32" in zh.out and "冒烟测试" in zh.out


def test_smoke_result_never_calibrates(cli: Any) -> None:
    assert cli("bench", "--device", "cpu").code == 0
    res = cli("calibrate")  # only a CPU result is kept
    assert res.code == 2 and "no GPU bench result" in res.err


def test_bad_input(cli: Any) -> None:
    res = cli("bench", "--device", "tpu")
    assert res.code == 2 and "--device tpu" in res.err
    res = cli("bench", "--device", "cuda")  # a CPU build of torch, no GPU here
    assert res.code == 2 and "cannot use a cuda device" in res.err
    assert cli("bench", "--index", "-1").code == 2


def test_without_torch_one_clear_line(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch → ImportError
    res = cli("bench", "--quick")
    assert res.code == 2
    assert "pip install 'gpuwise[bench]'" in res.err
    assert "Traceback" not in res.err and len(res.err.strip().splitlines()) == 1


def test_other_commands_never_import_torch() -> None:
    """Only the measurement imports torch: help, calibrate --show and estimate stay light."""
    import subprocess

    code = (
        "import sys\n"
        "from gpuwise.cli.app import main\n"
        "for args in (['bench', '--help'], ['calibrate', '--show'],\n"
        "             ['estimate', 'llama3.1:8b', '--gpu', 'h200', '--json']):\n"
        "    try:\n"
        "        main(args)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print('TORCH' if 'torch' in sys.modules else 'NO-TORCH')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip().splitlines()[-1] == "NO-TORCH", out.stderr[-500:]


@pytest.mark.parametrize("dtype", ["fp8", "int8", "tf32"])
def test_unsupported_dtype_is_reported_and_ticks(dtype: str) -> None:
    """A dtype this device lacks says so, and the progress bar still reaches its end."""
    from gpuwise.bench.device import import_torch, pick_device
    from gpuwise.bench.measure import matmul

    dev = pick_device(import_torch(), "cpu")
    ticks: list[int] = []
    out = matmul(dev, dtype, ((64, 64, 64), (128, 64, 64)), 1, 2, 0, lambda: ticks.append(1))
    assert out["status"] == "not_supported" and out["detail"]
    assert len(ticks) == 2


@pytest.mark.parametrize(
    ("hip", "arch", "name"),
    [
        ("6.4", "gfx942:sramecc+:xnack-", "float8_e4m3fnuz"),  # MI300X: FNUZ matrix cores
        ("7.0", "gfx950", "float8_e4m3fn"),  # MI350: OCP FP8
        (None, "", "float8_e4m3fn"),  # CUDA builds
    ],
)
def test_fp8_type_follows_the_matrix_cores(hip: str | None, arch: str, name: str) -> None:
    from types import SimpleNamespace

    from gpuwise.bench.device import Device
    from gpuwise.bench.measure import fp8_dtype_name

    props = SimpleNamespace(gcnArchName=arch)
    torch = SimpleNamespace(
        version=SimpleNamespace(hip=hip),
        cuda=SimpleNamespace(get_device_properties=lambda _i: props),
    )
    dev = Device(torch, "cuda", 0, "gpu", "build")
    assert fp8_dtype_name(dev) == name
