"""`--to skypilot`: a SkyPilot task YAML for the plan option.

resources: the provider's SkyPilot infra where SkyPilot launches on it (an SSH node pool for
hardware you own; none, with a note, for a cloud SkyPilot does not know), the card by
SkyPilot's accelerator name and the devices of one machine, spot per the plan's billing, a disk
that holds the checkpoint, the engine's port for a server. Training across machines is
num_nodes machines running torchrun with SkyPilot's node variables; a service across machines
is a SkyServe service of one replica per machine, as the plan sized it.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from gpuwise.export.check import GGUF_ENGINES
from gpuwise.export.common import Export, Note, command_line, disk_gb, header, slug, yaml_text
from gpuwise.export.ollama import environment, modelfile_lines
from gpuwise.export.serve import health_path, port_of, serve_args, serve_notes
from gpuwise.export.tables import ExportTables
from gpuwise.export.train import (
    DS_CONFIG,
    ds_config,
    script_env,
    torchrun_line,
    trainer_args,
    uses_deepspeed,
)
from gpuwise.export.view import ExportView
from gpuwise.i18n import t as message


def infra_of(v: ExportView, t: ExportTables) -> tuple[str | None, list[Note]]:
    """SkyPilot's infra for the option, and what to tell the user about it."""
    if v.owned:
        return t.clouds.get("own"), [("export.note_sky_own", {})]
    infra = t.clouds.get(v.provider or "")
    if infra is None:
        name = v.provider_name or v.provider or ""
        alternatives = f"{t.clouds.get('kubernetes')}, {t.clouds.get('own')}/<pool>"
        return None, [
            ("export.note_sky_provider", {"provider": name, "alternatives": alternatives})
        ]
    return infra, []


def resources(v: ExportView, t: ExportTables, infra: str | None) -> dict[str, Any]:
    """The resources block: where, which card × how many per machine, spot, disk, port. A
    service of several replicas asks for one replica's devices: SkyPilot Serve gives each
    replica a machine of its own (where the plan packed several copies on one machine's
    cards, SkyPilot may rent smaller machines for them)."""
    res: dict[str, Any] = {}
    if infra:
        res["infra"] = infra
    per_machine = v.devices_per_replica if v.kind != "train" and v.replicas > 1 else None
    res["accelerators"] = f"{t.accelerator(v.gpu, infra)}:{per_machine or v.devices_per_node}"
    res["use_spot"] = v.billing == "spot"
    res["disk_size"] = disk_gb(v, t)
    if v.kind != "train":
        res["ports"] = port_of(t, _server_engine(v))
        image = _image(v, t)
        if image:
            res["image_id"] = t.flag("skypilot", "docker_image") + image
    return res


def _server_engine(v: ExportView) -> str:
    return "ollama" if v.engine in GGUF_ENGINES else v.engine


def _image(v: ExportView, t: ExportTables) -> str | None:
    """The serving engine's pinned image (setup's Ollama image for a GGUF plan)."""
    if v.engine in GGUF_ENGINES:
        return t.ollama_images.get("rocm" if v.stack == "rocm" else "cuda")
    image = t.image(v.engine, v.stack, v.gpu)
    return image.ref if image else None


def serve_run(v: ExportView, t: ExportTables) -> str:
    """The run section of a server: the engine inside its image."""
    if v.engine in GGUF_ENGINES:
        env = " ".join(f"{k}={val}" for k, val in environment(v, t, v.attention == "flash").items())
        model = "\n".join(modelfile_lines(v, t))
        return "\n".join(
            [
                f"cat > Modelfile <<'EOF'\n{model}\nEOF",
                f"{env} OLLAMA_HOST=0.0.0.0 ollama serve &",
                "until ollama list >/dev/null 2>&1; do sleep 1; done",
                f"ollama create {slug(v)} -f Modelfile",
                "wait",
            ]
        )
    return command_line(serve_args(v, t, v.engine, '"$MODEL"'))


def train_run(v: ExportView, t: ExportTables) -> str:
    """torchrun on every node: SkyPilot's node rank, the head node's address."""
    f = partial(t.flag, "skypilot")
    head = f'MASTER_ADDR=$(echo "${f("node_ips")}" | head -n1)'
    words = torchrun_line(v, t, f'"${{{f("node_rank")}}}"', '"$MASTER_ADDR"')
    lines = [head, *script_env(v)]
    if uses_deepspeed(v):
        lines.append(f"cat > {DS_CONFIG} <<'EOF'\n{json.dumps(ds_config(v, t), indent=2)}\nEOF")
    lines.append(command_line([*words, *trainer_args(v, t)]))
    return "\n".join(lines)


def task(v: ExportView, t: ExportTables) -> tuple[dict[str, Any], list[Note]]:
    """The task document and the notes about infra and billing."""
    infra, notes = infra_of(v, t)
    doc: dict[str, Any] = {"name": slug(v)}
    if v.kind == "train":
        doc["num_nodes"] = v.machines
        doc["resources"] = resources(v, t, infra)
        doc["workdir"] = "."
        doc["setup"] = "pip install -r requirements.txt\n"
        doc["run"] = train_run(v, t) + "\n"
        notes.append(("export.note_sky_train", {"gpu": v.gpu}))
    else:
        doc["resources"] = resources(v, t, infra)
        if v.engine not in GGUF_ENGINES:
            doc["envs"] = {"MODEL": v.hf_repo}
        if v.replicas > 1:
            doc["service"] = {"readiness_probe": _health(v, t), "replicas": v.replicas}
        doc["run"] = serve_run(v, t) + "\n"
        notes += [n for n in serve_notes(v, t, v.engine) if n[0] != "export.note_replicas"]
    if v.billing not in (None, "spot", "on-demand"):
        notes.append(("export.note_sky_billing", {"billing": message(f"billing.{v.billing}")}))
    return doc, notes


def _health(v: ExportView, t: ExportTables) -> str:
    return health_path(t, _server_engine(v))


def export_skypilot(v: ExportView, t: ExportTables) -> Export:
    """task.yaml, launched with `sky launch` (or `sky serve up` for a service)."""
    doc, notes = task(v, t)
    command = t.flag("skypilot", "serve_command" if "service" in doc else "launch_command")
    head = header(v, "skypilot") + f"# {command} task.yaml\n"
    return Export("skypilot", {"task.yaml": head + yaml_text(doc)}, tuple(notes))
