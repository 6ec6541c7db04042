"""Speed estimates against published measurements: leave-one-source-out first.

The headline is cross-validated: for each source (a page or thread that published numbers), the
efficiencies are refitted on every other source (estimate/speed_fit.py) and that source's cases
are predicted; the error is reported per metric and per card class (consumer, workstation,
datacenter, apple, amd), for the sources added before issue 28 ("old") and by it ("new"), beside
a hand roofline (benchmarks/roofline.py). "In-sample" is what the shipped data/speed_fitted.toml
gives (fitted on every case). llm-analysis runs beside it where it can express a case.

    python benchmarks/speed_accuracy.py [--no-peer] [--rows] [--by-build] [--worst]
    python benchmarks/speed_accuracy.py --prospective   # the frozen set, scored once

`--by-build` also splits prefill and decode by engine build: from 2024-06-23 on (llama.cpp's INT8
MMQ prompt path, what users run today) and older. `--prospective` scores
tests/data/speed_prospective.toml (kept out of every fit and model choice) with the shipped
constants: no refit, nothing of it is fitted.
"""

from __future__ import annotations

import datetime as dt
import statistics
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tomllib
from peers import gpu_job, model_job, run_llm_analysis
from roofline import roofline

from gpuwise.catalog import load_catalog
from gpuwise.errors import UserError
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.speed_cases import PreparedCase, calibration_ids, predicted, prepare_case
from gpuwise.estimate.speed_constants import SpeedConstants
from gpuwise.estimate.speed_fit import leave_one_source_out

CASES = Path(__file__).parent.parent / "tests" / "data" / "speed_cases.toml"
PROSPECTIVE = CASES.with_name("speed_prospective.toml")
CLASSES = ("consumer", "workstation", "datacenter", "apple", "radeon", "amd")
KINDS = ("decode", "prefill", "e2e", "serving", "train")
NEW_SINCE = dt.date(2026, 12, 5)
"""Cases retrieved from this date on came with issue 28 (sources never used before)."""
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
Row = tuple[PreparedCase, float, float, float, float | None, float]


