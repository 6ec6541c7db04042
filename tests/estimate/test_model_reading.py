"""One reading of a model name everywhere (newcomer review #7, `fit llama3.1:70b`).

`estimate` and `fit` read an Ollama tag as bf16 weights (131 GiB: no single card holds
Llama 3.1 70B) while `plan` read it as the Q4_K_M file Ollama serves (~40 GiB: one 48 GB card
does). Every command now asks gpuwise.catalog.reading, and says the reading in its output.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

from gpuwise.advise.plan import workload_model
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.catalog.reading import read_model_name

GIB = 1024**3
SINGLE_48GB = {"l40s", "l40", "a40", "rtx-6000-ada", "rtx-a6000", "l20"}


def test_fit_llama31_70b_finds_single_48gb_cards(cli: Any) -> None:
    r = cli("fit", "llama3.1:70b", "--mode", "inference", "--json")
    assert r.code == 0, r.err
    data = r.json()
    singles = {f["gpu"] for f in data["fits"] if f["count"] == 1}
    assert SINGLE_48GB & singles, singles
    assert data["reading"]["kind"] == "ollama" and data["reading"]["quant"] == "q4_k_m"
    text = cli("fit", "llama3.1:70b", "--mode", "inference")
    assert "Ollama tag" in text.out and "q4_k_m" in text.out


def test_estimate_reads_the_tag_as_ollamas_file_and_says_so(cli: Any) -> None:
    r = cli("estimate", "llama3.1:70b", "--json")
    assert r.code == 0, r.err
    data = r.json()
    assert data["inputs"]["quant"] == "q4_k_m" and data["inputs"]["engine"] == "ollama"
    assert data["memory"]["device_total_bytes"] < 48 * GIB
    assert data["notes"][0]["key"] == "model.reading.ollama_file"
    assert "is an Ollama tag" in cli("estimate", "llama3.1:70b").out
    zh = cli("estimate", "llama3.1:70b", "--lang", "zh").out
    assert "Ollama 标签" in zh


@pytest.mark.parametrize(
    ("args", "quant", "note"),
    [
        (["--quant", "bf16"], "bf16", "model.reading.ollama_quant_given"),
        (["--engine", "vllm"], None, "model.reading.ollama_engine"),
        (["--engine", "llama.cpp"], "q4_k_m", "model.reading.ollama_file"),
        (["--mode", "qlora"], "nf4", "model.reading.ollama_train"),
    ],
)
def test_the_user_or_the_engine_decides_otherwise(
    cli: Any, args: list[str], quant: str | None, note: str
) -> None:
    r = cli("estimate", "llama3.1:70b", *args, "--json")
    assert r.code == 0, r.err
    data = r.json()
    if quant is not None:
        assert data["inputs"]["quant"] == quant
    else:
        assert data["inputs"]["quant"] != "q4_k_m"  # vLLM serves the Hugging Face weights
    assert data["notes"][0]["key"] == note


def test_a_catalog_name_is_the_model_with_no_note(cli: Any) -> None:
    r = cli("estimate", "llama-3.1-70b", "--json")
    data = r.json()
    assert data["inputs"]["quant"] == "bf16" and data["model"]["reading"]["kind"] == "catalog"
    assert all(not n["key"].startswith("model.reading") for n in data["notes"])


@pytest.mark.parametrize("name", ["llama3.1:70b", "qwen2.5:7b", "llama3.1:8b-instruct-q8_0"])
def test_plan_and_estimate_read_a_tag_alike(cli: Any, name: str) -> None:
    cat = load_catalog()
    scenario = parse_scenario({"workload": {"kind": "local", "model": name}}, "test")
    model, tag_quant = workload_model(cat, scenario)
    reading = read_model_name(cat, name)
    assert (model.id, tag_quant) == (reading.model.id, reading.tag_quant)
    data = cli("estimate", name, "--json").json()
    assert data["model"]["id"] == model.id and data["inputs"]["quant"] == tag_quant


def test_record_and_models_show_use_the_same_reading(cli: Any) -> None:
    estimate = cli("estimate", "llama3.1:8b", "--json").json()
    r = cli("record", "--model", "llama3.1:8b", "--json", "--", sys.executable, "-c", "")
    assert r.code == 0, r.err
    assert r.json()["estimate"]["estimated_bytes"] == estimate["memory"]["device_total_bytes"]
    shown = cli("models", "show", "llama3.1:8b", "--json").json()
    assert shown["reading"]["kind"] == "ollama" and shown["reading"]["tag_quant"] == "q4_k_m"
