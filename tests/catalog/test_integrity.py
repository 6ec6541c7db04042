"""Integrity of the built-in catalog data (gpuhunt-style invariants over the real files)."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.catalog.load import builtin_files, read_toml
from gpuwise.catalog.params import count_params
from gpuwise.errors import UserError

REQUIRED_GPUS = [
    "rtx-4060",
    "rtx-4060-ti-16gb",
    "rtx-4090",
    "rtx-6000-ada",
    "a100-40gb",
    "a100-80gb",
    "h100-sxm",
    "h100-pcie",
    "h100-nvl",
    "b200",
    "mi250",
    "mi300x",
    "arc-a770-16gb",
    "max-1550",
    "ascend-910b",
    "atlas-300i-duo",
    "tpu-v5e",
    "tpu-v5p",
    "trainium",
    "inferentia2",
    "t4",
    "v100-16gb",
    "v100-32gb",
    "a10",
    "a10g",
    "l4",
    "l40s",
    "l20",
    "h20",
    "h200",
    "gh200",
    "rtx-3060-12gb",
    "rtx-3070",
    "rtx-3080",
    "rtx-3080-ti",
    "rtx-3090",
    "rtx-3090-ti",
    "rtx-4070-ti",
    "rtx-4080",
    "rtx-5080",
    "rtx-5090",
    "rtx-a4000",
    "rtx-a5000",
    "rtx-a6000",
    "rtx-4000-ada",
    "rtx-5000-ada",
    "a40",
    "mi325x",
    "rx-7900-xtx",
    "gaudi2",
    "gaudi3",
]


@pytest.fixture(scope="module")
def cat():  # type: ignore[no-untyped-def]
    return load_catalog(use_cache=False)


REQUIRED_MODELS = [
    "qwen3-next-80b-a3b",
    "qwen3-coder-30b-a3b",
    "qwen3-coder-480b-a35b",
    "qwen3-vl-8b",
    "qwen3.5-35b-a3b",
    "qwen3-embedding-8b",
    "deepseek-v3.2",
    "kimi-k2",
    "glm-4.5-air",
    "glm-4.6",
    "glm-5",
    "minimax-m1",
    "minimax-m2",
    "gemma-4-26b-a4b",
    "mistral-small-3.1-24b",
    "devstral-small-2507",
    "ernie-4.5-21b-a3b",
    "seed-oss-36b",
    "bge-m3",
]


def test_enough_entries(cat) -> None:  # type: ignore[no-untyped-def]
    assert len(cat.gpus) >= 100
    assert len(cat.models) >= 140  # issue 29: the open models people run at the end of 2026


def test_required_models_present(cat) -> None:  # type: ignore[no-untyped-def]
    ids = {m.id for m in cat.models}
    assert not [m for m in REQUIRED_MODELS if m not in ids]


def test_every_model_resolves_by_each_of_its_names(cat) -> None:  # type: ignore[no-untyped-def]
    """Its id, its name, every Hugging Face repo and every Ollama tag lead back to it."""
    wrong = []
    for m in cat.models:
        for name in (m.id, m.name, *m.hf_repos, *m.ollama_tags, *m.aliases):
            if cat.model(name).id != m.id:
                wrong.append((name, m.id))
    assert not wrong, wrong


def test_required_gpus_present(cat) -> None:  # type: ignore[no-untyped-def]
    ids = {g.id for g in cat.gpus}
    missing = [g for g in REQUIRED_GPUS if g not in ids]
    assert not missing, missing


def test_ids_unique_and_names_unambiguous(cat) -> None:  # type: ignore[no-untyped-def]
    for items in (cat.gpus, cat.models):
        ids = [x.id for x in items]
        assert len(ids) == len(set(ids))
    assert not cat.name_clashes, cat.name_clashes


def test_every_source_used_and_dated() -> None:
    cat = load_catalog(use_cache=False)
    used: set[str] = set()
    for entry in (
        *cat.gpus,
        *cat.models,
        *cat.offers,
        *cat.providers.values(),
        *cat.hidden_costs.values(),
        *(x for v in cat.extras.values() for x in v),
    ):
        used.update(entry.source_ids())
    defined = set(cat.sources)
    assert not used - defined
    assert not defined - used, sorted(defined - used)
    today = dt.date.today()
    for s in cat.sources.values():
        assert dt.date(2015, 1, 1) <= s.retrieved <= today, s.id
        assert re.match(r"^(https?://\S+|file:\S+)$", s.url), s.id


def test_dense_tflops_not_mixed_with_sparse(cat) -> None:  # type: ignore[no-untyped-def]
    """Each precision step roughly doubles the dense rate; a sparse figure breaks the ratio."""
    for g in cat.gpus:
        tf = g.tflops
        half = tf.bf16 or tf.fp16
        if half and tf.fp8:  # 2× on GPUs; some accelerators run FP8 at the BF16 rate
            ratio = tf.fp8 / half
            same_rate = g.vendor not in ("nvidia", "amd") and ratio == 1  # Trainium, Gaudi 3
            assert 1.8 <= ratio <= 2.2 or same_rate, (g.id, tf)
        if half and tf.tf32 and g.vendor == "nvidia":
            assert 0.2 <= tf.tf32 / half <= 0.55, (g.id, tf)
        if tf.bf16 and tf.fp16:
            assert 0.45 <= tf.bf16 / tf.fp16 <= 1.05, (g.id, tf)
        tensor_cores = g.architecture != "Pascal"  # P40/P100: the 16-bit figure is vector
        if (
            half
            and tf.fp32
            and g.vendor == "nvidia"
            and g.gpu_class == "datacenter"
            and tensor_cores
        ):
            # Tensor rate vs FP32: H20 148 / 44; GA102/AD102 data-center cards (A10G, L40, L20)
            # run FP16/BF16 tensor with FP32 accumulate at 2x FP32. A vector FP16 figure is 1x.
            assert half / tf.fp32 >= 1.9, (g.id, tf)


def test_gpu_numbers_plausible(cat) -> None:  # type: ignore[no-untyped-def]
    for g in cat.gpus:
        assert 4 <= g.memory_gb <= 512, g.id
        if g.memory_bandwidth_gbps:
            assert 50 <= g.memory_bandwidth_gbps <= 10000, g.id
        if g.tdp_w:
            assert 5 <= g.tdp_w <= 1500, g.id


def test_model_params_match_architecture(cat) -> None:  # type: ignore[no-untyped-def]
    """The stated size must agree with the shapes, or the memory estimates would be wrong."""
    bad = []
    for m in cat.models:
        counted = count_params(m)
        if abs(counted.total / 1e9 - m.params_b) / m.params_b > 0.06:
            bad.append((m.id, m.params_b, round(counted.total / 1e9, 2)))
    assert not bad, bad


def test_every_file_parses_alone() -> None:
    for path in builtin_files():
        data, _ = read_toml(Path(path))
        assert data, path


@pytest.mark.parametrize(
    ("name", "gpu_id"),
    [
        ("4090", "rtx-4090"),
        ("RTX 4090", "rtx-4090"),
        ("RTX4090", "rtx-4090"),
        ("A100 80G", "a100-80gb"),
        ("a100-80gb", "a100-80gb"),
        ("A100-80GB", "a100-80gb"),
        ("A100", "a100-40gb"),
        ("H100", "h100-sxm"),
        ("nvidia geforce rtx 4090", "rtx-4090"),
    ],
)
def test_gpu_aliases(cat, name: str, gpu_id: str) -> None:  # type: ignore[no-untyped-def]
    assert cat.gpu(name).id == gpu_id


@pytest.mark.parametrize(
    ("name", "model_id"),
    [
        ("Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b"),
        ("qwen2.5:7b", "qwen2.5-7b"),
        ("llama3.1:70b", "llama-3.1-70b"),
        ("meta-llama/Llama-3.1-8B", "llama-3.1-8b"),
        ("qwen2.5:7b-instruct-q4_K_M", "qwen2.5-7b"),
        # a longer Ollama tag names a different model than its name:size prefix (issue 29)
        ("qwen3:30b-a3b-instruct-2507-q4_K_M", "qwen3-30b-a3b-2507"),
        ("qwen3:30b-a3b-q4_K_M", "qwen3-30b-a3b"),
        ("qwen3-embedding:8b-fp16", "qwen3-embedding-8b"),
        ("Qwen/Qwen3-Next-80B-A3B-Thinking", "qwen3-next-80b-a3b"),
        ("zai-org/GLM-5.1", "glm-5"),
    ],
)
def test_model_names(cat, name: str, model_id: str) -> None:  # type: ignore[no-untyped-def]
    assert cat.model(name).id == model_id


def test_a_repo_named_for_another_training_stage_is_the_same_model() -> None:
    """Blind wave 8 asked for Qwen/Qwen3-8B-Base and was refused: the base and the tuned
    checkpoints of one release share their config, so a stage suffix resolves to the model;
    a format (-FP8) or another release is never guessed."""
    cat = load_catalog()
    assert cat.model("Qwen/Qwen3-8B-Base").id == cat.model("Qwen/Qwen3-8B").id
    assert cat.model("google/gemma-3-27b-pt").id == cat.model("gemma3:27b").id
    with pytest.raises(UserError):
        cat.model("Qwen/Qwen3-8B-FP8")
    with pytest.raises(UserError):
        cat.model("Qwen/Qwen3-8B-Base-Base-Turbo")
