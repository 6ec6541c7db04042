"""Speed estimates against published measurements: leave-one-source-out first.

The headline is cross-validated: for each source (a page or thread that published numbers), the
efficiencies are refitted on every other source (estimate/speed_fit.py) and that source's cases
are predicted; the error is reported per metric and per card class (consumer, workstation,
datacenter, apple, amd). "In-sample" is what the shipped data/speed_fitted.toml gives (fitted on
every case). llm-analysis runs beside it where it can express a case (--no-peer skips it).

    python benchmarks/speed_accuracy.py [--no-peer] [--rows] [--by-build]

`--by-build` also splits prefill and decode by engine build: from 2024-06-23 on (llama.cpp's INT8
MMQ prompt path, what users run today) and older.
"""

from __future__ import annotations

import datetime as dt
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import tomllib
from peers import gpu_job, model_job, run_llm_analysis

from gpuwise.catalog import load_catalog
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.speed_cases import PreparedCase, calibration_ids, predicted, prepare_case
from gpuwise.estimate.speed_constants import SpeedConstants
from gpuwise.estimate.speed_fit import leave_one_source_out

CASES = Path(__file__).parent.parent / "tests" / "data" / "speed_cases.toml"
CLASSES = ("consumer", "workstation", "datacenter", "apple", "amd")
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
    if (
        m.moe
        or m.mla
        or c["quant"] not in DTYPES
        or c["kind"] not in ("decode", "prefill", "train")
    ):
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


def summary(errors: list[float]) -> str:
    """n, median |error| and share within 25%."""
    if not errors:
        return f"{'—':>5} {'':>7} {'':>5}"
    within = sum(e <= 0.25 for e in errors) / len(errors)
    return f"{len(errors):5d} {statistics.median(errors):7.1%} {within:5.0%}"


def main() -> None:
    cat = load_catalog()
    mc, sc = MemoryConstants.from_catalog(cat), SpeedConstants.from_catalog(cat)
    raw = tomllib.loads(CASES.read_text(encoding="utf-8"))["case"]
    active = [c for c in raw if "excluded" not in c]
    cases = [prepare_case(cat, mc, c) for c in active]
    loso = leave_one_source_out(cases, sc)
    fitted_on = calibration_ids(sc)
    peer = (
        {}
        if "--no-peer" in sys.argv
        else run_llm_analysis([j for c in active if (j := peer_job(cat, c))])
    )
    table: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    sources: dict[tuple[str, str], set[str]] = defaultdict(set)
    rows = []
    for pc in cases:
        shipped = predicted(pc, sc)
        cv = (loso[pc.id] - pc.measured) / pc.measured
        ins = (shipped - pc.measured) / pc.measured
        pv = peer_value(peer.get(pc.id, {}), pc.case)
        for key in ((pc.kind, "all"), (pc.kind, pc.card_class)):
            table[key]["loso"].append(abs(cv))
            table[key]["in"].append(abs(ins))
            sources[key].add(pc.source)
            if pv:
                table[key]["peer"].append(abs((pv - pc.measured) / pc.measured))
                table[key]["ours_on_peer"].append(abs(cv))
        rows.append((pc, loso[pc.id], cv, ins, pv))
    if "--rows" in sys.argv:
        _print_rows(rows, fitted_on)
    _print_summary(table, sources)
    if "--by-build" in sys.argv:
        _print_by_build(rows)


BUILD_CUT = dt.date(2024, 6, 23)


def _print_by_build(rows: list[tuple[PreparedCase, float, float, float, float | None]]) -> None:
    """LOSO error of current builds (no build date, or from BUILD_CUT on) and of older ones."""
    print(f"\n{'metric':8} {'builds':24} {'n':>4} {'median':>7} {'≤25%':>5}")
    for kind in ("decode", "prefill"):
        for label, keep in (
            (f"from {BUILD_CUT} on", lambda b: b is None or b >= BUILD_CUT),
            ("older", lambda b: b is not None and b < BUILD_CUT),
        ):
            errors = [
                abs(cv) for pc, _, cv, _, _ in rows if pc.kind == kind and keep(pc.inputs.built)
            ]
            if errors:
                within = sum(e <= 0.25 for e in errors) / len(errors)
                median = statistics.median(errors)
                print(f"{kind:8} {label:24} {len(errors):4d} {median:7.1%} {within:5.0%}")


def _print_rows(
    rows: list[tuple[PreparedCase, float, float, float, float | None]], fitted: set[str]
) -> None:
    print(
        f"{'kind':7} {'class':11} {'case':52} {'measured':>9} {'LOSO est':>9} {'LOSO':>7} "
        f"{'in-sam.':>7} {'llm-an.':>7}"
    )
    for pc, est, cv, ins, pv in rows:
        peer = f"{(pv - pc.measured) / pc.measured:+7.1%}" if pv else f"{'—':>7}"
        mark = "" if pc.id in fitted else "*"
        print(
            f"{pc.kind:7} {pc.card_class:11} {mark + pc.id[:51]:52} {pc.measured:9.1f} "
            f"{est:9.1f} {cv:+7.1%} {ins:+7.1%} {peer}"
        )
    print("(* not used by the shipped fit: validation only)\n")


def _print_summary(
    table: dict[tuple[str, str], dict[str, list[float]]], sources: dict[tuple[str, str], set[str]]
) -> None:
    print(
        f"{'metric':8} {'class':11} {'srcs':>4} | {'LOSO: n':>7} {'median':>7} {'≤25%':>5} | "
        f"{'in-sample':>9} | llm-analysis on the cases it can express"
    )
    for kind in ("decode", "prefill", "e2e", "serving", "train"):
        for cls in ("all", *CLASSES):
            g = table.get((kind, cls))
            if not g:
                continue
            peer = ""
            if g["peer"]:
                peer = (
                    f"n={len(g['peer'])}: gpuwise {statistics.median(g['ours_on_peer']):.1%}, "
                    f"llm-analysis {statistics.median(g['peer']):.1%}"
                )
            print(
                f"{kind:8} {cls:11} {len(sources[(kind, cls)]):4d} | {summary(g['loso'])} | "
                f"{statistics.median(g['in']):9.1%} | {peer}"
            )


if __name__ == "__main__":
    main()
