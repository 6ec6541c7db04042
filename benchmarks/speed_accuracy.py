"""Speed estimates against published measurements, beside llm-analysis where it can express them.

Rows marked C are the cases the efficiency factors were fitted on (data/speed.toml
`calibrated_on`); the summary gives medians for all cases and for the held-out rest.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path
from typing import Any

import tomllib
from peers import gpu_job, model_job, run_llm_analysis

from gpuwise.catalog import load_catalog
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.speed_cases import run_speed_case
from gpuwise.estimate.speed_constants import SpeedConstants

CASES = Path(__file__).parent.parent / "tests" / "data" / "speed_cases.toml"
DTYPES = {
    "bf16": "w16a16e16",
    "fp16": "w16a16e16",
    "f16": "w16a16e16",
    "int8-gptq": "w8a16e16",
    "int4-gptq": "w4a16e16",
    "int4-awq": "w4a16e16",
    "q4_0": "w4a16e16",
    "q4_k_m": "w4a16e16",
    "q8_0": "w8a16e16",
}


def peer_job(cat: Any, c: dict[str, Any]) -> dict[str, Any] | None:
    """The llm-analysis job for a case, or None when it cannot express it."""
    m = cat.model(c.get("model_id") or c["model"])
    if m.moe or m.mla or c["quant"] not in DTYPES or c["kind"] == "serving":
        return None
    job = {
        "id": c["id"],
        "model": model_job(m),
        "gpu": gpu_job(cat.gpu_by_id(c["gpu_id"])),
        "dtype": DTYPES[c["quant"]],
        "batch": int(c.get("batch") or 1),
    }
    if c["kind"] == "train":
        if c.get("mode", "full") != "full":
            return None
        return {
            **job,
            "kind": "train",
            "seq_len": int(c.get("seq_len") or 2048),
            "gpus": int(c.get("gpus", 1)),
            "zero": 3 if int(c.get("gpus", 1)) > 1 else 0,
            "recompute": bool(c.get("grad_checkpointing", True)),
        }
    return {
        **job,
        "kind": "infer",
        "prompt": int(c.get("prompt_tokens") or 1),
        "gen": int(c.get("gen_tokens") or 1),
        "tp": int(c.get("gpus", 1)),
    }


def peer_value(p: dict[str, Any], c: dict[str, Any]) -> float | None:
    """Tokens/s from the peer's latencies."""
    if c["kind"] == "decode" and p.get("decode_s_per_token"):
        return 1 / float(p["decode_s_per_token"])
    if c["kind"] == "prefill" and p.get("prefill_s"):
        return int(c.get("prompt_tokens") or 1) / float(p["prefill_s"])
    if c["kind"] == "train" and p.get("latency_per_iter"):
        tokens = int(c.get("batch") or 1) * int(c.get("seq_len") or 2048) * int(c.get("gpus", 1))
        return tokens / float(p["latency_per_iter"])
    return None


def main() -> None:
    cat = load_catalog()
    mc, sc = MemoryConstants.from_catalog(cat), SpeedConstants.from_catalog(cat)
    cases = tomllib.loads(CASES.read_text(encoding="utf-8"))["case"]
    active = [c for c in cases if "excluded" not in c]
    peer = (
        {}
        if "--no-peer" in sys.argv
        else run_llm_analysis([j for c in active if (j := peer_job(cat, c))])
    )
    by_kind: dict[str, dict[str, list[float]]] = {}
    print(
        f"{'kind':7} {'case':50} {'measured':>10} {'gpuwise':>10} {'err':>8} "
        f"{'llm-an.':>10} {'err':>8}"
    )
    for c in active:
        r = run_speed_case(cat, mc, sc, c)
        group = by_kind.setdefault(r.kind, {"all": [], "held": [], "peer": [], "ours_on_peer": []})
        group["all"].append(abs(r.error))
        if not r.calibration:
            group["held"].append(abs(r.error))
        pv = peer_value(peer.get(c["id"], {}), c)
        tail = f"{'—':>10} {'':>8}"
        if pv:
            perr = (pv - r.measured) / r.measured
            group["peer"].append(abs(perr))
            group["ours_on_peer"].append(abs(r.error))
            tail = f"{pv:10.1f} {perr:+8.1%}"
        mark = "C" if r.calibration else " "
        print(
            f"{r.kind:7} {mark}{c['id'][:49]:49} {r.measured:10.1f} {r.estimated:10.1f} "
            f"{r.error:+8.1%} {tail}"
        )
    print()
    for kind, g in sorted(by_kind.items()):
        line = (
            f"{kind:8} n={len(g['all']):2}  median |error| all {statistics.median(g['all']):6.1%}"
            f"  held-out {statistics.median(g['held']) if g['held'] else float('nan'):6.1%}"
        )
        if g["peer"]:
            line += (
                f"  | on {len(g['peer'])} peer-expressible: gpuwise "
                f"{statistics.median(g['ours_on_peer']):6.1%}, llm-analysis "
                f"{statistics.median(g['peer']):6.1%}"
            )
        print(line)


if __name__ == "__main__":
    main()
