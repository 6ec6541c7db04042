"""Fault matrix: every probe failing every way (missing, error exit, hang, garbage, crash, a bug
that raises, a stall) yields findings — never a traceback — and the run ends within its time."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gpuwise.doctor.model import Finding
from gpuwise.doctor.report import make_report
from gpuwise.doctor.rules_general import tool_name
from gpuwise.parse.result import ProbeResult
from gpuwise.probe.collect import collect, default_probes
from gpuwise.probe.context import ProbeContext
from tests.doctor.build import tables
from tests.doctor.verdicts import check_consistent
from tests.probe.ollama_server import serve
from tests.probe.support import make_ctx, write_tree

TOOLS = (
    "nvidia-smi",
    "nvcc",
    "rocm-smi",
    "amd-smi",
    "npu-smi",
    "docker",
    "nvidia-ctk",
    "sycl-ls",
    "xpu-smi",
)
TIMEOUT_S = 2.0
# Which findings speak for a failing probe (besides probe.timeout/.crashed/.tool_failed).
SPEAKS_FOR = {
    "nvidia_smi": "nvidia.",
    "nvml": "nvidia.",
    "torch": "torch.",
    "nccl_smoke": "nccl.",
    "ollama": "ollama.",
    "toolkit": "cuda.",
    "container": "docker.",
    "amd": "amd.",
    "ascend": "ascend.",
    "intel": "intel.",
}
GARBAGE = "\x00\x01\xff garbage \u2603 {[<"


def visible(findings: list[dict], probe: str) -> bool:  # type: ignore[type-arg]
    """A non-OK finding names the probe or belongs to its area."""
    area = SPEAKS_FOR.get(probe, "\0")
    return any(
        f["level"] != "ok" and (f["id"].startswith(area) or _names(f, probe)) for f in findings
    )


def _names(f: dict, probe: str) -> bool:  # type: ignore[type-arg]
    """A probe.* finding that names the probe by the tool users know (npu-smi, not ascend)."""
    return f["id"].startswith("probe.") and tool_name(probe) in (f["detail"] + f["title"])


@contextmanager
def ollama_like(mode: str) -> Iterator[str]:
    if mode == "hang":
        with serve({"/api/version": (200, b'{"version":"0.5.1"}', 10.0)}) as url:
            yield url
    elif mode == "garbage":
        with serve({"/api/version": (200, GARBAGE.encode(), 0.0)}) as url:
            yield url
    elif mode == "fail":
        with serve({"/api/version": (500, b"internal error", 0.0)}) as url:
            yield url
    else:
        yield "http://127.0.0.1:9"


def run_all(ctx: ProbeContext, probes: dict | None = None) -> tuple[dict, float]:  # type: ignore[type-arg]
    start = time.monotonic()
    facts = collect(ctx, probes or default_probes(nccl=True))
    typed = make_report(facts, tables(), time.monotonic() - start, nccl=True)
    report = typed.model_dump(mode="json")  # what --json prints
    json.dumps(report)  # the --json output must serialise
    check_consistent(report)  # never "OK" next to a problem of the same component
    return report, time.monotonic() - start


@pytest.mark.parametrize("mode", ["fail", "hang", "garbage", "crash", "empty"])
def test_every_tool_failing_the_same_way(tmp_path: Path, mode: str) -> None:
    env = {f"FAKE_{t.upper().replace('-', '_')}_MODE": mode for t in TOOLS}
    env["FAKE_NVIDIA_SMI_MSG"] = "Failed to initialize NVML: Unknown Error"
    env["FAKE_PYTHON_MODE"] = mode if mode in ("fail", "hang", "garbage") else "fail"
    root = write_tree(
        tmp_path / "root",
        {
            "/proc/modules": GARBAGE if mode == "garbage" else "",
            "/etc/os-release": GARBAGE if mode == "garbage" else "ID=ubuntu\n",
            "/proc/sys/kernel/osrelease": GARBAGE if mode == "garbage" else "6.8.0\n",
            "/dev/kfd": "",
        },
    )
    with ollama_like(mode) as url:
        ctx = make_ctx(tmp_path, TOOLS, env, seconds=TIMEOUT_S, root=root, ollama_url=url)
        report, elapsed = run_all(ctx)
    assert elapsed < TIMEOUT_S + 1.0
    findings = report["findings"]
    for probe in (
        "nvidia_smi",
        "torch",
        "nccl_smoke",
        "toolkit",
        "amd",
        "ascend",
        "intel",
        "container",
    ):
        assert visible(findings, probe), (mode, probe, [f["id"] for f in findings])
    if mode in ("fail", "hang", "garbage"):
        assert visible(findings, "ollama"), (mode, [f["id"] for f in findings])
    assert {row["probe"] for row in report["summary"]} >= {
        "system",
        "nvidia_smi",
        "torch",
        "ollama",
    }


def _raiser(ctx: ProbeContext) -> ProbeResult:
    raise RuntimeError("probe bug")


def _staller(ctx: ProbeContext) -> ProbeResult:
    time.sleep(5)
    raise AssertionError("never reached in time")


@pytest.mark.parametrize(("kind", "fn"), [("raise", _raiser), ("stall", _staller)])
def test_every_probe_breaking(tmp_path: Path, kind: str, fn: object) -> None:
    names = list(default_probes(nccl=True))
    ctx = make_ctx(tmp_path, seconds=1.0)
    report, elapsed = run_all(ctx, dict.fromkeys(names, fn))
    assert elapsed < 2.0
    for name in names:
        assert visible(report["findings"], name), (
            kind,
            name,
            [f["id"] for f in report["findings"]],
        )
        assert report["facts"][name]["status"] in ("failed", "timeout")


def test_rule_bug_is_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpuwise.doctor import engine
    from tests.doctor import build as b

    def broken(_inp: object) -> list[Finding]:
        raise KeyError("oops")

    monkeypatch.setattr(engine, "RULES", (broken, *engine.RULES))
    found = b.run(b.machine())
    assert "rule.crashed" in b.ids(found) and "gpu.none" in b.ids(found)
