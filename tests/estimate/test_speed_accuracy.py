"""The speed model against published measurements (tests/data/speed_cases.toml).

The thresholds are the leave-one-source-out figures benchmarks/speed_accuracy.py reports
(benchmarks/README.md), with a small margin: the efficiencies are refitted without each source
and that source is predicted, so these are errors on measurements the model was not fitted to.
They are regression guards set at what the model achieves, not issue 12's targets (those are
quoted beside each one): the model's structure was chosen while watching these figures, so
they are validation errors rather than a held-out test (review 3). Where a class still has
fewer cases or sources than issue 12 asks for, the coverage test pins what exists so it can
only grow.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
import tomllib
from filelock import FileLock

from gpuwise.catalog import load_catalog
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.speed_cases import PreparedCase, predicted, prepare_case
from gpuwise.estimate.speed_constants import SpeedConstants
from gpuwise.estimate.speed_fit import leave_one_source_out

CASES: list[dict[str, Any]] = tomllib.loads(
    (Path(__file__).parent.parent / "data" / "speed_cases.toml").read_text(encoding="utf-8")
)["case"]
ACTIVE = [c for c in CASES if "excluded" not in c]

LOSO_TARGETS = {  # metric: (median |error| at most, share within 25% at least) — regression
    # guards at the figures reached (benchmarks/README.md), not issue 28's targets
    "decode": (0.11, 0.78),  # 10.1%, 80% (issue 12: ≤ 12%, ≥ 75%)
    "prefill": (0.16, 0.77),  # 15.5%, 80% (issue 12: ≤ 15%, ≥ 70%); current builds below.
    # 13.5% before MoE servers stopped setting dense GEMM shares (2026-12-06): the prospective
    # prefill median fell from 26.4% to 16.8% (datacenter 24.9% to 16.7%) with that change
    "serving": (0.30, 0.40),  # 28.6%, 43% on 65 cases of one source (issue 28)
    "train": (0.11, 0.70),  # 10.8%, 80% on 94 cases after 8 AMD Instinct rows (10.3% on 86 before)
}
CURRENT_BUILD_CUT = "2024-06-23"  # llama.cpp's INT8 MMQ prompt path (benchmarks --by-build)
PREFILL_CURRENT = (0.135, 0.83)  # 13.1% on 2026-12-07: 12.7% once 13 DGX Spark and Strix
# Halo prompts joined (llama.cpp on GB10 and RDNA 3.5, within about 25%), then Qwen3-30B-A3B's
# parameter counts were corrected from NVIDIA's rounded 30B/3B to Qwen's 30.5B/3.3B (its
# prompt rows moved; all prefill 15.4%, 80% within 25%); before it 11.6% since
# 2026-12-06 (MoE servers apart, as above); 83.7%
# (87 of 104) since the MoE experts' own decode share and the 18 Azure MI300X serving rows moved
# the fitted overheads (2026-12-05): one case crossed 25%, the floor is 80%
DECODE_CLASS_MEDIAN = {  # issue 12: ≤ 20% median on every card class
    "consumer": 0.10,
    "workstation": 0.10,
    "datacenter": 0.17,
    "apple": 0.17,
    "radeon": 0.10,  # 5.5% on 13 cases, 6 sources (RDNA cards, llama.cpp and MLC)
    # Instinct (CDNA) decode: 37.8% on 6 llama.cpp runs from 2 sources, over the 20% target.
    # Pooled with Radeon until 2026-12-07 it read 12.7%; split, the held-out fit lends
    # llama.cpp on MI300X the Radeon cards' bandwidth share. A guard, not the target.
    "amd": 0.40,
}
COVERAGE = {  # (class, metric): (cases at least, sources at least) — achieved, see the README
    ("consumer", "decode"): (15, 3),
    ("consumer", "prefill"): (10, 3),
    ("datacenter", "decode"): (90, 10),
    ("datacenter", "prefill"): (91, 7),
    ("apple", "decode"): (15, 3),
    ("apple", "prefill"): (10, 3),
    ("workstation", "decode"): (15, 3),
    ("workstation", "prefill"): (10, 3),
    ("radeon", "decode"): (13, 6),
    ("radeon", "prefill"): (7, 5),
    ("amd", "serving"): (40, 3),
    ("amd", "train"): (8, 2),
    ("datacenter", "serving"): (60, 1),
    ("datacenter", "train"): (36, 4),
}


@pytest.fixture(scope="module")
def env():  # type: ignore[no-untyped-def]
    cat = load_catalog(use_cache=False)
    return cat, MemoryConstants.from_catalog(cat), SpeedConstants.from_catalog(cat)


@pytest.fixture(scope="module")
def prepared(env) -> list[PreparedCase]:  # type: ignore[no-untyped-def]
    cat, mc, _ = env
    return [prepare_case(cat, mc, c) for c in ACTIVE]


@pytest.fixture(scope="module")
def loso(env, prepared, tmp_path_factory, worker_id) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """The held-out predictions, computed once per test run: under xdist the first worker to
    need them refits (a few hundred fits, the suite's slowest fixture) and the others read its
    result instead of repeating it (floats round-trip through JSON exactly)."""
    if worker_id == "master":
        return leave_one_source_out(prepared, env[2])
    shared = tmp_path_factory.getbasetemp().parent / "speed_loso.json"
    with FileLock(f"{shared}.lock"):
        if shared.is_file():
            return json.loads(shared.read_text())  # type: ignore[no-any-return]
        values = leave_one_source_out(prepared, env[2])
        shared.write_text(json.dumps(values))
    return values


def _errors(
    prepared: list[PreparedCase], values: dict[str, float]
) -> dict[tuple[str, str], list[float]]:
    out: dict[tuple[str, str], list[float]] = defaultdict(list)
    for pc in prepared:
        err = abs(values[pc.id] - pc.measured) / pc.measured
        out[(pc.kind, "all")].append(err)
        out[(pc.kind, pc.card_class)].append(err)
    return out


def test_cases_are_cited_and_unique() -> None:
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids))
    for c in CASES:
        assert c["url"].startswith("https://") and c["quote"] and c["retrieved"], c["id"]
        assert c["kind"] in ("decode", "prefill", "serving", "train", "e2e"), c["id"]


def test_every_class_has_cases_from_several_sources(prepared) -> None:  # type: ignore[no-untyped-def]
    counts: dict[tuple[str, str], int] = defaultdict(int)
    sources: dict[tuple[str, str], set[str]] = defaultdict(set)
    for pc in prepared:
        counts[(pc.card_class, pc.kind)] += 1
        sources[(pc.card_class, pc.kind)].add(pc.source)
    for key, (n, s) in COVERAGE.items():
        assert counts[key] >= n and len(sources[key]) >= s, (key, counts[key], sources[key])


@pytest.mark.parametrize("metric", sorted(LOSO_TARGETS))
def test_leave_one_source_out_error(prepared, loso, metric: str) -> None:  # type: ignore[no-untyped-def]
    errors = _errors(prepared, loso)[(metric, "all")]
    median, within = LOSO_TARGETS[metric]
    assert statistics.median(errors) <= median, sorted(errors)
    assert sum(e <= 0.25 for e in errors) / len(errors) >= within


def test_prefill_of_current_builds(prepared, loso) -> None:  # type: ignore[no-untyped-def]
    """What users run: measurements without a build date or from CURRENT_BUILD_CUT on."""
    errors = [
        abs(loso[pc.id] - pc.measured) / pc.measured
        for pc in prepared
        if pc.kind == "prefill"
        and (pc.inputs.built is None or str(pc.inputs.built) >= CURRENT_BUILD_CUT)
    ]
    median, within = PREFILL_CURRENT
    assert len(errors) >= 100
    assert statistics.median(errors) <= median, sorted(errors)
    assert sum(e <= 0.25 for e in errors) / len(errors) >= within


@pytest.mark.parametrize("card_class", sorted(DECODE_CLASS_MEDIAN))
def test_decode_holds_on_every_card_class(prepared, loso, card_class: str) -> None:  # type: ignore[no-untyped-def]
    errors = _errors(prepared, loso)[("decode", card_class)]
    assert statistics.median(errors) <= DECODE_CLASS_MEDIAN[card_class], sorted(errors)


IN_SAMPLE_TOLERANCE = 0.6
"""In-sample |error| every case must stay within unless it states its own tolerance (with a
reason) or is a named outlier below. It was a factor of two (100%) for every case, which no
realistic regression could break (review 3); 0.6 is just above the largest error among the
410 cases without an outlier entry when this was set (59.8%)."""
IN_SAMPLE_OUTLIERS = {  # case id: its in-sample error when this list was made
    "llama2-70b-awq-4xa100-vllm-perfbench": 0.946,
    "llama7b-q2_k-rtx3090-tg128-pr4766": 0.897,
    "deepseek-v3-q5_k_m-8xh100-llamacpp-pp512-augmxnt": 0.746,
    "qwen3-8b-bf16-h20-transformers-decode": 0.656,
    "llama-2-70b-fp8-4xh100-trtllm-ttft128": 0.651,
    "llama2-70b-q4f16_1-8xa100-mlc-perfbench": 0.607,  # after the serving-TP all-reduce fix
    # issue 28's new sources: MXFP4 MoE prompts on A100 (no native MXFP4: vLLM's Marlin
    # fallback) and DeepSeek-V3 MXFP8 pre-training on 256 B200 (pipeline and expert
    # parallelism of that recipe are not modelled)
    "gpustack-gpt-oss-20b-mxfp4-vllm-a100-80gb-random-32k-input-278": 0.736,
    "megatron-bridge-deepseek-v3-full-mxfp8-b200-x256-26.04.01": 0.65,
}
"""Cases the shipped fit misses by more than IN_SAMPLE_TOLERANCE and whose source gives no
reason gpuwise could cite; each may stay within a factor of two until it gets a `tolerance`
with a reason in speed_cases.toml, and the list may only shrink."""


def test_shipped_constants_keep_every_case_within_60_percent_or_its_stated_tolerance(  # type: ignore[no-untyped-def]
    env, prepared
) -> None:
    """The fit on every case (the shipped data) lands each case within 60%, within the
    tolerance the case states with its reason, or (the named outliers) within a factor of
    two."""
    sc = env[2]
    misses = []
    for pc in prepared:
        error = (predicted(pc, sc) - pc.measured) / pc.measured
        limit = 1.0 if pc.id in IN_SAMPLE_OUTLIERS else IN_SAMPLE_TOLERANCE
        if abs(error) > float(pc.case.get("tolerance", limit)):
            misses.append((pc.id, round(error, 3)))
    assert not misses, misses
    assert set(IN_SAMPLE_OUTLIERS) <= {pc.id for pc in prepared}  # a stale name is dropped


def test_tolerances_and_exclusions_say_why() -> None:
    for c in CASES:
        if "tolerance" in c:
            assert len(c.get("tolerance_reason", "")) > 40, c["id"]
        if "excluded" in c:
            assert len(c["excluded"]) > 20, c["id"]


def test_error_bands_are_the_held_out_errors(env, prepared, loso) -> None:  # type: ignore[no-untyped-def]
    """data/speed_band.toml is exactly what benchmarks/calibrate_speed.py computes from these
    leave-one-source-out estimates and the memory cases: no band is hand-set."""
    from gpuwise.estimate.speed_band_data import bands

    cat, mc, sc = env
    memory = tomllib.loads(
        (Path(__file__).parent.parent / "data" / "memory_cases.toml").read_text(encoding="utf-8")
    )["case"]
    shipped = sorted((b.kind, b.engine, b.card_class, b.p10, b.p90, b.cases) for b in sc.bands)
    fresh = sorted(
        (b.kind, b.engine, b.card_class, b.p10, b.p90, b.cases)
        for b in bands(cat, mc, prepared, loso, memory)
    )
    assert shipped == fresh, "run python benchmarks/calibrate_speed.py"
    kinds = {b[0] for b in shipped}
    assert {"decode", "prefill", "serving", "train", "vram"} <= kinds
    assert all(lo <= 1 <= hi and lo < hi for _kind, _e, _c, lo, hi, _n in shipped)
