"""NCCL rules: workaround variables left set, and the smoke test's verdicts (the guide's §7 row
"NCCL error: unhandled system error")."""

from __future__ import annotations

from gpuwise.doctor.rules_nccl import classify
from gpuwise.parse.result import Failed, Found, Missing, TimedOut
from tests.doctor import build as b

TWO = b.nvml("590.44.01", "13.1", [b.gpu(), b.gpu(index=1)])


def test_workaround_variables_in_env_and_conf() -> None:
    env = Found(
        {
            "env": {
                "NCCL_P2P_DISABLE": "1",
                "NCCL_DEBUG": "INFO",
                "NCCL_ASYNC_ERROR_HANDLING": "1",
            },
            "files": {"/etc/nccl.conf": {"NCCL_IB_DISABLE": "1"}},
        }
    )
    findings = b.run(b.machine(nccl_env=env))
    vars_ = {f.params["var"] for f in findings if f.id == "nccl.workaround_set"}
    assert vars_ == {"NCCL_P2P_DISABLE", "NCCL_IB_DISABLE"}
    assert "nccl.debug_verbose" in b.ids(findings) and "nccl.deprecated_async" in b.ids(findings)


def test_smoke_ok_reports_bus_bandwidth() -> None:
    smoke = Found(
        {
            "backend": "nccl",
            "world_size": 2,
            "ok": True,
            "busbw_gbps": 181.25,
            "algbw_gbps": 181.25,
            "size_bytes": 64 << 20,
            "nccl_version": "2.26.2",
        }
    )
    f = b.by_id(b.run(b.machine(nvml=TWO, nccl_smoke=smoke), nccl=True), "nccl.ok")
    assert f.params["busbw"] == "181.2" and f.params["mib"] == 64


def test_smoke_failure_causes() -> None:
    err = Failed(
        "collective_failed",
        "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, "
        "unhandled system error",
        {"backend": "nccl", "world_size": 2},
    )
    f = b.by_id(b.run(b.machine(nvml=TWO, nccl_smoke=err), nccl=True), "nccl.failed_system")
    assert "df -h /dev/shm" in f.commands
    assert "gloo" in f.text("why")  # the guide's "switch to gloo" advice, corrected
    assert classify("ncclUnhandledCudaError: Call to CUDA function failed.") == "cuda"
    assert classify("connect() failed: Connection refused") == "network"
    assert (
        classify("Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000") == "usage"
    )
    assert classify("something else") == "unknown"


def test_smoke_hang_no_torch_and_hint() -> None:
    assert (
        b.by_id(b.run(b.machine(nccl_smoke=TimedOut(90.0)), nccl=True), "nccl.hang").level
        == "error"
    )
    assert "nccl.no_torch" in b.ids(
        b.run(b.machine(nccl_smoke=Missing("torch_missing")), nccl=True)
    )
    hint = b.run(b.machine(nvml=TWO, torch=b.torch()))
    assert "gpuwise doctor --nccl" in b.by_id(hint, "nccl.not_tested").commands
