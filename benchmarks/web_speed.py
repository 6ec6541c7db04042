"""The web page's two targets (issue 31): a plan answered in under 1 s and a first load of the
plan page under 300 KB.

Runs `gpuwise serve`'s app under uvicorn on a loopback port (a real server and a real HTTP
client, as a browser sees it) and prints, per persona, the median and worst wall time of the
form's POST over several runs after one warm-up, and the bytes of the first load (the HTML of
an answered plan with its chart, plus the one stylesheet).
"""

from __future__ import annotations

import socket
import statistics
import threading
import time
from typing import Any

import httpx
import uvicorn

from gpuwise.service.plan import PERSONAS
from gpuwise.web.app import create_app

RUNS = 7
LATENCY_TARGET_S = 1.0
WEIGHT_TARGET_BYTES = 300_000


def _serve() -> tuple[Any, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    server = uvicorn.Server(
        uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning")
    )
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return server, f"http://127.0.0.1:{port}"


def _timed_post(client: httpx.Client, persona: str) -> tuple[float, int]:
    start = time.perf_counter()
    r = client.post("/plan", data={"persona": persona, "currency": "CNY"})
    elapsed = time.perf_counter() - start
    r.raise_for_status()
    return elapsed, len(r.content)


def main() -> None:
    server, base = _serve()
    with httpx.Client(base_url=base, timeout=30) as client:
        css = len(client.get("/static/style.css").content)
        print(f"{'persona':<22}{'median s':>10}{'worst s':>10}{'page KB':>10}")
        worst_all, heaviest = 0.0, 0
        for persona in ("example", *PERSONAS):
            _timed_post(client, persona)  # warm-up: the first plan loads the catalog
            runs = [_timed_post(client, persona) for _ in range(RUNS)]
            times = [t for t, _ in runs]
            weight = runs[0][1] + css
            worst_all, heaviest = max(worst_all, max(times)), max(heaviest, weight)
            print(
                f"{persona:<22}{statistics.median(times):>10.3f}{max(times):>10.3f}"
                f"{weight / 1000:>10.1f}"
            )
    server.should_exit = True
    print(
        f"worst plan {worst_all:.3f} s (target < {LATENCY_TARGET_S} s); heaviest first load "
        f"{heaviest / 1000:.1f} KB (target < {WEIGHT_TARGET_BYTES / 1000:.0f} KB)"
    )


if __name__ == "__main__":
    main()
