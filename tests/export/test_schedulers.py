"""SkyPilot task YAML and Kubernetes manifests: the plan's machines, devices per machine, card,
billing and engine numbers, checked against each tool's own loader or schema where installed
(SkyPilot's sky.Task loader, kubernetes-validate's schemas for the Kubernetes release).

Options are picked by what they are (served over several machines, rented where SkyPilot
launches, an Ascend card), not by rank."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.export.conftest import first
from tests.export.helpers import command_words, flag_values


def _sky_loads(text: str, tmp_path: Path) -> None:
    """SkyPilot's own task loader accepts the YAML (where skypilot is installed)."""
    sky = pytest.importorskip("sky")
    path = tmp_path / "task.yaml"
    path.write_text(text, encoding="utf-8")
    sky.Task.from_yaml(str(path))


def _on_sky(tables: Any) -> Callable[[Any], bool]:
    """Rented from a provider SkyPilot launches on."""
    return lambda o: o.candidate.provider is not None and o.candidate.provider.id in tables.clouds


def test_skypilot_service_across_machines(
    export: Any, plans: Any, tables: Any, tmp_path: Path
) -> None:
    on_sky = _on_sky(tables)
    n = first(plans["cost-extreme"], lambda o: o.sized.replicas > 1 and on_sky(o))
    o = plans["cost-extreme"].options[n - 1]
    _, e = export("cost-extreme", "skypilot", n)
    doc = yaml.safe_load(e.files["task.yaml"])
    res = doc["resources"]
    infra = tables.clouds[o.candidate.provider.id]
    assert res["infra"] == infra
    name = tables.accelerator(o.candidate.gpu.id, infra)
    per_replica = o.candidate.count // o.sized.replicas  # copies may share one machine's cards
    assert res["accelerators"] == f"{name}:{per_replica}"
    assert res["use_spot"] is (o.candidate.billing == "spot")
    assert res["ports"] == 8000 and res["disk_size"] >= 256
    assert doc["service"]["replicas"] == o.sized.replicas
    assert "num_nodes" not in doc  # one replica per machine, not one job over them
    flags = flag_values(command_words(doc["run"], "vllm serve"))
    assert flags.get("--tensor-parallel-size", "1") == str(per_replica)
    assert flags["--max-model-len"] == str(plans["cost-extreme"].scenario.workload.context)
    assert e.files["task.yaml"].splitlines()[2] == "# sky serve up task.yaml"
    _sky_loads(e.files["task.yaml"], tmp_path)


def test_skypilot_training_across_machines(export: Any, plans: Any, tmp_path: Path) -> None:
    n = first(plans["multinode-train"], lambda o: o.candidate.nodes > 1)
    o = plans["multinode-train"].options[n - 1]
    _, e = export("multinode-train", "skypilot", n)
    doc = yaml.safe_load(e.files["task.yaml"])
    assert doc["num_nodes"] == o.candidate.nodes
    assert doc["resources"]["accelerators"].endswith(f":{o.candidate.node_devices}")
    assert doc["resources"]["use_spot"] is (o.candidate.billing == "spot")
    flags = flag_values(command_words(doc["run"], "torchrun"))
    assert flags["--nnodes"] == str(o.candidate.nodes)
    assert flags["--node-rank"] == "${SKYPILOT_NODE_RANK}"
    _sky_loads(e.files["task.yaml"], tmp_path)


def test_skypilot_unsupported_provider_is_said(
    export: Any, plans: Any, tables: Any, tmp_path: Path
) -> None:
    on_sky = _on_sky(tables)

    def elsewhere(o: Any) -> bool:
        named = tables.accelerator(o.candidate.gpu.id, None) is not None
        return named and o.candidate.provider is not None and not on_sky(o)

    n = first(plans["example"], elsewhere)  # a Chinese cloud SkyPilot does not launch on
    o = plans["example"].options[n - 1]
    _, e = export("example", "skypilot", n)
    doc = yaml.safe_load(e.files["task.yaml"])
    assert "infra" not in doc["resources"]
    assert doc["resources"]["accelerators"].endswith(f":{o.candidate.node_devices}")
    note = dict(e.notes)["export.note_sky_provider"]
    assert "k8s" in note["alternatives"] and "ssh" in note["alternatives"]
    _sky_loads(e.files["task.yaml"], tmp_path)


def test_skypilot_own_hardware_is_an_ssh_node_pool(
    export: Any, plans: Any, tables: Any, tmp_path: Path
) -> None:
    """The first owned option whose card SkyPilot's accelerator catalog names."""
    n = first(plans["individual"], lambda o: tables.accelerator(o.candidate.gpu.id, None))
    _, e = export("individual", "skypilot", n)
    doc = yaml.safe_load(e.files["task.yaml"])
    assert doc["resources"]["infra"] == "ssh"
    assert doc["resources"]["image_id"].startswith("docker:ollama/ollama:")
    assert "export.note_sky_own" in dict(e.notes)
    _sky_loads(e.files["task.yaml"], tmp_path)


def _validate_k8s(docs: list[dict[str, Any]]) -> None:
    """kubernetes-validate's schemas accept every document (a PyTorchJob is a custom resource:
    its pod templates are checked as PodTemplates)."""
    kv = pytest.importorskip("kubernetes_validate")
    version = kv.latest_version()
    for doc in docs:
        if doc["kind"] == "PyTorchJob":
            for spec in doc["spec"]["pytorchReplicaSpecs"].values():
                template = {"apiVersion": "v1", "kind": "PodTemplate"}
                template.update(metadata={"name": "t"}, template=spec["template"])
                kv.validate(template, version, strict=True)
        else:
            kv.validate(doc, version, strict=True)


