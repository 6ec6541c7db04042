"""The precision/format support table: schema, lookup rules, coverage and the cited facts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from gpuwise.catalog import load_catalog
from gpuwise.catalog.catalog import Catalog
from gpuwise.catalog.precision import (
    SupportVerdict,
    canonical_engine,
    format_support,
    kv_format_key,
    supported_formats,
    weight_format_key,
)
from gpuwise.catalog.schema import Gpu
from gpuwise.catalog.schema_precision import PRECISION_FORMATS, PrecisionSupport

ENGINES_BY_FAMILY: dict[str, tuple[str, ...]] = {
    "cuda": ("transformers", "vllm", "sglang", "tensorrt-llm", "llama.cpp", "exllamav2"),
    "rocm": ("transformers", "vllm", "sglang", "llama.cpp"),
    "apple": ("llama.cpp", "mlx", "transformers"),
    "ascend": ("transformers", "vllm", "llama.cpp"),
    "tpu": ("transformers", "vllm"),
    "neuron": ("transformers", "vllm"),
    "gaudi": ("transformers", "vllm"),
    "xe": ("transformers", "llama.cpp", "vllm"),
    "other": (),
}
"""The engines the planner can choose on each software stack (the rows claim full coverage)."""


def family(gpu: Gpu) -> str:
    """The software stack family of a catalog GPU."""
    s = gpu.stack
    if s.cuda_cc:
        return "cuda"
    if s.rocm_gfx:
        return "rocm"
    if s.metal:
        return "apple"
    if s.cann:
        return "ascend"
    if s.xla:
        return "tpu"
    if s.neuron:
        return "neuron"
    if s.gaudi or gpu.architecture.startswith("Gaudi"):
        return "gaudi"
    if s.oneapi:
        return "xe"
    if gpu.vendor in ("cambricon", "hygon", "moorethreads", "biren", "iluvatar", "metax"):
        return "other"  # stacks the catalog does not model: every engine verdict is "unknown"
    raise AssertionError(f"{gpu.id}: no stack family; add one here and rows in precision.toml")


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog(use_overrides=False, use_cache=False)


@pytest.fixture(scope="module")
def rows(cat: Catalog) -> tuple[PrecisionSupport, ...]:
    return tuple(cat.extra("precision_support"))


def verdict(cat: Catalog, rows: Any, engine: str, gpu_id: str, fmt: str) -> SupportVerdict:
    return format_support(rows, engine, cat.gpu_by_id(gpu_id), fmt)


# ------------------------------------------------------------------ schema


def _row(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "engine": "vllm",
        "architectures": ["Hopper"],
        "formats": ["fp8"],
        "support": "yes",
        "compute": "fp8",
        "source": "s",
    }
    return {**base, **over}


def test_schema_accepts_a_plain_row() -> None:
    row = PrecisionSupport.model_validate(_row())
    assert row.formats == ["fp8"] and row.compute == "fp8" and row.gpus == []


@pytest.mark.parametrize(
    ("over", "fragment"),
    [
        ({"architectures": ["*", "Hopper"]}, "precision_wildcard"),
        ({"architectures": ["*"], "gpus": ["h100-sxm"]}, "precision_wildcard"),
        ({"architectures": [], "gpus": []}, "precision_target"),
        ({"formats": ["fp8", "fp8"]}, "precision_repeat"),
        ({"support": "no"}, "precision_compute_no"),
        ({"formats": ["int4"]}, "literal_error"),
        ({"formats": []}, "too_short"),
        ({"compute": "int4"}, "literal_error"),
        ({"support": "maybe"}, "literal_error"),
        ({"colour": "red"}, "extra_forbidden"),
    ],
)
def test_schema_rejects_bad_rows(over: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ValidationError) as err:
        PrecisionSupport.model_validate(_row(**over))
    assert fragment in str(err.value) or fragment in {e["type"] for e in err.value.errors()}


def test_format_set_is_the_closed_set_of_the_brief() -> None:
    assert PRECISION_FORMATS == (
        "fp32", "bf16", "fp16", "fp8", "fp8-w8a16", "int8-w8a8", "awq", "gptq",
        "bnb-nf4", "bnb-int8", "gguf", "mlx", "mxfp4", "kv-fp8",
    )  # fmt: skip


# ------------------------------------------------------------------ lookup rules


def _gpu(gpu_id: str, arch: str) -> Gpu:
    return Gpu.model_validate(
        {"id": gpu_id, "name": gpu_id, "vendor": "other", "class": "datacenter",
         "architecture": arch, "release_year": 2024, "memory_gb": 16, "pcie_gen": 4,
         "source": "s"}
    )  # fmt: skip


SYNTH = (
    PrecisionSupport.model_validate(
        _row(architectures=["*"], formats=["fp8", "awq"], support="no", compute=None, note_en="any")
    ),
    PrecisionSupport.model_validate(_row(architectures=["Da Vinci"], note_en="arch")),
    PrecisionSupport.model_validate(
        _row(architectures=[], gpus=["npu-b"], support="partial", compute="bf16", note_en="gpu")
    ),
    PrecisionSupport.model_validate(
        _row(engine="llama.cpp", architectures=["*"], formats=["gguf"], compute=None, via="ggml")
    ),
)


def test_gpu_row_beats_architecture_row_beats_wildcard() -> None:
    assert format_support(SYNTH, "vllm", _gpu("npu-b", "Da Vinci"), "fp8").note_en == "gpu"
    assert format_support(SYNTH, "vllm", _gpu("npu-a", "Da Vinci"), "fp8").note_en == "arch"
    other = format_support(SYNTH, "vllm", _gpu("x", "Volta"), "fp8")
    assert (other.support, other.note_en) == ("no", "any")
    # the GPU row says nothing about awq, so the architecture level is skipped to "*"
    assert format_support(SYNTH, "vllm", _gpu("npu-b", "Da Vinci"), "awq").note_en == "any"


def test_verdict_carries_the_rows_facts() -> None:
    v = format_support(SYNTH, "vllm", _gpu("npu-b", "Da Vinci"), "fp8")
    assert v == SupportVerdict("partial", "bf16", "", "gpu", "", "s")
    assert v.runs


def test_no_row_is_unknown_not_yes() -> None:
    v = format_support(SYNTH, "sglang", _gpu("x", "Hopper"), "fp8")
    assert v.support == "unknown" and v.source is None and not v.runs
    assert format_support(SYNTH, "vllm", _gpu("x", "Hopper"), "gguf").support == "unknown"


def test_ollama_reads_llama_cpp_rows() -> None:
    assert canonical_engine("Ollama") == "llama.cpp"
    assert canonical_engine("transformers-legacy") == "transformers"
    assert format_support(SYNTH, "ollama", _gpu("x", "Apple GPU"), "gguf").via == "ggml"


def test_later_row_wins_a_tie() -> None:
    again = PrecisionSupport.model_validate(
        _row(architectures=["Da Vinci"], support="no", compute=None, note_en="override")
    )
    v = format_support((*SYNTH, again), "vllm", _gpu("npu-a", "Da Vinci"), "fp8")
    assert (v.support, v.note_en) == ("no", "override")


def test_supported_formats_keeps_table_order_and_drops_no() -> None:
    rows = (
        PrecisionSupport.model_validate(_row(formats=["kv-fp8", "bf16"], compute=None)),
        PrecisionSupport.model_validate(_row(formats=["awq"], support="partial", compute=None)),
        PrecisionSupport.model_validate(_row(formats=["fp8"], support="no", compute=None)),
    )
    assert supported_formats(rows, "vllm", _gpu("x", "Hopper")) == ["bf16", "awq", "kv-fp8"]


def test_user_override_file_corrects_a_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "config" / "catalog"
    folder.mkdir(parents=True)
    (folder / "mine.toml").write_text(
        '[sources.my-test]\nurl = "https://example.org/t4"\nretrieved = 2026-12-02\n\n'
        '[[precision_support]]\nengine = "vllm"\ngpus = ["t4"]\nformats = ["bf16"]\n'
        'support = "partial"\nnote_en = "my build"\nsource = "my-test"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("GPUWISE_CONFIG_DIR", str(tmp_path / "config"))
    cat = load_catalog(use_cache=False)
    v = format_support(cat.extra("precision_support"), "vllm", cat.gpu_by_id("t4"), "bf16")
    assert (v.support, v.note_en, v.source) == ("partial", "my build", "my-test")


# ------------------------------------------------------------------ data integrity


def test_rows_name_real_engines_architectures_and_gpus(cat: Catalog, rows: Any) -> None:
    engines = {e.id for e in cat.extra("engine")}
    archs = {g.architecture for g in cat.gpus}
    gpu_ids = {g.id for g in cat.gpus}
    for row in rows:
        assert row.engine in engines, row.engine
        assert set(row.architectures) <= archs | {"*"}, row.architectures
        assert set(row.gpus) <= gpu_ids, row.gpus
        assert row.source in cat.sources


def test_every_row_is_bilingual_where_it_explains(rows: Any) -> None:
    for row in rows:
        assert bool(row.note_en) == bool(row.note_zh), row
        if row.support != "yes":
            assert row.note_en, f"a {row.support!r} row must say why: {row}"


def test_no_two_rows_claim_the_same_cell_at_the_same_level(rows: Any) -> None:
    seen: dict[tuple[str, str, str], int] = {}
    for i, row in enumerate(rows):
        targets = [f"gpu:{g}" for g in row.gpus] + [f"arch:{a}" for a in row.architectures]
        for target in targets:
            for fmt in row.formats:
                key = (row.engine, target, fmt)
                assert key not in seen, f"rows {seen[key]} and {i} both set {key}"
                seen[key] = i


def test_coverage_every_architecture_engine_and_format(cat: Catalog, rows: Any) -> None:
    gaps = [
        f"{g.id} ({g.architecture}) {engine} {fmt}"
        for g in cat.gpus
        for engine in ENGINES_BY_FAMILY[family(g)]
        for fmt in PRECISION_FORMATS
        if format_support(rows, engine, g, fmt).support == "unknown"
    ]
    assert not gaps, gaps[:20]


# ------------------------------------------------------------------ cited facts


@pytest.mark.parametrize(
    ("engine", "gpu_id", "fmt", "expected"),
    [
        # no FP8 W8A8 below Ada (sm_89) on CUDA, in every engine
        ("vllm", "v100-32gb", "fp8", "no"),
        ("vllm", "t4", "fp8", "no"),
        ("vllm", "a100-80gb", "fp8", "no"),
        ("sglang", "a100-80gb", "fp8", "no"),
        ("tensorrt-llm", "a100-80gb", "fp8", "no"),
        ("transformers", "rtx-3090", "fp8", "no"),
        # ... but FP8 weight-only through Marlin on Ampere in vLLM, computing at 16 bits
        ("vllm", "a100-80gb", "fp8-w8a16", "yes"),
        ("vllm", "rtx-3090", "fp8-w8a16", "yes"),
        ("vllm", "v100-16gb", "fp8-w8a16", "no"),
        ("tensorrt-llm", "a100-80gb", "fp8-w8a16", "no"),
        # FP8 on Ada, Hopper, Blackwell
        ("vllm", "rtx-4090", "fp8", "yes"),
        ("vllm", "l40s", "fp8", "yes"),
        ("vllm", "h100-sxm", "fp8", "yes"),
        ("vllm", "b200", "fp8", "yes"),
        ("tensorrt-llm", "h20", "fp8", "yes"),
        # no bf16 on Volta/Turing (fp16 only)
        ("vllm", "v100-32gb", "bf16", "no"),
        ("vllm", "t4", "bf16", "no"),
        ("transformers", "t4", "bf16", "no"),
        ("vllm", "t4", "fp16", "yes"),
        ("vllm", "a10", "bf16", "yes"),
        # Ascend: 310P has no bf16/fp8; 910B has bf16 and INT8 W8A8 but no fp8
        ("vllm", "atlas-300i-duo", "fp8", "no"),
        ("vllm", "atlas-300i-duo", "bf16", "no"),
        ("transformers", "atlas-300i-duo", "bf16", "no"),
        ("transformers", "atlas-300i-duo", "fp8", "no"),
        ("vllm", "ascend-910b", "bf16", "yes"),
        ("vllm", "ascend-910b", "fp8", "no"),
        ("vllm", "ascend-910b", "int8-w8a8", "yes"),
        ("vllm", "ascend-910b", "awq", "no"),
        # no AWQ / bitsandbytes on TPU or Trainium
        ("transformers", "tpu-v5e", "awq", "no"),
        ("transformers", "tpu-v6e", "bnb-nf4", "no"),
        ("vllm", "tpu-v4", "awq", "no"),
        ("vllm", "tpu-v5e", "bnb-nf4", "no"),
        ("vllm", "trainium", "awq", "no"),
        ("vllm", "inferentia2", "gptq", "no"),
        ("transformers", "trainium", "awq", "no"),
        ("transformers", "trainium2", "bnb-nf4", "no"),
        # bitsandbytes: ROCm and Intel XPU yes in transformers, Ascend no, Volta no LLM.int8
        ("transformers", "mi300x", "bnb-nf4", "yes"),
        ("transformers", "max-1550", "bnb-int8", "yes"),
        ("transformers", "ascend-910b", "bnb-nf4", "no"),
        ("transformers", "v100-16gb", "bnb-int8", "no"),
        ("transformers", "v100-16gb", "bnb-nf4", "yes"),
        ("vllm", "mi300x", "bnb-nf4", "no"),
        # GGUF: llama.cpp (and Ollama) yes; vLLM experimental; MLX / TRT-LLM no
        ("llama.cpp", "rtx-4090", "gguf", "yes"),
        ("ollama", "apple-m4-max", "gguf", "yes"),
        ("llama.cpp", "mi300x", "gguf", "yes"),
        ("llama.cpp", "arc-a770-16gb", "gguf", "yes"),
        ("llama.cpp", "ascend-910b", "gguf", "partial"),
        ("vllm", "h100-sxm", "gguf", "partial"),
        ("tensorrt-llm", "h100-sxm", "gguf", "no"),
        ("mlx", "apple-m2-ultra", "gguf", "no"),
        ("llama.cpp", "h100-sxm", "awq", "no"),
        # MI300X (CDNA 3) fp8 in vLLM; CDNA 2 none
        ("vllm", "mi300x", "fp8", "yes"),
        ("vllm", "mi325x", "fp8", "yes"),
        ("vllm", "mi250", "fp8", "no"),
        ("vllm", "rx-7900-xtx", "fp8", "no"),
        # KV-cache fp8 per engine/architecture
        ("vllm", "a100-80gb", "kv-fp8", "yes"),
        ("vllm", "mi300x", "kv-fp8", "yes"),
        ("tensorrt-llm", "a100-80gb", "kv-fp8", "yes"),
        ("llama.cpp", "rtx-4090", "kv-fp8", "no"),
        ("transformers", "h100-sxm", "kv-fp8", "no"),
        ("mlx", "apple-m4-max", "kv-fp8", "no"),
        ("vllm", "gaudi2", "kv-fp8", "yes"),
        ("vllm", "ascend-910b", "kv-fp8", "no"),
        # Volta: no AWQ in vLLM, no SGLang at all
        ("vllm", "v100-32gb", "awq", "no"),
        ("vllm", "v100-32gb", "gptq", "yes"),
        ("sglang", "v100-32gb", "fp16", "no"),
        # Blackwell quirks: no INT8 W8A8 in vLLM, no W4A16 AWQ/GPTQ in TensorRT-LLM
        ("vllm", "rtx-5090", "int8-w8a8", "no"),
        ("tensorrt-llm", "b200", "awq", "no"),
        ("tensorrt-llm", "h100-sxm", "awq", "yes"),
        # Apple: MLX formats only in MLX
        ("mlx", "apple-m3-max", "mlx", "yes"),
        ("mlx", "apple-m3-max", "awq", "no"),
        ("transformers", "apple-m4", "gptq", "no"),
        # MXFP4 (gpt-oss's experts): vLLM on Hopper/Blackwell/Ampere (Marlin) and MI300X, not
        # below sm_80; TRT-LLM Hopper/Blackwell only; transformers from sm_75, else dequantizes
        ("vllm", "h100-sxm", "mxfp4", "yes"),
        ("vllm", "b200", "mxfp4", "yes"),
        ("vllm", "a100-80gb", "mxfp4", "yes"),
        ("vllm", "l40s", "mxfp4", "partial"),
        ("vllm", "rtx-5090", "mxfp4", "yes"),  # Millstone AI: gpt-oss-120b on SM120, vLLM
        ("vllm", "t4", "mxfp4", "no"),
        ("vllm", "v100-32gb", "mxfp4", "no"),
        ("vllm", "mi300x", "mxfp4", "yes"),
        ("vllm", "mi250", "mxfp4", "no"),
        ("vllm", "ascend-910b", "mxfp4", "no"),
        ("tensorrt-llm", "h200", "mxfp4", "yes"),
        ("tensorrt-llm", "a100-80gb", "mxfp4", "no"),
        ("transformers", "t4", "mxfp4", "yes"),
        ("transformers", "v100-16gb", "mxfp4", "no"),
        ("transformers", "apple-m4", "mxfp4", "no"),
        ("llama.cpp", "rtx-4090", "mxfp4", "yes"),
        ("ollama", "apple-m4-max", "mxfp4", "yes"),
        ("exllamav2", "rtx-4090", "mxfp4", "no"),
    ],
)
def test_cited_fact(
    cat: Catalog, rows: Any, engine: str, gpu_id: str, fmt: str, expected: str
) -> None:
    v = verdict(cat, rows, engine, gpu_id, fmt)
    assert v.support == expected, (engine, gpu_id, fmt, v)
    assert v.source in cat.sources


def test_fp8_weight_only_on_ampere_computes_at_16_bits(cat: Catalog, rows: Any) -> None:
    v = verdict(cat, rows, "vllm", "a100-80gb", "fp8-w8a16")
    assert v.compute in ("bf16", "fp16") and "Marlin" in v.via
    assert verdict(cat, rows, "vllm", "rtx-4090", "fp8").compute == "fp8"


def test_rtx_4090_in_vllm_runs_fp8_and_the_usual_formats(cat: Catalog, rows: Any) -> None:
    got = supported_formats(rows, "vllm", cat.gpu_by_id("rtx-4090"))
    assert {"bf16", "fp16", "fp8", "awq", "gptq", "bnb-nf4", "kv-fp8"} <= set(got)
    assert "mlx" not in got


def test_ascend_310p_supports_fp16_only_among_floats(cat: Catalog, rows: Any) -> None:
    got = supported_formats(rows, "vllm", cat.gpu_by_id("atlas-300i-duo"))
    assert "fp16" in got and not {"bf16", "fp32", "fp8", "fp8-w8a16"} & set(got)


# ------------------------------------------------------------------ format keys


def test_every_memory_weight_format_maps_into_the_table(cat: Catalog) -> None:
    keys = {w.id: weight_format_key(w) for w in cat.extra("weight_format")}
    assert set(keys.values()) <= set(PRECISION_FORMATS), keys
    assert keys["fp32"] == "fp32" and keys["bf16"] == "bf16" and keys["fp16"] == "fp16"
    assert keys["fp8"] == "fp8"
    assert keys["int8"] == "bnb-int8"
    assert keys["nf4"] == keys["nf4-dq"] == "bnb-nf4"
    assert keys["int4-gptq"] == keys["int8-gptq"] == "gptq"
    assert keys["int4-awq"] == "awq"
    assert keys["mlx-q4"] == keys["mlx-q8"] == "mlx"
    assert keys["q4_k_m"] == keys["q8_0"] == keys["f16-gguf"] == "gguf"
    assert keys["mxfp4"] == "mxfp4"


def test_kv_dtype_keys(cat: Catalog) -> None:
    keys = {k.id: kv_format_key(k) for k in cat.extra("kv_dtype")}
    assert keys["fp8"] == "kv-fp8"
    assert keys["f16"] is None and keys["q8_0"] is None


def test_a_bad_override_row_names_the_file_and_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "config" / "catalog"
    folder.mkdir(parents=True)
    (folder / "bad.toml").write_text(
        '[sources.my-bad]\nurl = "https://example.org/x"\nretrieved = 2026-12-02\n\n'
        '[[precision_support]]\nengine = "vllm"\narchitectures = ["*", "Hopper"]\n'
        'formats = ["fp8"]\nsupport = "yes"\nsource = "my-bad"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("GPUWISE_CONFIG_DIR", str(tmp_path / "config"))
    cat = load_catalog(use_cache=False)  # the bad file is left out and named, not fatal
    [problem] = [dict(p)["problem"] for k, p in cat.findings if k == "catalog.override_left_out"]
    assert "bad.toml" in problem and "precision_support" in problem


def test_a_row_for_a_compute_capability_holds_for_every_card_of_it() -> None:
    """Kernels are built per compute capability: the RTX PRO 6000 Max-Q, Server Edition and
    the GeForce RTX 50 cards share SM120 and one verdict (blind w26-03)."""
    cat = load_catalog()
    rows = cat.extra("precision_support")
    sm120 = [g for g in cat.gpus if g.stack.cuda_cc == "12.0"]
    assert len(sm120) >= 5
    verdicts = {format_support(rows, "vllm", g, "mxfp4").support for g in sm120}
    assert verdicts == {"yes"}  # one verdict for the compute capability, whichever card
    hopper = cat.gpu("h100-sxm")
    assert format_support(rows, "vllm", hopper, "mxfp4").support == "yes"
