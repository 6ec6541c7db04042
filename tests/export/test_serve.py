"""vLLM, SGLang and Ollama exports carry the plan's numbers: tensor-parallel size = the devices
of one replica (a machine's, when a service runs one replica per machine), maximum model length
= the scenario's context, memory share = the share the plan sized the job in, quantization and
KV-cache dtype = the formats sized, maximum sequences = the concurrency per replica."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import yaml

from gpuwise.catalog.reading import read_model_name
from gpuwise.estimate.constants import MemoryConstants
from tests.export.helpers import bash_syntax_ok, command_words, flag_values


def test_vllm_numbers_equal_the_plans(
    export: Any, plans: Any, catalog: Any, tmp_path: Path
) -> None:
    _v, e = export("cost-extreme", "vllm")
    o, w = plans["cost-extreme"].options[0], plans["cost-extreme"].scenario.workload
    words = command_words(e.files["serve.sh"], "vllm serve")
    flags = flag_values(words)
    assert flags["--tensor-parallel-size"] == str(o.candidate.node_devices)
    assert o.sized.replicas == o.candidate.nodes  # a service runs one replica per machine
    assert flags["--max-model-len"] == str(w.context)
    share = MemoryConstants.from_catalog(catalog).engine("vllm").preallocate_fraction
    assert float(flags["--gpu-memory-utilization"] or 0) == share
    assert flags["--max-num-seqs"] == str(math.ceil(w.concurrency / o.sized.replicas))
    assert o.sized.quant == "int4-awq" and flags["--quantization"] == "awq"
    assert "--pipeline-parallel-size" not in flags
    bash_syntax_ok(e.files["serve.sh"], tmp_path)


def test_vllm_compose_runs_the_same_command_on_the_pinned_image(export: Any, catalog: Any) -> None:
    v, e = export("cost-extreme", "vllm")
    doc = yaml.safe_load(e.files["compose.yaml"])
    service = doc["services"]["vllm"]
    words = command_words(e.files["serve.sh"], "vllm serve")
    assert service["entrypoint"] == ["vllm", "serve"]
    assert service["command"][1:] == words[3:]  # after `vllm serve MODEL`
    pins = [p.version for p in catalog.extra("package_pin") if p.package == "vllm"]
    assert service["image"].removeprefix("vllm/vllm-openai:v") in pins  # a release setup pins
    devices = service["deploy"]["resources"]["reservations"]["devices"][0]
    assert devices["count"] == v.devices_per_replica == 4


def test_every_flag_is_in_the_published_flag_list(export: Any, tables: Any) -> None:
    for target, start in (("vllm", "vllm serve"), ("sglang", "python3 -m sglang.launch_server")):
        _, e = export("cost-extreme", target)
        known = {value for key, value in tables.flags.items() if key.startswith(f"{target}.")}
        used = {w for w in command_words(e.files["serve.sh"], start) if w.startswith("--")}
        assert used and used <= known, used - known


def test_sglang_numbers_and_memory_share(export: Any, plans: Any, catalog: Any) -> None:
    _, e = export("cost-extreme", "sglang")
    o, w = plans["cost-extreme"].options[0], plans["cost-extreme"].scenario.workload
    flags = flag_values(command_words(e.files["serve.sh"], "python3 -m sglang.launch_server"))
    assert flags["--tp-size"] == str(o.candidate.node_devices)
    assert flags["--context-length"] == str(w.context)
    share = MemoryConstants.from_catalog(catalog).engine("sglang").preallocate_fraction
    assert float(flags["--mem-fraction-static"] or 0) == share
    assert flags["--max-running-requests"] == str(math.ceil(w.concurrency / o.sized.replicas))
    assert flags["--port"] == "30000"


def test_ascend_option_goes_to_vllm_ascend(export: Any, plans: Any) -> None:
    _v, e = export("enterprise-domestic", "vllm")
    o = plans["enterprise-domestic"].options[0]
    assert o.candidate.gpu.id == "atlas-300i-duo"
    flags = flag_values(command_words(e.files["serve.sh"], "vllm serve"))
    assert flags["--tensor-parallel-size"] == str(o.candidate.count)  # both chips of the card
    assert flags["--dtype"] == "float16"  # the 310P runs float16 only (compute precision fp16)
    assert "compose.yaml" not in e.files  # an NPU container needs the driver mounted
    assert dict(e.notes)["export.note_container"]["image"] == (
        "quay.io/ascend/vllm-ascend:v0.11.0-310p"
    )


def test_ollama_matches_the_estimate(export: Any, plans: Any, catalog: Any, tmp_path: Path) -> None:
    _v, e = export("individual", "ollama")
    o, s = plans["individual"].options[0], plans["individual"].scenario
    lines = e.files["Modelfile"].splitlines()
    assert f"FROM {s.workload.model}" in lines
    params = dict(line.split()[1:] for line in lines if line.startswith("PARAMETER"))
    assert int(params["num_ctx"]) == o.sized.kv_tokens_per_request == s.workload.context
    layers = read_model_name(catalog, s.workload.model).model.layers
    assert int(params["num_gpu"]) == layers + 1  # every block and the output layer
    env = dict(line.split("=", 1) for line in e.files["ollama.env"].splitlines() if "=" in line)
    inputs = o.sized.memory.inputs
    assert env["OLLAMA_NUM_PARALLEL"] == "1"
    assert env["OLLAMA_KV_CACHE_TYPE"] == inputs["kv_dtype"]
    assert env["OLLAMA_FLASH_ATTENTION"] == ("1" if inputs["attention"] == "flash" else "0")
    compose = yaml.safe_load(e.files["compose.yaml"])["services"]["ollama"]
    assert compose["environment"] == env
    bash_syntax_ok(e.files["run.sh"], tmp_path)


def test_replicas_are_said(export: Any) -> None:
    _, e = export("cost-extreme", "vllm")
    keys = [k for k, _ in e.notes]
    assert "export.note_replicas" in keys and "export.note_checkpoint" in keys