def test_k8s_serving(export: Any, plans: Any, tables: Any) -> None:
    n = first(plans["cost-extreme"], lambda o: o.sized.replicas > 1)
    v, e = export("cost-extreme", "k8s", n)
    o = plans["cost-extreme"].options[n - 1]
    deployment, service = list(yaml.safe_load_all(e.files["k8s.yaml"]))
    assert deployment["spec"]["replicas"] == o.sized.replicas
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    resource = tables.device(o.candidate.gpu.vendor, o.candidate.gpu.id)
    per_replica = o.candidate.count // o.sized.replicas  # a pod per replica, packed by k8s
    assert container["resources"]["limits"][resource] == per_replica
    assert container["image"] == tables.image(o.sized.engine, v.stack, o.candidate.gpu.id).ref
    flags = flag_values(container["args"])
    assert flags.get("--tensor-parallel-size", "1") == str(per_replica)
    concurrency = plans["cost-extreme"].scenario.workload.concurrency
    assert flags["--max-num-seqs"] == str(math.ceil(concurrency / o.sized.replicas))
    shm = next(vol for vol in pod["volumes"] if vol["name"] == "shm")["emptyDir"]
    shm_gib = tables.settings[f"k8s_shm_gib.{o.candidate.gpu.vendor}"]
    assert shm == {"medium": "Memory", "sizeLimit": f"{shm_gib:g}Gi"}
    memory = int(container["resources"]["limits"]["memory"].removesuffix("Gi"))
    assert memory * 1024**3 >= v.checkpoint_bytes  # the pod holds the checkpoint it loads
    assert service["spec"]["ports"][0]["targetPort"] == 8000
    _validate_k8s([deployment, service])


def test_k8s_ascend_requests_the_310p_resource(export: Any, plans: Any) -> None:
    n = first(plans["enterprise-domestic"], lambda o: o.candidate.gpu.id == "atlas-300i-duo")
    _, e = export("enterprise-domestic", "k8s", n)
    deployment = next(iter(yaml.safe_load_all(e.files["k8s.yaml"])))
    limits = deployment["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]
    devices = plans["enterprise-domestic"].options[n - 1].candidate.count
    assert limits["huawei.com/Ascend310P"] == devices
    _validate_k8s([deployment])


def test_k8s_training_on_one_machine_is_a_job(export: Any, plans: Any) -> None:
    n = first(plans["small-team"], lambda o: o.candidate.nodes == 1)
    _, e = export("small-team", "k8s", n)
    docs = list(yaml.safe_load_all(e.files["k8s.yaml"]))
    job = docs[-1]
    assert job["kind"] == "Job"
    script = job["spec"]["template"]["spec"]["containers"][0]["command"][2]
    flags = flag_values(command_words(script, "torchrun"))
    node = plans["small-team"].options[n - 1].candidate.node_devices
    assert flags["--nproc-per-node"] == str(node)
    _validate_k8s(docs)


def test_k8s_training_across_machines_is_a_pytorchjob(export: Any, plans: Any) -> None:
    n = first(plans["multinode-train"], lambda o: o.candidate.nodes > 1)
    o = plans["multinode-train"].options[n - 1]
    _, e = export("multinode-train", "k8s", n)
    docs = list(yaml.safe_load_all(e.files["k8s.yaml"]))
    job = docs[-1]
    assert job["apiVersion"] == "kubeflow.org/v1" and job["kind"] == "PyTorchJob"
    specs = job["spec"]["pytorchReplicaSpecs"]
    assert specs["Master"]["replicas"] + specs["Worker"]["replicas"] == o.candidate.nodes
    container = specs["Worker"]["template"]["spec"]["containers"][0]
    assert container["name"] == "pytorch"
    flags = flag_values(command_words(container["command"][2], "torchrun"))
    assert flags["--nnodes"] == str(o.candidate.nodes)
    assert flags["--node-rank"] == "${RANK}"
    _validate_k8s(docs)


def test_k8s_zero2_mounts_its_deepspeed_config(view: Any, tables: Any) -> None:
    from gpuwise.export.k8s import export_k8s

    e = export_k8s(view("node-train", strategy="zero2", devices=8, machines=1), tables)
    config, job = list(yaml.safe_load_all(e.files["k8s.yaml"]))
    assert config["kind"] == "ConfigMap" and "ds_config.json" in config["data"]
    script = job["spec"]["template"]["spec"]["containers"][0]["command"][2]
    assert "--deepspeed /etc/gpuwise/ds_config.json" in script.replace("\\\n", " ")
    _validate_k8s([config, job])


def test_reserved_billing_is_said(view: Any, tables: Any) -> None:
    """SkyPilot buys on-demand or spot only: a plan priced on a reservation says so."""
    from gpuwise.export.skypilot import export_skypilot

    e = export_skypilot(view("multinode-train", billing="reserved-1y"), tables)
    assert yaml.safe_load(e.files["task.yaml"])["resources"]["use_spot"] is False
    assert "export.note_sky_billing" in dict(e.notes)
