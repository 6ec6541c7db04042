"""How fast `gpuwise audit` answers (target in benchmarks/README.md: a full audit ≤ 3 s).

1. `gpuwise audit --json` on this machine, fresh processes (what a user waits for).
2. A busy box in-process: 40 HTTP listeners on 127.0.0.2 (standing for a public address) on the
   ports of known services, answering like them, plus 4 listeners that accept and never answer
   (the worst case for the auth checks: each waits out its timeout).

Run from the repository root: `python benchmarks/audit_speed.py [runs]`.
"""

from __future__ import annotations

import http.server
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
BIN = Path(sys.executable).parent / "gpuwise"
HOST = "127.0.0.2"


def fresh(args: list[str], runs: int) -> list[float]:
    """Wall seconds of `gpuwise ARGS` in fresh processes (after one warm-up run)."""
    subprocess.run([str(BIN), *args], capture_output=True, check=False)
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([str(BIN), *args], capture_output=True, check=False)
        out.append(time.perf_counter() - start)
    return out


class _Open(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b'{"models": [], "ApiVersion": "1.45", "system": {}}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


def busy_box(n_http: int, n_hung: int) -> tuple[list[int], list[socket.socket]]:
    """Start the listeners; return their ports and the hung sockets (kept open)."""
    ports = []
    for _ in range(n_http):
        server = http.server.ThreadingHTTPServer((HOST, 0), _Open)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        ports.append(int(server.server_address[1]))
    hung = []
    for _ in range(n_hung):
        sock = socket.socket()
        sock.bind((HOST, 0))
        sock.listen(16)  # accepted by the kernel, never answered
        hung.append(sock)
        ports.append(int(sock.getsockname()[1]))
    return ports, hung


def in_process(ports: list[int], runs: int) -> tuple[list[float], int]:
    from gpuwise.audit.report import make_report
    from gpuwise.audit.tables import tables_from_catalog
    from gpuwise.catalog import load_catalog
    from gpuwise.probe.audit_collect import collect
    from gpuwise.probe.context import ProbeContext

    tables = tables_from_catalog(load_catalog())
    http_services = [s for s in tables.services if s.auth.kind == "http"]
    order = {s.id: i for i, s in enumerate(http_services)}  # each port to exactly one service

    def share(service_id: str) -> list[int]:
        return [p for j, p in enumerate(ports) if j % len(order) == order[service_id]] or [1]

    services = tuple(
        s.model_copy(update={"ports": share(s.id)}) if s.id in order else s for s in tables.services
    )
    tables = replace(tables, services=services)
    loopback = frozenset({"127.0.0.1", "::1"})
    times, found = [], 0
    for _ in range(runs):
        start = time.perf_counter()
        ctx = ProbeContext(deadline=time.monotonic() + tables.settings["deadline_s"])
        results = collect(ctx, tables, ["ports"], False, Path.cwd(), loopback)
        report = make_report(results, tables, time.perf_counter() - start, False, loopback)
        times.append(time.perf_counter() - start)
        found = sum(1 for f in report["findings"] if f["rule"].startswith("GPUW-NET-"))
    return times, found


def _row(label: str, values: list[float]) -> str:
    values = sorted(values)
    p90 = values[min(len(values) - 1, int(0.9 * len(values)))]
    return f"{label:<58} {statistics.median(values):7.3f} {p90:7.3f}"


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    print(f"{'measurement':<58} {'median s':>7} {'p90 s':>7}")
    print(_row("gpuwise --help (fresh process, for comparison)", fresh(["--help"], runs)))
    print(
        _row("gpuwise audit --json (fresh process, this machine)", fresh(["audit", "--json"], runs))
    )
    inner = []
    for _ in range(runs):
        done = subprocess.run([str(BIN), "audit", "--json"], capture_output=True, check=False)
        inner.append(float(json.loads(done.stdout)["elapsed_s"]))
    print(_row("  of which probing + rules (the report's elapsed_s)", inner))
    os.environ.pop("GPUWISE_AUDIT_LOOPBACK", None)
    ports, _hung = busy_box(40, 4)
    times, found = in_process(ports, runs)
    print(_row(f"ports area, 40 answering + 4 hung listeners ({found} findings)", times))


if __name__ == "__main__":
    main()
