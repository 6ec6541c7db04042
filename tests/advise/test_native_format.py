"""The planner serves a checkpoint in the format it ships in (gpt-oss: MXFP4 experts), on cards
whose engine runs that format, and never dequantizes it to 16 bits by default."""

from __future__ import annotations

import datetime as dt

from gpuwise.advise.engines import LOCAL_QUANTS, SERVE_QUANTS, native_first
from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.advise.sized import weight_bits
from gpuwise.catalog import load_catalog
from gpuwise.catalog.precision import format_support
from gpuwise.estimate.constants import MemoryConstants

TODAY = dt.date(2026, 12, 3)
CAT = load_catalog()
MC = MemoryConstants.from_catalog(CAT)


def _plan(workload: dict[str, object]) -> Plan:
    return make_plan(CAT, parse_scenario({"workload": workload}, "test"), TODAY)


def test_serving_gpt_oss_120b_runs_mxfp4_and_fits_one_80gb_card() -> None:
    p = _plan(
        {"kind": "serve", "model": "gpt-oss-120b", "concurrency": 8, "context": 8192,
         "prompt_tokens": 1024, "gen_tokens": 512}
    )  # fmt: skip
    assert p.options
    rows = CAT.extra("precision_support")
    for o in p.options:
        verdict = format_support(rows, o.sized.engine, o.candidate.gpu, "mxfp4")
        if o.sized.quant != "mxfp4":  # a card with no MXFP4 path runs an 8-bit copy, said
            assert not verdict.runs, (o.candidate.gpu.id, o.sized.engine)
            assert any(k == "risk.requantized_checkpoint" for k, _ in o.risks)
            assert weight_bits(MemoryConstants.from_catalog(CAT), o.sized.quant) >= 8
            continue
        assert verdict.runs, (o.candidate.gpu.id, o.sized.engine)
    single = {o.candidate.gpu.id for o in p.options if o.candidate.count == 1}
    assert single & {"h100-sxm", "h800", "a100-80gb", "a800", "h20", "h200", "mi300x"}
    # the MXFP4 checkpoint is about 61 GB: one card needs at least the 72 GB of an RTX PRO 5000
    assert all(o.candidate.gpu.memory_gb >= 72 for o in p.options if o.candidate.count == 1)
    # Volta has no MXFP4 path in vLLM: never dequantized to fp16; at most an 8-bit copy, said
    v100 = [o for o in (*p.options, *p.infeasible) if o.candidate.gpu.id == "v100-32gb"]
    assert all(o.sized.quant not in ("bf16", "fp16") for o in v100)
    assert all(any(k == "risk.requantized_checkpoint" for k, _ in o.risks) for o in v100)


def test_local_chat_with_the_ollama_tag_runs_its_mxfp4_file() -> None:
    p = _plan({"kind": "local", "model": "gpt-oss:20b", "context": 8192})
    assert p.options
    assert {(o.sized.quant, o.sized.engine) for o in p.options} <= {
        ("mxfp4", "ollama"),
        ("mxfp4", "llama.cpp"),
    }


def test_explicit_quant_still_wins() -> None:
    p = _plan(
        {"kind": "serve", "model": "gpt-oss-20b", "quant": "bf16", "concurrency": 2,
         "context": 4096, "prompt_tokens": 512, "gen_tokens": 256}
    )  # fmt: skip
    assert p.options and all(o.sized.quant == "bf16" for o in p.options)


def test_native_first_keeps_only_more_compressed_formats() -> None:
    assert native_first(SERVE_QUANTS, "mxfp4", MC) == ("mxfp4",)
    fp8 = native_first(SERVE_QUANTS, "fp8", MC)
    assert fp8[0] == "fp8" and "bf16" not in fp8 and "fp16" not in fp8
    assert set(fp8[1:]) == {"int4-awq", "int4-gptq"}
    assert native_first(LOCAL_QUANTS, "no-such-format", MC) == LOCAL_QUANTS
