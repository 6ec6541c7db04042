"""`--to k8s`: Kubernetes manifests for the plan option.

Serving is a Deployment of the plan's replicas (one per machine when the service spans several)
and a ClusterIP Service; each pod requests the devices of one replica by the vendor's
device-plugin resource, host memory for the checkpoint it loads plus a memory-backed /dev/shm of
the size the engines' own manifests use, and runs the engine's pinned image with the plan's
flags. Training on one machine is a batch Job; across machines a Kubeflow PyTorchJob (one
Master, the other machines as Workers) running torchrun with the operator's rank variables.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from gpuwise.export.check import GGUF_ENGINES
from gpuwise.export.common import (
    Export,
    Note,
    command_line,
    header,
    pod_memory_gib,
    shm_gib,
    slug,
    yaml_docs,
)
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

LOCAL_IMAGE = "gpuwise-{stack}:local"
"""The tag `gpuwise setup`'s compose.yaml builds (setup/render_docker.compose): the training
image, pinned by setup for the card, to be pushed to the cluster's registry."""
TRAIN_STACK = "qlora"
"""setup's stack for Transformers-based training (setup/fromplan.ENGINE_STACKS)."""
CONFIG_DIR = "/etc/gpuwise"


def _quantity(gib: float) -> str:
    """A Kubernetes quantity in Gi (Mi below one Gi)."""
    return f"{int(gib)}Gi" if gib >= 1 else f"{int(gib * 1024)}Mi"


def container_base(v: ExportView, t: ExportTables, devices: int) -> dict[str, Any]:
    """Resources and mounts every pod of the option shares."""
    resource = t.device(v.vendor, v.gpu)
    assert resource is not None
    memory = _quantity(pod_memory_gib(v, t))
    limits = {resource: devices, "memory": memory}
    return {
        "resources": {"requests": dict(limits), "limits": dict(limits)},
        "volumeMounts": [
            {"name": "shm", "mountPath": "/dev/shm"},
            {"name": "cache", "mountPath": "/root/.cache"},
        ],
    }


def volumes(v: ExportView, t: ExportTables, config: bool = False) -> list[dict[str, Any]]:
    """Memory-backed /dev/shm sized per vendor, a download cache, the config map if any."""
    out: list[dict[str, Any]] = [
        {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": _quantity(shm_gib(v, t))}},
        {"name": "cache", "emptyDir": {}},
    ]
    if config:
        out.append({"name": "config", "configMap": {"name": f"{slug(v)}-config"}})
    return out


def serving(v: ExportView, t: ExportTables) -> list[dict[str, Any]]:
    """Deployment + Service."""
    name, labels = slug(v), {"app": slug(v)}
    gguf = v.engine in GGUF_ENGINES
    engine = "ollama" if gguf else v.engine
    port = port_of(t, engine)
    container = {
        "name": engine,
        "image": _serving_image(v, t),
        **container_base(v, t, v.devices_per_replica),
        "ports": [{"containerPort": port}],
        "readinessProbe": {"httpGet": {"path": health_path(t, engine), "port": port}},
    }
    if gguf:
        env = {**environment(v, t, v.attention == "flash"), "OLLAMA_HOST": f"0.0.0.0:{port}"}
        container["env"] = [{"name": k, "value": val} for k, val in env.items()]
        container["command"] = ["bash", "-c", _ollama_start(v, t)]
    else:
        words = serve_args(v, t, engine, v.hf_repo or "")
        container["command"] = words[: len(t.flag(engine, "command").split())]
        container["args"] = words[len(container["command"]) :]
    pod = {"containers": [container], "volumes": volumes(v, t)}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": labels},
        "spec": {
            "replicas": v.replicas,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": pod},
        },
    }
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name},
        "spec": {"selector": labels, "ports": [{"port": port, "targetPort": port}]},
    }
    return [deployment, service]


def _serving_image(v: ExportView, t: ExportTables) -> str:
    if v.engine in GGUF_ENGINES:
        return t.ollama_images.get("rocm" if v.stack == "rocm" else "cuda", "")
    image = t.image(v.engine, v.stack, v.gpu)
    assert image is not None
    return image.ref


