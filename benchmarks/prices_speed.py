"""Command speed with a refreshed price cache of 10,000 offers (issue 14 targets: `offers`
≤ 0.3 s, `plan` ≤ 0.5 s).

Builds the cache the way `gpuwise prices refresh` does (feed rows → normalize → catalog files,
validated with the whole catalog) from the built-in global offers repeated over synthetic
regions, then times fresh `gpuwise` processes: median and p90 of 7 runs after one warm-up
(the warm-up builds the catalog pickle, as a user's first command after a refresh does), first on
the built-in catalog alone, then with the feed cache.
"""

from __future__ import annotations

import datetime as dt
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_OFFERS = 10_000
COMMANDS = (
    ("offers", ["offers"]),
    ("offers --gpu a100-80gb", ["offers", "--gpu", "a100-80gb"]),
    ("offers --json", ["offers", "--json"]),
    ("plan --example (cn)", ["plan", "--example"]),
    ("plan --example --region any", ["plan", "--example", "--region", "any"]),
)


def build_cache() -> int:
    """Write feed files holding about TARGET_OFFERS offers; returns how many were written."""
    from gpuwise.catalog import load_catalog
    from gpuwise.prices import store
    from gpuwise.prices.normalize import FeedRow, Findings, offers_from_rows, source_id
    from gpuwise.prices.tomlw import documents

    cat = load_catalog()
    base = [o for o in cat.offers if cat.providers[o.provider].region_kind == "global"]
    base = [o for o in base if o.provider in ("aws", "azure", "gcp", "lambda", "runpod")]
    regions = max(1, TARGET_OFFERS // len(base) + 1)
    rows: dict[str, list[FeedRow]] = {}
    for k in range(regions):
        for o in base:
            for p in o.prices:
                if p.per != "hour" or p.billing not in ("on-demand", "spot"):
                    continue
                rows.setdefault(o.provider, []).append(
                    FeedRow(o.provider, o.instance, o.gpu, o.gpu_count, f"bench-{k:03d}",
                            p.billing, p.amount * (1 + k / 1000), o.vcpu, o.ram_gb)
                )  # fmt: skip
    docs, written, findings = {}, 0, Findings()
    for pid, prow in rows.items():
        sid = source_id("bench", pid)
        offers = offers_from_rows(cat, pid, prow, sid, findings)
        written += len(offers)
        src = {"url": "https://example.org/bench", "retrieved": dt.date.today(),
               "published": dt.date.today(), "dated_by": "feed"}  # fmt: skip
        provider = {"id": pid, "source": cat.providers[pid].source}
        docs.update(documents(f"bench-{pid}", "benchmark", {sid: src}, provider, offers))
    store.commit("bench", docs)
    return written


def timed(args: list[str], runs: int = 7) -> tuple[float, float]:
    """(median, p90) wall seconds of `gpuwise ARGS` in fresh processes, after one warm-up."""
    cmd = [sys.executable, "-m", "gpuwise", *args]
    subprocess.run(cmd, capture_output=True, check=True)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    times.sort()
    return statistics.median(times), times[int(0.9 * (len(times) - 1))]


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="gpuwise-bench-") as tmp:
        os.environ["GPUWISE_CACHE_DIR"] = str(Path(tmp) / "cache")
        os.environ["GPUWISE_CONFIG_DIR"] = str(Path(tmp) / "config")
        before = {name: timed(args) for name, args in COMMANDS}
        start = time.perf_counter()
        n = build_cache()
        built = time.perf_counter() - start
        print(f"feed cache: {n} offers written and validated in {built:.1f} s")
        print(f"{'command':34} {'built-in median/p90 s':>22} {'+ feed median/p90 s':>20}")
        for name, args in COMMANDS:
            med, p90 = timed(args)
            b_med, b_p90 = before[name]
            print(f"gpuwise {name:26} {b_med:11.3f} {b_p90:9.3f}  {med:10.3f} {p90:8.3f}")


if __name__ == "__main__":
    main()
