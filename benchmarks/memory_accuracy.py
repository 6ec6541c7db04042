"""Memory estimates against published measurements, beside llm-analysis on the cases it can express.

Prints one row per case (measured, gpuwise, error, llm-analysis, error) and the summary
figures recorded in benchmarks/README.md. llm-analysis runs in its own venv (peers.py); it
has no LoRA/QLoRA, GGUF or MoE model, so those rows show "—" for it.

Leave-one-source-out: no memory constant is fitted to these cases; a few are derived from a
source that also published a case (e.g. llama.cpp's CUDA context from one README log). Those
cases (marked C) are left out of the held-out figure, which is therefore what a refit without
each source would give; the per-source table shows no single source carries the median.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path
from typing import Any

import tomllib
from peers import gpu_job, model_job, run_llm_analysis

from gpuwise.catalog import load_catalog
from gpuwise.errors import GpuwiseError
from gpuwise.estimate.cases import constant_source_urls, norm_url, run_case
from gpuwise.estimate.constants import MemoryConstants

CASES = Path(__file__).parent.parent / "tests" / "data" / "memory_cases.toml"
DTYPES = {
    "bf16": "w16a16e16",
    "fp16": "w16a16e16",
    "int8-gptq": "w8a16e16",
    "int4-gptq": "w4a16e16",
    "int4-awq": "w4a16e16",
}


def peer_job(cat: Any, case: dict[str, Any]) -> dict[str, Any] | None:
    """The llm-analysis job for a case, or None when the peer cannot express it."""
    m = cat.model(case["model"])
    if case["mode"] in ("lora", "qlora") or m.moe or m.mla or case["quant"] not in DTYPES:
        return None
    gpu = (
        cat.gpu(case.get("gpu", "A100 80GB"))
        if _known(cat, case.get("gpu"))
        else cat.gpu("A100-80GB")
    )
    job = {
        "id": case["id"],
        "model": model_job(m),
        "gpu": gpu_job(gpu),
        "dtype": DTYPES[case["quant"]],
        "batch": int(case["batch"]),
    }
    if case["mode"] == "inference":
        prompt = int(case.get("prompt_tokens") or case["context"])
        return {
            **job,
            "kind": "infer",
            "prompt": prompt,
            "gen": int(case["context"]) - prompt,
            "tp": 1,
        }
    zero = {"zero3": 3, "fsdp": 3, "zero2": 2}.get(case.get("strategy", ""), 0)
    return {
        **job,
        "kind": "train",
        "seq_len": int(case["context"]),
        "gpus": int(case.get("gpus", 1)),
        "zero": zero,
        "recompute": bool(case.get("grad_checkpointing", True)),
    }


def _known(cat: Any, name: str | None) -> bool:
    try:
        return bool(name) and bool(cat.gpu(name))
    except GpuwiseError:
        return False


def main() -> None:
    cat = load_catalog()
    consts = MemoryConstants.from_catalog(cat)
    cases = [c for c in tomllib.loads(CASES.read_text(encoding="utf-8"))["case"]]
    active = [c for c in cases if "excluded" not in c]
    peer = (
        run_llm_analysis([j for c in active if (j := peer_job(cat, c))])
        if "--no-peer" not in sys.argv
        else {}
    )
    ours, theirs, both = [], [], []
    held: list[float] = []
    by_source: dict[str, list[float]] = {}
    constant_sources = constant_source_urls(cat)
    print(f"{'case':46} {'measured':>9} {'gpuwise':>9} {'err':>7} {'llm-an.':>9} {'err':>7}")
    for c in active:
        r = run_case(cat, consts, c)
        ours.append(abs(r.error))
        calibration = any(norm_url(c["url"]).startswith(u) for u in constant_sources)
        if not calibration:
            held.append(abs(r.error))
        by_source.setdefault(norm_url(c["url"]), []).append(abs(r.error))
        p = peer.get(c["id"], {})
        peer_value = _peer_value(p, c)
        if peer_value is not None:
            perr = (peer_value - r.measured_gb) / r.measured_gb
            theirs.append(abs(perr))
            both.append(abs(r.error))
            tail = f"{peer_value:9.2f} {perr:+7.1%}"
        else:
            tail = f"{'—':>9} {'':>7}"
        mark = "C" if calibration else " "
        print(
            f"{mark}{c['id'][:45]:45} {r.measured_gb:9.2f} {r.estimated_gb:9.2f} "
            f"{r.error:+7.1%} {tail}"
        )
    for c in cases:
        if "excluded" in c:
            print(f"{c['id'][:46]:46} excluded: {c['excluded'][:90]}…")
    print(
        f"\ngpuwise: {len(ours)} cases, median |error| {statistics.median(ours):.1%}, "
        f"worst {max(ours):.1%}, within 25%: {sum(e <= 0.25 for e in ours)}/{len(ours)}"
    )
    print(
        f"leave-one-source-out (cases whose source set no constant): {len(held)} cases, median "
        f"{statistics.median(held):.1%}, within 25%: {sum(e <= 0.25 for e in held)}/{len(held)}"
    )
    print("\nper source: cases, median |error|")
    for src, errs in sorted(by_source.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(errs):3d} {statistics.median(errs):6.1%}  {src[:90]}")
    if theirs:
        print(
            f"on the {len(theirs)} cases llm-analysis can express: gpuwise median "
            f"{statistics.median(both):.1%}, llm-analysis median {statistics.median(theirs):.1%}, "
            f"worst {max(theirs):.1%}"
        )


def _peer_value(p: dict[str, Any], case: dict[str, Any]) -> float | None:
    if "memory_bytes" not in p:
        return None
    value = float(p["memory_bytes"])
    if case.get("per_gpu") is False:
        value *= int(case.get("gpus", 1))
    return value / (1024**3 if case.get("unit", "GB") == "GiB" else 1e9)


if __name__ == "__main__":
    main()
