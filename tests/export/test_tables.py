"""The export catalog agrees with the rest of the catalog: every card, provider and vendor it
names exists, the vLLM image is the release `setup` pins, and every flag the writers ask for
is in the table."""

from __future__ import annotations

from typing import Any

from gpuwise.export.tables import ExportTables


def test_names_point_at_catalog_entries(catalog: Any, tables: ExportTables) -> None:
    gpus = {g.id for g in catalog.gpus}
    vendors = {g.vendor for g in catalog.gpus}
    providers = set(catalog.providers)
    assert {a.gpu for a in tables.accelerators} <= gpus
    assert {g for d in tables.devices for g in d.gpus} <= gpus
    assert {d.vendor for d in tables.devices} <= vendors
    assert {g for i in tables.images for g in i.gpus} <= gpus
    assert set(tables.clouds) - {"own", "kubernetes"} <= providers


def test_vllm_image_is_a_release_setup_pins(tables: ExportTables) -> None:
    """The image runs a vLLM `setup` also pins (its CUDA 12 row: the driver of a planned
    machine is not known), and the ROCm image the same release."""
    image = tables.image("vllm", "cuda", "rtx-4090")
    assert image is not None and image.tag.removeprefix("v") in tables.setup_pins["vllm"]
    rocm = tables.image("vllm", "rocm", "mi300x")
    assert rocm is not None and f"vllm_{image.tag.removeprefix('v')}_" in rocm.tag


def test_every_serving_flag_the_writers_use_exists(tables: ExportTables) -> None:
    keys = (
        "command", "tensor_parallel", "pipeline_parallel", "max_model_len",
        "gpu_memory_utilization", "quantization", "kv_cache_dtype", "max_num_seqs", "dtype",
        "host", "port",
    )  # fmt: skip
    for engine in ("vllm", "sglang"):
        assert all(f"{engine}.{k}" in tables.flags for k in keys)


def test_longest_prefix_picks_the_family_template(tables: ExportTables) -> None:
    assert tables.longest_prefix("llamafactory_template", "qwen3-8b") == "qwen3"
    assert tables.longest_prefix("llamafactory_template", "qwen2.5-7b") == "qwen"
    assert tables.longest_prefix("llamafactory_template", "llama-3.1-70b") == "llama3"
    assert tables.longest_prefix("llamafactory_template", "bloom-176b") is None
