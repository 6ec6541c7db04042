"""The Prometheus exporter scraped over loopback and parsed with prometheus_client's parser."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from gpuwise.monitor.exporter import (
    LiveSampler,
    dashboard_json,
    gpuwise_families,
    is_loopback,
    make_registry,
    parse_listen,
    serve,
)
from gpuwise.monitor.sample_nvidia import NvidiaSource
from gpuwise.monitor.sampler import Sampler
from tests.monitor.fake_nvml import FIXTURES, FakeNvml, gpu_from_xml

MIB = 1024 * 1024
SRC = str(Path(__file__).resolve().parents[2] / "src")


def scrape(port: int) -> dict[str, list[tuple[str, dict[str, str], float]]]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
        text = resp.read().decode()
    out: dict[str, list[tuple[str, dict[str, str], float]]] = {}
    for fam in text_string_to_metric_families(text):
        out[fam.name] = [(s.name, s.labels, s.value) for s in fam.samples]
    return out


@pytest.fixture
def live(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    a = gpu_from_xml(FIXTURES / "dual-rtx-a5000-590.44.01.xml", 0)
    b = gpu_from_xml(FIXTURES / "a100-sxm4-80gb-mig-535.54.03.xml", 0)  # utilisation N/A
    b.xids = [79]
    FakeNvml([a, b]).install(monkeypatch)
    sampler = Sampler([NvidiaSource()])
    sampler.open()
    live = LiveSampler(sampler, interval_s=60)
    live.start()
    yield live
    live.stop()
    sampler.close()


def serve_on_free_port(live: LiveSampler, dcgm: bool) -> tuple[object, int]:
    server = serve(make_registry(live, dcgm, hostname="node-1"), "127.0.0.1", 0)
    return server, server.server_address[1]  # type: ignore[attr-defined]


def test_gpuwise_names_over_loopback(live: LiveSampler) -> None:
    server, port = serve_on_free_port(live, dcgm=False)
    try:
        fams = scrape(port)
    finally:
        server.shutdown()  # type: ignore[attr-defined]
    used = {s[1]["gpu"]: s[2] for s in fams["gpuwise_gpu_memory_used_bytes"]}
    assert used == {"0": 22437 * MIB, "1": 50 * MIB}
    util = fams["gpuwise_gpu_utilization_ratio"]
    assert [s[1]["gpu"] for s in util] == ["0"]  # the A100's N/A is left out, not 0
    assert fams["gpuwise_gpu_energy_joules"][0][0] == "gpuwise_gpu_energy_joules_total"
    assert fams["gpuwise_gpu_sm_clock_hertz"][0][2] == 210e6
    xid = fams["gpuwise_gpu_xid_errors"]
    assert [(s[1]["gpu"], s[1]["xid"], s[2]) for s in xid] == [("1", "79", 1.0)]
    assert {s[1]["vendor"]: s[2] for s in fams["gpuwise_source_up"]} == {"nvidia": 1.0}
    assert fams["gpuwise_host_memory_total_bytes"][0][2] > 0
    procs = {s[1]["pid"] for s in fams["gpuwise_process_gpu_memory_bytes"]}
    assert "100477" in procs


def test_dcgm_names_and_labels(live: LiveSampler) -> None:
    server, port = serve_on_free_port(live, dcgm=True)
    try:
        fams = scrape(port)
    finally:
        server.shutdown()  # type: ignore[attr-defined]
    fb = {s[1]["gpu"]: s for s in fams["DCGM_FI_DEV_FB_USED"]}
    _name, labels, value = fb["0"]
    assert value == 22437 and labels["modelName"] == "NVIDIA RTX A5000"
    assert set(labels) == {"gpu", "UUID", "pci_bus_id", "device", "modelName", "Hostname"}
    assert labels["device"] == "nvidia0" and labels["Hostname"] == "node-1"
    energy = fams["DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"]
    assert energy[0][0] == "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"  # no _total suffix
    assert fams["DCGM_FI_DEV_XID_ERRORS"][0][2] == 79.0
    assert not any(n.startswith("gpuwise_") for n in fams)


def test_dashboard_queries_metrics_the_exporter_emits(live: LiveSampler) -> None:
    dash = json.loads(dashboard_json())
    sample, xids = live.latest()
    assert sample is not None
    emitted = set()
    for fam in gpuwise_families(sample, xids):
        emitted |= {fam.name, fam.name + "_total"}
    exprs = [t["expr"] for p in dash["panels"] for t in p["targets"]]
    used = {m for e in exprs for m in re.findall(r"gpuwise_[a-z_]+", e)}
    assert used and used <= emitted, used - emitted
    assert dash["__inputs"][0]["name"] == "DS_PROMETHEUS"


def test_listen_parsing_and_loopback() -> None:
    assert parse_listen("127.0.0.1:9100", 1) == ("127.0.0.1", 9100)
    assert parse_listen("0.0.0.0", 9835) == ("0.0.0.0", 9835)
    assert parse_listen("[::1]:80", 1) == ("::1", 80)
    assert parse_listen(":8000", 1) == ("127.0.0.1", 8000)
    with pytest.raises(ValueError):
        parse_listen("host:notaport", 1)
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("10.0.0.5")


def test_port_in_use_is_one_line_exit_2(cli: Any) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = cli("exporter", "--listen", f"127.0.0.1:{port}")
    assert r.code == 2 and r.err.count("\n") == 1 and str(port) in r.err


def test_bad_listen_and_interval(cli: Any) -> None:
    assert cli("exporter", "--listen", "x:y").code == 2
    r = cli("exporter", "--interval", "0")
    assert r.code == 2 and "--interval" in r.err


def test_dashboard_and_once(cli: Any) -> None:
    r = cli("exporter", "--dashboard")
    assert r.code == 0 and json.loads(r.out)["uid"] == "gpuwise-gpus"
    once = cli("exporter", "--once")
    names = {f.name for f in text_string_to_metric_families(once.out)}
    assert "gpuwise_host_memory_used_bytes" in names


def test_non_loopback_listen_warns_and_serves(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": SRC, "GPUWISE_LANG": "en"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "gpuwise", "exporter", "--listen", "0.0.0.0:0", "--interval", "0.2"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
        warning = proc.stderr.readline()
        port = int(re.search(r":(\d+)/metrics", first).group(1))  # type: ignore[union-attr]
        assert "0.0.0.0" in warning and "authentication" in warning
        fams = scrape(port)
        assert "gpuwise_host_cpu_utilization_ratio" in fams
    finally:
        proc.terminate()
        proc.wait(timeout=10)