def _ollama_start(v: ExportView, t: ExportTables) -> str:
    modelfile = "\n".join(modelfile_lines(v, t))
    return "\n".join(
        [
            "ollama serve &",
            "until ollama list >/dev/null 2>&1; do sleep 1; done",
            f"printf '%s\\n' {json.dumps(modelfile)} > /tmp/Modelfile",
            f"ollama create {slug(v)} -f /tmp/Modelfile",
            "wait",
        ]
    )


def training(v: ExportView, t: ExportTables) -> list[dict[str, Any]]:
    """ConfigMap (DeepSpeed config, if any) + Job, or + PyTorchJob across machines."""
    docs: list[dict[str, Any]] = []
    config = uses_deepspeed(v)
    if config:
        docs.append(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": f"{slug(v)}-config"},
                "data": {DS_CONFIG: json.dumps(ds_config(v, t), indent=2)},
            }
        )
    docs.append(_pytorchjob(v, t, config) if v.machines > 1 else _job(v, t, config))
    return docs


def _train_container(
    v: ExportView, t: ExportTables, config: bool, rank: str, head: str
) -> dict[str, Any]:
    words = torchrun_line(v, t, rank, head) + trainer_args(v, t)
    if config:
        words = [f"{CONFIG_DIR}/{DS_CONFIG}" if w == DS_CONFIG else w for w in words]
    base = container_base(v, t, v.devices_per_node)
    if config:
        base["volumeMounts"].append({"name": "config", "mountPath": CONFIG_DIR})
    script = "\n".join([*script_env(v), command_line(words)])
    return {
        "name": "pytorch",
        "image": LOCAL_IMAGE.format(stack=TRAIN_STACK),
        "command": ["bash", "-c", script],
        **base,
    }


def _pod(v: ExportView, t: ExportTables, config: bool, rank: str, head: str) -> dict[str, Any]:
    return {
        "restartPolicy": "Never" if v.machines == 1 else "OnFailure",
        "containers": [_train_container(v, t, config, rank, head)],
        "volumes": volumes(v, t, config),
    }


def _job(v: ExportView, t: ExportTables, config: bool) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": slug(v)},
        "spec": {
            "backoffLimit": 0,
            "template": {"spec": _pod(v, t, config, "0", "127.0.0.1")},
        },
    }


def _pytorchjob(v: ExportView, t: ExportTables, config: bool) -> dict[str, Any]:
    f = partial(t.flag, "kubeflow")
    pod = _pod(v, t, config, f'"${{{f("node_rank")}}}"', f'"${{{f("master_addr")}}}"')
    specs = {
        "Master": {"replicas": 1, "restartPolicy": "OnFailure", "template": {"spec": pod}},
        "Worker": {
            "replicas": v.machines - 1,
            "restartPolicy": "OnFailure",
            "template": {"spec": pod},
        },
    }
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": slug(v)},
        "spec": {"pytorchReplicaSpecs": specs},
    }


def export_k8s(v: ExportView, t: ExportTables) -> Export:
    """k8s.yaml (every document of the option, applied with kubectl apply -f)."""
    docs = training(v, t) if v.kind == "train" else serving(v, t)
    notes: list[Note] = []
    if v.kind == "train":
        image = LOCAL_IMAGE.format(stack=TRAIN_STACK)
        notes.append(("export.note_k8s_image", {"image": image, "gpu": v.gpu}))
    if v.machines > 1 and v.kind == "train":
        notes.append(("export.note_k8s_pytorchjob", {}))
    if v.kind != "train" and v.engine not in GGUF_ENGINES:
        notes += [n for n in serve_notes(v, t, v.engine) if n[0] != "export.note_replicas"]
    text = header(v, "k8s") + "# kubectl apply -f k8s.yaml\n" + yaml_docs(docs)
    return Export("k8s", {"k8s.yaml": text}, tuple(notes))
