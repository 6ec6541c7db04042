"""gpuwise's KV-cache pool against the pools serving engines printed at start-up.

One row per case of tests/data/kv_pool_cases.toml: gpuwise's pool on one GPU (tokens and GiB:
the engine's share of the card minus every other part the memory model counts for one sequence
of max-model-len tokens, divided by the KV bytes of a token; estimate/kv_pool.py) next to the
engine's figure, then the median |error| and the worst cases. The right-hand columns split the
gap: gpuwise's weights against the log's "Model loading took", and gpuwise's other non-KV parts
(activations, logits, workspace, CUDA context) against what the log implies for them (the share
of the catalog card minus the logged weights and pool), so a systematic gap shows which part
carries it. The error compares tokens where the engine printed them (they set concurrency),
else GiB.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import tomllib

from gpuwise.catalog import load_catalog
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.kv_pool_cases import GIB, KvPoolResult, run_kv_case

CASES = Path(__file__).parent.parent / "tests" / "data" / "kv_pool_cases.toml"
WORST = 5


def _split(r: KvPoolResult, case: dict[str, Any]) -> str:
    """gpuwise's weights and other parts beside the log's (— where the log lacks weights)."""
    parts = r.pool.other_parts
    weights = (parts.get("weights", 0) + parts.get("quant_constants", 0)) / GIB
    other = sum(parts.values()) / GIB - weights
    logged = case.get("reported_weights_gib")
    if logged is None or case.get("reported_kv_gib") is None:
        return f"{weights:7.2f} {'—':>7} {other:6.2f} {'—':>7}"
    implied = r.pool.share_bytes / GIB - float(logged) - float(case["reported_kv_gib"])
    return f"{weights:7.2f} {float(logged):7.2f} {other:6.2f} {implied:7.2f}"


def main() -> None:
    cat = load_catalog()
    consts = MemoryConstants.from_catalog(cat)
    cases = tomllib.loads(CASES.read_text(encoding="utf-8"))["case"]
    print(
        f"{'case':36} {'tokens':>9} {'reported':>9} {'GiB':>6} {'rep.':>6} {'err':>7}"
        f"  {'w':>7} {'w log':>7} {'other':>6} {'implied':>7}"
    )
    results: list[tuple[KvPoolResult, dict[str, Any]]] = []
    for case in cases:
        r = run_kv_case(cat, consts, case)
        results.append((r, case))
        rep_tokens = f"{r.reported_tokens:9d}" if r.reported_tokens else f"{'—':>9}"
        rep_gib = f"{r.reported_gib:6.2f}" if r.reported_gib else f"{'—':>6}"
        print(
            f"{case['id'][:36]:36} {r.pool.tokens:9d} {rep_tokens} {r.predicted_gib:6.2f} "
            f"{rep_gib} {r.error:+7.1%}  {_split(r, case)}"
        )
    errors = [abs(r.error) for r, _ in results]
    signed = [r.error for r, _ in results]
    print(
        f"\n{len(errors)} cases: median |error| {statistics.median(errors):.1%}, "
        f"median signed {statistics.median(signed):+.1%}, "
        f"within 10%: {sum(e <= 0.10 for e in errors)}/{len(errors)}, "
        f"within 25%: {sum(e <= 0.25 for e in errors)}/{len(errors)}"
    )
    for engine in sorted({c["engine"] for c in cases}):
        errs = [abs(r.error) for r, c in results if c["engine"] == engine]
        print(f"  {engine}: {len(errs)} cases, median |error| {statistics.median(errs):.1%}")
    for gpu in sorted({c["gpu"] for c in cases}):
        errs = [r.error for r, c in results if c["gpu"] == gpu]
        print(f"  {gpu}: {len(errs)} cases, median signed error {statistics.median(errs):+.1%}")
    print("\nworst:")
    for r, case in sorted(results, key=lambda rc: -abs(rc[0].error))[:WORST]:
        print(f"  {r.error:+7.1%} ({r.measure})  {case['id']}  {case['url']}")


if __name__ == "__main__":
    main()
