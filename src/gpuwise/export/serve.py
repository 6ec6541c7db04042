"""`--to vllm` and `--to sglang`: the serve command and a compose file, with the plan's numbers.

Tensor-parallel size is the devices one replica spans (all of a machine's devices when a
service runs one replica per machine), the maximum model length is the scenario's context, the
memory share is the one the plan fitted the job into (the engine's preallocated share from the
memory model), the quantization and KV-cache dtype are the formats the plan sized, and the
maximum number of sequences is the concurrency each replica was sized for.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

from gpuwise.export.common import Export, Note, command_line, header, number_text, script, yaml_text
from gpuwise.export.tables import ExportTables
from gpuwise.export.view import ExportView

CHECKPOINT_FORMATS = ("awq", "gptq")
"""Quantization methods that are checkpoint formats (made offline by their quantizers, loaded as
such): the model to serve must be such a checkpoint. fp8 is applied to a 16-bit checkpoint at
load time."""
MODEL_VAR = "MODEL"
COMPOSE_VENDORS = ("nvidia", "amd")
"""Vendors whose devices a compose file can hand to a container by itself (NVIDIA's device
reservation, AMD's /dev/kfd and /dev/dri); an Ascend container needs the driver mounted as the
vLLM Ascend docs show, which serve.sh leaves to that image's instructions."""
HF_CACHE = "/root/.cache/huggingface"


def parallel_sizes(v: ExportView) -> tuple[int, int]:
    """(tensor-parallel, pipeline-parallel) degrees of one replica as the plan laid it out."""
    n = v.devices_per_replica
    if v.strategy == "pp":
        return 1, n
    if v.strategy == "dp-attention":
        return n, 1
    return (n, 1) if v.strategy == "tp" or n > 1 else (1, 1)


def memory_share(v: ExportView, t: ExportTables, engine: str) -> float:
    """The share of each device the engine may take: the preallocated share the plan sized the
    job in (the memory model's value for the engine), less what the models served beside it
    take (workload.companions), rounded down to a hundredth so they keep their room."""
    share = t.preallocate.get(engine, 1.0)
    if v.companion_bytes and v.memory_capacity_bytes:
        share -= v.companion_bytes / v.memory_capacity_bytes
        share = math.floor(share * 100) / 100
    return share


def port_of(t: ExportTables, engine: str) -> int:
    """The engine's documented default port (setup's server table, SGLang's own default)."""
    if engine in t.server_ports:
        return t.server_ports[engine]
    return int(t.setting(f"{engine}_port"))


def health_path(t: ExportTables, engine: str) -> str:
    """Where the engine answers when it is ready (setup's server table, SGLang's own)."""
    if engine in t.health_paths:
        return t.health_paths[engine]
    return t.flag(engine, "health_path")


def dp_attention_args(engine: str, f: partial[str], n: int) -> list[str]:
    """DP attention over `n` devices: vLLM runs n data-parallel ranks of one device each with
    the experts spread over all of them; SGLang keeps --tp n and splits attention by --dp n."""
    if engine == "vllm":
        return [f("tensor_parallel"), "1", f("data_parallel"), str(n), f("dp_attention")]
    return [f("tensor_parallel"), str(n), f("data_parallel"), str(n), f("dp_attention")]


def serve_args(v: ExportView, t: ExportTables, engine: str, model: str) -> list[str]:
    """The server command as words: command, model, then flag/value pairs."""
    f = partial(t.flag, engine)
    words = t.flag(engine, "command").split()
    words += [model] if engine == "vllm" else [f("model"), model]
    tp, pp = parallel_sizes(v)
    if v.strategy == "dp-attention":  # attention data parallel, the rest split (layout.py)
        words += dp_attention_args(engine, f, tp)
    else:
        words += [f("tensor_parallel"), str(tp)]
    if pp > 1:
        words += [f("pipeline_parallel"), str(pp)]
    words += [f("max_model_len"), str(v.context_tokens)]
    words += [f("gpu_memory_utilization"), number_text(memory_share(v, t, engine))]
    table = f"{engine}_quantization"
    quantization = t.value(table, f"{v.quant}.{v.stack}") or t.value(table, v.quant)
    if quantization:
        words += [f("quantization"), quantization]
    dtype = t.value("serve_dtype", v.compute_precision or v.quant)
    if dtype is None and v.card_half != "bf16":  # a quantized model's other layers: 16 bits
        dtype = t.value("serve_dtype", v.card_half)
    if dtype:
        words += [f("dtype"), dtype]
    kv = t.value(f"{engine}_kv_cache_dtype", v.kv_dtype or "f16")
    if kv:
        words += [f("kv_cache_dtype"), kv]
    seqs = v.concurrency_per_replica
    if v.strategy == "dp-attention" and engine == "vllm":  # a limit of each data-parallel rank
        seqs = -(-seqs // tp)
    words += [f("max_num_seqs"), str(seqs)]
    if v.step_tokens:  # the step budget the plan chose over the engine's default
        words += [f("step_tokens"), str(v.step_tokens)]
    words += [f("host"), "0.0.0.0", f("port"), str(port_of(t, engine))]
    return words


def serve_notes(v: ExportView, t: ExportTables, engine: str) -> list[Note]:
    """What the user must know beyond the files: a pre-quantized checkpoint, several replicas."""
    notes: list[Note] = []
    method = t.value(f"{engine}_quantization", v.quant)
    # a format made offline by each stack's own quantizer (export.toml checkpoint_method)
    made_by = t.value("checkpoint_method", f"{v.quant}.{v.stack}") or t.value(
        "checkpoint_method", v.quant
    )
    if made_by:
        params = {"quant": v.quant, "method": made_by, "repo": v.hf_repo}
        notes.append(("export.note_checkpoint", params))
    elif method is not None and method in CHECKPOINT_FORMATS:
        params = {"quant": v.quant, "method": method.upper(), "repo": v.hf_repo}
        notes.append(("export.note_checkpoint", params))
    if v.replicas > 1:
        notes.append(
            ("export.note_replicas", {"replicas": v.replicas, "devices": v.devices_per_replica})
        )
    return notes


def export_server(v: ExportView, t: ExportTables, engine: str) -> Export:
    """serve.sh (runs anywhere the engine is installed) and compose.yaml (its pinned image)."""
    assert v.hf_repo is not None
    words = serve_args(v, t, engine, f'"${MODEL_VAR}"')
    body = [
        f'{MODEL_VAR}="${{{MODEL_VAR}:-{v.hf_repo}}}"',
        f"# tensor parallel {parallel_sizes(v)[0]} = devices per replica; max model length = "
        f"the scenario's context; {v.concurrency_per_replica} sequences = concurrency per replica",
        "exec " + command_line(words),
    ]
    files = {"serve.sh": script(v, engine, body)}
    notes = serve_notes(v, t, engine)
    if v.vendor in COMPOSE_VENDORS:
        files["compose.yaml"] = header(v, engine) + yaml_text(compose(v, t, engine))
    else:
        image = t.image(engine, v.stack, v.gpu)
        notes.append(("export.note_container", {"image": image.ref if image else engine}))
    return Export(engine, files, tuple(notes))


def compose(v: ExportView, t: ExportTables, engine: str) -> dict[str, Any]:
    """One service on the engine's pinned image, its devices reserved, the port on loopback."""
    image = t.image(engine, v.stack, v.gpu)
    assert image is not None and v.hf_repo is not None
    words = serve_args(v, t, engine, f"${{{MODEL_VAR}:-{v.hf_repo}}}")
    n_command = len(t.flag(engine, "command").split())
    port = port_of(t, engine)
    service: dict[str, Any] = {
        "image": image.ref,
        "entrypoint": words[:n_command],
        "command": words[n_command:],
        "ipc": "host",
        "ports": [f"127.0.0.1:{port}:{port}"],
        "environment": {"HF_TOKEN": "${HF_TOKEN:-}"},
        "volumes": [f"hf-cache:{HF_CACHE}"],
        "restart": "unless-stopped",
    }
    service.update(device_access(v))
    return {"name": f"gpuwise-{engine}", "services": {engine: service}, "volumes": {"hf-cache": {}}}


def device_access(v: ExportView) -> dict[str, Any]:
    """How a compose service reaches the devices: NVIDIA's device reservation (the replica's
    count), AMD's /dev/kfd and /dev/dri."""
    if v.vendor == "nvidia":
        device = {"driver": "nvidia", "count": v.devices_per_replica, "capabilities": ["gpu"]}
        return {"deploy": {"resources": {"reservations": {"devices": [device]}}}}
    if v.vendor == "amd":
        return {"devices": ["/dev/kfd", "/dev/dri"], "group_add": ["video"]}
    return {}
