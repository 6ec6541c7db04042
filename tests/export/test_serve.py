"""vLLM, SGLang and Ollama exports carry the plan's numbers: tensor-parallel size = the devices
of one replica (a machine's, when a service runs one replica per machine), maximum model length
= the scenario's context, memory share = the share the plan sized the job in, quantization and
KV-cache dtype = the formats sized, maximum sequences = the concurrency per replica.

Options are picked by what they are (several machines, an NVIDIA card, the Atlas 300I Duo), not
by rank, so a change in the planner's ranking does not change what a test checks."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import yaml

from gpuwise.advise.engines import stack_of
from gpuwise.catalog.reading import read_model_name
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.export.serve import serve_args
from tests.export.conftest import first
from tests.export.helpers import bash_syntax_ok, command_words, flag_values


def _nvidia(o: Any) -> bool:
    return bool(o.candidate.gpu.vendor == "nvidia")


def test_vllm_numbers_equal_the_plans(
    export: Any, plans: Any, catalog: Any, tables: Any, tmp_path: Path
) -> None:
    plan, w = plans["cost-extreme"], plans["cost-extreme"].scenario.workload
    replicated = first(plan, lambda o: 1 < o.candidate.nodes == o.sized.replicas)
    for n in {1, replicated}:
        o = plan.options[n - 1]
        _, e = export("cost-extreme", "vllm", n)
        flags = flag_values(command_words(e.files["serve.sh"], "vllm serve"))
        assert flags["--tensor-parallel-size"] == str(o.candidate.node_devices)
        assert o.sized.replicas == o.candidate.nodes  # a service runs one replica per machine
        assert flags["--max-model-len"] == str(w.context)
        share = MemoryConstants.from_catalog(catalog).engine("vllm").preallocate_fraction
        assert float(flags["--gpu-memory-utilization"] or 0) == share
        assert flags["--max-num-seqs"] == str(math.ceil(w.concurrency / o.sized.replicas))
        stack = stack_of(o.candidate.gpu)
        method = tables.value("vllm_quantization", f"{o.sized.quant}.{stack}")
        assert flags.get("--quantization") == (
            method or tables.value("vllm_quantization", o.sized.quant)
        )
        assert "--pipeline-parallel-size" not in flags
        bash_syntax_ok(e.files["serve.sh"], tmp_path)


def test_vllm_compose_runs_the_same_command_on_the_pinned_image(
    export: Any, catalog: Any, plans: Any
) -> None:
    n = first(plans["cost-extreme"], _nvidia)
    v, e = export("cost-extreme", "vllm", n)
    service = yaml.safe_load(e.files["compose.yaml"])["services"]["vllm"]
    words = command_words(e.files["serve.sh"], "vllm serve")
    assert service["entrypoint"] == ["vllm", "serve"]
    assert service["command"][1:] == words[3:]  # after `vllm serve MODEL`
    pins = [p.version for p in catalog.extra("package_pin") if p.package == "vllm"]
    assert service["image"].removeprefix("vllm/vllm-openai:v") in pins  # a release setup pins
    devices = service["deploy"]["resources"]["reservations"]["devices"][0]
    assert devices["count"] == v.devices_per_replica
    # one replica per container: a machine holds a whole number of them (8 cards, 2 × TP 4)
    assert plans["cost-extreme"].options[n - 1].candidate.node_devices % devices["count"] == 0


def test_every_flag_is_in_the_published_flag_list(export: Any, plans: Any, tables: Any) -> None:
    n = first(plans["cost-extreme"], _nvidia)
    for target, start in (("vllm", "vllm serve"), ("sglang", "python3 -m sglang.launch_server")):
        _, e = export("cost-extreme", target, n)
        known = {value for key, value in tables.flags.items() if key.startswith(f"{target}.")}
        used = {w for w in command_words(e.files["serve.sh"], start) if w.startswith("--")}
        assert used and used <= known, used - known


def test_sglang_numbers_and_memory_share(export: Any, plans: Any, catalog: Any) -> None:
    n = first(plans["cost-extreme"], _nvidia)
    v, e = export("cost-extreme", "sglang", n)
    o, w = plans["cost-extreme"].options[n - 1], plans["cost-extreme"].scenario.workload
    flags = flag_values(command_words(e.files["serve.sh"], "python3 -m sglang.launch_server"))
    assert flags["--tp-size"] == str(v.devices_per_replica)  # each replica's own cards
    assert o.candidate.node_devices % v.devices_per_replica == 0
    assert flags["--context-length"] == str(w.context)
    share = MemoryConstants.from_catalog(catalog).engine("sglang").preallocate_fraction
    assert float(flags["--mem-fraction-static"] or 0) == share
    assert flags["--max-running-requests"] == str(math.ceil(w.concurrency / o.sized.replicas))
    assert flags["--port"] == "30000"


def test_ascend_option_goes_to_vllm_ascend(export: Any, plans: Any) -> None:
    n = first(plans["enterprise-domestic"], lambda o: o.candidate.gpu.id == "atlas-300i-duo")
    _, e = export("enterprise-domestic", "vllm", n)
    o = plans["enterprise-domestic"].options[n - 1]
    flags = flag_values(command_words(e.files["serve.sh"], "vllm serve"))
    assert flags["--tensor-parallel-size"] == str(o.candidate.count)  # every chip of the cards
    assert flags["--dtype"] == "float16"  # the 310P runs float16 only (and W8A8's other layers)
    if o.sized.quant == "int8-w8a8":  # msModelSlim W8A8 on vllm-ascend: a checkpoint to make
        assert flags["--quantization"] == "ascend"
        assert dict(e.notes)["export.note_checkpoint"]["method"] == "msModelSlim W8A8"
    assert "compose.yaml" not in e.files  # an NPU container needs the driver mounted
    note = dict(e.notes)["export.note_container"]
    assert note["image"] == "quay.io/ascend/vllm-ascend:v0.11.0-310p"


def test_ollama_matches_the_estimate(export: Any, plans: Any, catalog: Any, tmp_path: Path) -> None:
    _, e = export("individual", "ollama")
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


def test_replicas_and_checkpoint_formats_are_said(export: Any, plans: Any, tables: Any) -> None:
    plan = plans["cost-extreme"]
    n = first(plan, lambda o: o.sized.replicas > 1 and o.sized.machines_per_replica == 1)
    assert "export.note_replicas" in dict(export("cost-extreme", "vllm", n)[1].notes)
    awq = first(
        plan,
        lambda o: (
            tables.value("vllm_quantization", o.sized.quant) == "awq"
            and o.sized.machines_per_replica == 1
        ),  # a replica over machines is not exported
    )
    note = dict(export("cost-extreme", "vllm", awq)[1].notes)["export.note_checkpoint"]
    assert note["method"] == "AWQ"


def test_dp_attention_layout_is_launched_with_the_engines_flags(view: Any, tables: Any) -> None:
    """A plan that sized an MLA model with DP attention exports the flags that run it so."""
    v = view("cost-extreme", 1, strategy="dp-attention", devices=8, machines=1, replicas=1)
    sglang = flag_values(serve_args(v, tables, "sglang", "deepseek-ai/DeepSeek-V3.2"))
    assert sglang["--tp-size"] == "8" and sglang["--dp-size"] == "8"
    assert "--enable-dp-attention" in sglang
    vllm = flag_values(serve_args(v, tables, "vllm", "deepseek-ai/DeepSeek-V3.2"))
    assert vllm["--tensor-parallel-size"] == "1" and vllm["--data-parallel-size"] == "8"
    assert "--enable-expert-parallel" in vllm
    assert vllm["--max-num-seqs"] == str(-(-v.concurrency_per_replica // 8))


def test_step_budget_goes_to_each_engines_own_flag(view: Any, tables: Any) -> None:
    """The step token budget the plan chose is passed as vLLM's --max-num-batched-tokens and
    SGLang's --chunked-prefill-size; no flag where the plan kept the engine's default."""
    v = view("cost-extreme", 1, step_tokens=16384)
    assert flag_values(serve_args(v, tables, "vllm", "m"))["--max-num-batched-tokens"] == "16384"
    assert flag_values(serve_args(v, tables, "sglang", "m"))["--chunked-prefill-size"] == "16384"
    plain = view("cost-extreme", 1, step_tokens=None)
    for engine in ("vllm", "sglang"):
        words = serve_args(plain, tables, engine, "m")
        assert "--max-num-batched-tokens" not in words and "--chunked-prefill-size" not in words
