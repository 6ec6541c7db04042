"""`--to ollama`: a Modelfile and the server's environment that match the plan's estimate.

The plan sized each request's KV cache (the whole context for local chat, where Ollama
allocates it up front) and the number of requests served at once; Ollama allocates num_ctx
tokens per parallel slot, so num_ctx is the plan's KV tokens per request and
OLLAMA_NUM_PARALLEL its concurrency. num_gpu offloads every layer where the plan fitted the
whole model on the GPU, and only the blocks the cards hold where it runs the rest from system
RAM (CPU offload: the blocks' share left on the cards, rounded down, the output layer in RAM
with the last blocks), the KV-cache type is the one the estimate used, and flash attention is on
where the estimate assumed it.
"""

from __future__ import annotations

from typing import Any

from gpuwise.export.common import Export, Note, header, script, slug, yaml_text
from gpuwise.export.tables import ExportTables
from gpuwise.export.view import ExportView


def num_ctx(v: ExportView) -> int:
    """Tokens of KV cache per parallel slot: what the plan sized per request."""
    return v.kv_tokens_per_request or v.context_tokens


def num_gpu(v: ExportView, t: ExportTables) -> int:
    """Layers to put on the GPU: all of the model's blocks and its output layer, or, where the
    plan runs a share of the weights from system RAM, the blocks the rest amounts to."""
    if v.offload_fraction:
        return int(v.model_layers * (1 - v.offload_fraction))
    return v.model_layers + int(t.setting("ollama_output_layers"))


def environment(v: ExportView, t: ExportTables, flash: bool) -> dict[str, str]:
    """The server's variables (names from the catalog)."""
    kv = t.value("ollama_kv_cache_type", v.kv_dtype or "f16") or "f16"
    return {
        t.flag("ollama", "num_parallel"): str(v.concurrency),
        t.flag("ollama", "kv_cache_type"): kv,
        t.flag("ollama", "flash_attention"): "1" if flash else "0",
    }


def modelfile_lines(v: ExportView, t: ExportTables) -> list[str]:
    """FROM the tag, with the context and offload the plan sized."""
    assert v.ollama_tag is not None
    return [
        f"FROM {v.ollama_tag}",
        f"PARAMETER {t.flag('ollama', 'num_ctx')} {num_ctx(v)}",
        f"PARAMETER {t.flag('ollama', 'num_gpu')} {num_gpu(v, t)}",
    ]


def modelfile(v: ExportView, t: ExportTables) -> str:
    """The Modelfile, its header first."""
    return header(v, "ollama") + "\n".join(modelfile_lines(v, t)) + "\n"


def export_ollama(v: ExportView, t: ExportTables) -> Export:
    """Modelfile, ollama.env, run.sh and compose.yaml (Ollama's image as `setup` pins it)."""
    env = environment(v, t, v.attention == "flash")
    name = slug(v)
    env_text = header(v, "ollama") + "".join(f"{k}={val}\n" for k, val in env.items())
    body = [
        "# The server reads these variables: where Ollama runs as a service, put ollama.env",
        "# into its environment (systemctl edit ollama) instead of starting it here.",
        'cd "$(dirname "$0")"',
        "set -a; . ./ollama.env; set +a",
        "ollama serve &",
        "until ollama list >/dev/null 2>&1; do sleep 1; done",
        f"ollama create {name} -f Modelfile",
        f"echo 'ready: ollama run {name}'",
        "wait",
    ]
    files = {
        "Modelfile": modelfile(v, t),
        "ollama.env": env_text,
        "run.sh": script(v, "ollama", body),
    }
    image = t.ollama_images.get("rocm" if v.stack == "rocm" else "cuda")
    if image is not None:
        files["compose.yaml"] = header(v, "ollama") + yaml_text(compose(v, t, image, env))
    return Export("ollama", files, tuple(ollama_notes(v)))


def compose(v: ExportView, t: ExportTables, image: str, env: dict[str, str]) -> dict[str, Any]:
    """Ollama's server on loopback with the plan's environment."""
    port = t.server_ports.get("ollama", 0)
    service: dict[str, Any] = {
        "image": image,
        "environment": env,
        "ports": [f"127.0.0.1:{port}:{port}"],
        "volumes": ["ollama-models:/root/.ollama"],
        "restart": "unless-stopped",
    }
    if v.vendor == "nvidia":
        device = {"driver": "nvidia", "count": v.devices, "capabilities": ["gpu"]}
        service["deploy"] = {"resources": {"reservations": {"devices": [device]}}}
    if v.vendor == "amd":
        service["devices"] = ["/dev/kfd", "/dev/dri"]
    return {
        "name": "gpuwise-ollama",
        "services": {"ollama": service},
        "volumes": {"ollama-models": {}},
    }


def ollama_notes(v: ExportView) -> list[Note]:
    """The plan sized a format the tag's file may not be (an HF model read as GGUF formats)."""
    if v.tag_quant != v.quant:
        return [("export.note_ollama_quant", {"tag": v.ollama_tag, "quant": v.quant})]
    return []