def peer_job(cat: Any, c: dict[str, Any]) -> dict[str, Any] | None:
    """The llm-analysis job for a case, or None when it cannot express it."""
    m = cat.model(c.get("model_id") or c["model"])
    if (
        m.moe
        or m.mla
        or c["quant"] not in DTYPES
        or c["kind"] not in ("decode", "prefill", "train")
        or c.get("precision") == "mixed-fp8"
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


def prepare_all(
    cat: Any, mc: MemoryConstants, sc: SpeedConstants, raw: list[dict[str, Any]]
) -> tuple[list[PreparedCase], list[str]]:
    """The cases gpuwise can express, and the ids it refuses (unknown model, format, card…)."""
    ok, refused = [], []
    for c in raw:
        try:
            ok.append(prepare_case(cat, mc, c, sc))
        except (UserError, StopIteration, KeyError):
            refused.append(c["id"])
    return ok, refused


def main() -> None:
    cat = load_catalog()
    mc, sc = MemoryConstants.from_catalog(cat), SpeedConstants.from_catalog(cat)
    if "--prospective" in sys.argv:
        prospective(cat, mc, sc)
        return
    raw = tomllib.loads(CASES.read_text(encoding="utf-8"))["case"]
    active = [c for c in raw if "excluded" not in c]
    cases, refused = prepare_all(cat, mc, sc, active)
    loso = leave_one_source_out(cases, sc)
    fitted_on = calibration_ids(sc)
    peer = (
        {}
        if "--no-peer" in sys.argv
        else run_llm_analysis([j for c in active if (j := peer_job(cat, c))])
    )
    rows: list[Row] = []
    for pc in cases:
        cv = (loso[pc.id] - pc.measured) / pc.measured
        ins = (predicted(pc, sc) - pc.measured) / pc.measured
        roof = (roofline(pc) - pc.measured) / pc.measured
        rows.append((pc, loso[pc.id], cv, ins, peer_value(peer.get(pc.id, {}), pc.case), roof))
    if "--rows" in sys.argv:
        _print_rows(rows, fitted_on)
    named = f" ({', '.join(refused)})" if refused else ""
    print(f"refused: {len(refused)} of {len(active)} cases{named}")
    _print_summary(rows)
    _print_old_new(rows)
    if "--worst" in sys.argv:
        _print_worst(rows, "LOSO")
    if "--by-build" in sys.argv:
        _print_by_build(rows)


def _is_new(pc: PreparedCase) -> bool:
    return pc.case["retrieved"] >= NEW_SINCE


def prospective(cat: Any, mc: MemoryConstants, sc: SpeedConstants) -> None:
    """The frozen prospective set with the shipped constants, per kind and card class."""
    raw = tomllib.loads(PROSPECTIVE.read_text(encoding="utf-8"))["case"]
    cases, refused = prepare_all(cat, mc, sc, [c for c in raw if "excluded" not in c])
    rows: list[Row] = []
    for pc in cases:
        est = predicted(pc, sc)
        err = (est - pc.measured) / pc.measured
        rows.append((pc, est, err, err, None, (roofline(pc) - pc.measured) / pc.measured))
    print(f"prospective set: {len(cases)} cases scored, {len(refused)} refused {refused or ''}")
    print(f"{'metric':8} {'class':11} | {'n':>5} {'median':>7} {'≤25%':>5} | roofline")
    groups = _grouped(rows)
    for key in sorted(groups):
        g = groups[key]
        print(
            f"{key[0]:8} {key[1]:11} | {summary(g['loso'])} | {statistics.median(g['roof']):7.1%}"
        )
    every = [abs(r[2]) for r in rows]
    roof = statistics.median(abs(r[5]) for r in rows)
    print(f"{'all':8} {'all':11} | {summary(every)} | {roof:7.1%}")
    _print_worst(rows, "shipped")


def _grouped(
    rows: list[Row], split: Callable[[PreparedCase], str] | None = None
) -> dict[tuple[str, str], dict[str, list[float]]]:
    table: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for pc, _, cv, ins, pv, roof in rows:
        tag = split(pc) if split else pc.card_class
        for key in ((pc.kind, "all"), (pc.kind, tag)):
            g = table[key]
            g["loso"].append(abs(cv))
            g["in"].append(abs(ins))
            g["roof"].append(abs(roof))
            if pv:
                g["peer"].append(abs((pv - pc.measured) / pc.measured))
                g["ours_on_peer"].append(abs(cv))
    return table


def _print_old_new(rows: list[Row]) -> None:
    """LOSO by kind for the sources before issue 28 and the ones it added."""
    print(f"\n{'metric':8} {'sources':11} | {'LOSO: n':>7} {'median':>7} {'≤25%':>5} | roofline")
    for kind in (*KINDS, "all"):
        for tag in ("old", "new"):
            sel = [
                r
                for r in rows
                if (kind == "all" or r[0].kind == kind)
                and ("new" if _is_new(r[0]) else "old") == tag
            ]
            if sel:
                errs = [abs(r[2]) for r in sel]
                roof = statistics.median(abs(r[5]) for r in sel)
                print(f"{kind:8} {tag:11} | {summary(errs)} | {roof:7.1%}")


def _print_worst(rows: list[Row], label: str) -> None:
    print(f"\nworst ten ({label} error):")
    for pc, est, err, _, _, _ in sorted(rows, key=lambda r: -abs(r[2]))[:10]:
        where = f"{pc.kind:8} {pc.card_class:11} {pc.id[:60]:60}"
        print(f"  {where} {pc.measured:10.1f} {est:10.1f} {err:+7.1%}")


BUILD_CUT = dt.date(2024, 6, 23)


def _print_by_build(rows: list[Row]) -> None:
    """LOSO error of current builds (no build date, or from BUILD_CUT on) and of older ones."""
    print(f"\n{'metric':8} {'builds':24} {'n':>4} {'median':>7} {'≤25%':>5}")
    for kind in ("decode", "prefill"):
        for label, keep in (
            (f"from {BUILD_CUT} on", lambda b: b is None or b >= BUILD_CUT),
            ("older", lambda b: b is not None and b < BUILD_CUT),
        ):
            errors = [abs(r[2]) for r in rows if r[0].kind == kind and keep(r[0].inputs.built)]
            if errors:
                within = sum(e <= 0.25 for e in errors) / len(errors)
                median = statistics.median(errors)
                print(f"{kind:8} {label:24} {len(errors):4d} {median:7.1%} {within:5.0%}")


def _print_rows(rows: list[Row], fitted: set[str]) -> None:
    print(
        f"{'kind':7} {'class':11} {'case':52} {'measured':>9} {'LOSO est':>9} {'LOSO':>7} "
        f"{'in-sam.':>7} {'roofl.':>7} {'llm-an.':>7}"
    )
    for pc, est, cv, ins, pv, roof in rows:
        peer = f"{(pv - pc.measured) / pc.measured:+7.1%}" if pv else f"{'—':>7}"
        mark = "" if pc.id in fitted else "*"
        print(
            f"{pc.kind:7} {pc.card_class:11} {mark + pc.id[:51]:52} {pc.measured:9.1f} "
            f"{est:9.1f} {cv:+7.1%} {ins:+7.1%} {roof:+7.1%} {peer}"
        )
    print("(* not used by the shipped fit: validation only)\n")


def _print_summary(rows: list[Row]) -> None:
    table = _grouped(rows)
    sources: dict[tuple[str, str], set[str]] = defaultdict(set)
    for r in rows:
        for key in ((r[0].kind, "all"), (r[0].kind, r[0].card_class)):
            sources[key].add(r[0].source)
    print(
        f"{'metric':8} {'class':11} {'srcs':>4} | {'LOSO: n':>7} {'median':>7} {'≤25%':>5} | "
        f"{'in-sample':>9} | {'roofline':>8} | llm-analysis on the cases it can express"
    )
    for kind in KINDS:
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
                f"{statistics.median(g['in']):9.1%} | {statistics.median(g['roof']):8.1%} | {peer}"
            )


if __name__ == "__main__":
    main()
