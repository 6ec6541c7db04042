"""torchrun, accelerate, DeepSpeed and LLaMA-Factory exports carry the plan's training numbers
(machines, devices per machine, micro-batch, accumulation, checkpointing, the ZeRO stage or FSDP
of its layout), and each configuration passes the tool's own loader where it installs from PyPI
(DeepSpeed's DeepSpeedConfig, accelerate's config-file reader)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuwise.export.tables import ExportTables
from gpuwise.export.train import export_accelerate, export_deepspeed, export_torchrun
from tests.export.conftest import first
from tests.export.helpers import bash_syntax_ok, command_words, flag_values


def test_torchrun_numbers_equal_the_plans(export: Any, plans: Any, tmp_path: Path) -> None:
    _v, e = export("small-team", "torchrun")
    o = plans["small-team"].options[0]
    flags = flag_values(command_words(e.files["launch.sh"], "torchrun"))
    assert flags["--nnodes"] == str(o.candidate.nodes)
    assert flags["--nproc-per-node"] == str(o.candidate.node_devices)
    assert flags["--per_device_train_batch_size"] == str(o.sized.micro_batch)
    assert flags["--gradient_accumulation_steps"] == str(o.sized.grad_accumulation)
    assert ("--gradient_checkpointing" in flags) == bool(o.sized.grad_checkpointing)
    assert flags["--num_train_epochs"] == f"{plans['small-team'].scenario.workload.epochs:g}"
    assert 'GPUWISE_MAX_SEQ_LEN="4096"' in e.files["launch.sh"]
    assert f'GPUWISE_LORA_RANK="{o.sized.memory.inputs["lora_rank"]}"' in e.files["launch.sh"]
    bash_syntax_ok(e.files["launch.sh"], tmp_path)


def test_multinode_torchrun_spans_the_plans_machines(plans: Any, export: Any) -> None:
    n = first(plans["multinode-train"], lambda o: o.candidate.nodes > 1)
    o = plans["multinode-train"].options[n - 1]
    _v, e = export("multinode-train", "torchrun", n)
    flags = flag_values(command_words(e.files["launch.sh"], "torchrun"))
    assert flags["--nnodes"] == str(o.candidate.nodes) != "1"
    assert int(flags["--nproc-per-node"] or 0) * o.candidate.nodes == o.candidate.count
    if o.sized.strategy == "fsdp":
        assert flags["--fsdp"] == "full_shard auto_wrap"


@pytest.mark.parametrize(("strategy", "stage"), [("zero2", 2), ("fsdp", 3), ("ddp", 0)])
def test_deepspeed_config_passes_deepspeed(
    view: Any, tables: ExportTables, strategy: str, stage: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("deepspeed")
    from deepspeed.runtime import config as ds

    v = view("node-train", strategy=strategy, devices=16, machines=2)
    e = export_deepspeed(v, tables)
    config = json.loads(e.files["ds_config.json"])
    monkeypatch.setattr(ds.dist, "get_rank", lambda: 0)
    monkeypatch.setattr(ds.dist, "get_world_size", lambda *a, **k: v.devices)
    checked = ds.DeepSpeedConfig(config)  # refuses unknown keys and batch sizes that disagree
    assert checked.zero_optimization_stage == stage
    assert checked.train_micro_batch_size_per_gpu == v.micro_batch
    assert checked.gradient_accumulation_steps == v.grad_accumulation
    assert checked.train_batch_size == v.micro_batch * v.grad_accumulation * 16
    flags = flag_values(command_words(e.files["launch.sh"], "deepspeed"))
    assert flags["--num_nodes"] == "2" and flags["--num_gpus"] == "8"
    assert flags["--hostfile"] == "hostfile" and e.files["hostfile"].count("slots=8") == 2


def test_zero2_under_torchrun_writes_its_deepspeed_config(view: Any, tables: ExportTables) -> None:
    e = export_torchrun(view("node-train", strategy="zero2", devices=8, machines=1), tables)
    flags = flag_values(command_words(e.files["launch.sh"], "torchrun"))
    assert flags["--deepspeed"] == "ds_config.json"
    assert json.loads(e.files["ds_config.json"])["zero_optimization"]["stage"] == 2


@pytest.mark.parametrize(
    ("strategy", "kind"), [("zero2", "DEEPSPEED"), ("fsdp", "FSDP"), ("ddp", "MULTI_GPU")]
)
def test_accelerate_config_passes_accelerate(
    view: Any, tables: ExportTables, strategy: str, kind: str, tmp_path: Path
) -> None:
    v = view("node-train", strategy=strategy, devices=16, machines=2)
    e = export_accelerate(v, tables)
    doc = yaml.safe_load(e.files["accelerate.yaml"])
    assert doc["distributed_type"] == kind
    assert doc["num_processes"] == 16 and doc["num_machines"] == 2
    pytest.importorskip("accelerate")
    from accelerate.commands.config.config_args import ClusterConfig

    path = tmp_path / "accelerate.yaml"
    path.write_text(e.files["accelerate.yaml"], encoding="utf-8")
    loaded = ClusterConfig.from_yaml_file(path)  # refuses keys accelerate does not know
    assert loaded.num_processes == 16 and loaded.num_machines == 2
    assert str(loaded.distributed_type).endswith(kind)


def test_llama_factory_numbers_equal_the_plans(export: Any, plans: Any, tmp_path: Path) -> None:
    _v, e = export("example", "llama-factory")
    o, w = plans["example"].options[0], plans["example"].scenario.workload
    doc = yaml.safe_load(e.files["train.yaml"])
    assert w.mode == "qlora"
    assert doc["finetuning_type"] == "lora" and doc["quantization_bit"] == 4
    assert doc["lora_rank"] == o.sized.memory.inputs["lora_rank"] and doc["lora_target"] == "all"
    assert doc["cutoff_len"] == w.seq_len
    assert doc["per_device_train_batch_size"] == o.sized.micro_batch
    assert doc["gradient_accumulation_steps"] == o.sized.grad_accumulation
    assert doc["num_train_epochs"] == w.epochs
    assert doc["template"] == "qwen"
    assert ("disable_gradient_checkpointing" in doc) == (not o.sized.grad_checkpointing)
    bash_syntax_ok(e.files["launch.sh"], tmp_path)


def test_llama_factory_full_plan_across_machines(view: Any, tables: ExportTables) -> None:
    from gpuwise.export.llamafactory import export_llamafactory

    v = view("multinode-train", strategy="fsdp", devices=16, machines=2)
    e = export_llamafactory(v, tables)
    doc = yaml.safe_load(e.files["train.yaml"])
    assert doc["finetuning_type"] == "full" and "quantization_bit" not in doc
    assert doc["deepspeed"] == "ds_config.json"
    assert json.loads(e.files["ds_config.json"])["zero_optimization"]["stage"] == 3
    assert "export NNODES=2" in e.files["launch.sh"]
    assert "export FORCE_TORCHRUN=1" in e.files["launch.sh"]


def test_accelerate_on_ascend_is_multi_npu(view: Any, tables: ExportTables) -> None:
    v = view("node-train", strategy="ddp", devices=8, machines=1, stack="cann", vendor="huawei")
    doc = yaml.safe_load(export_accelerate(v, tables).files["accelerate.yaml"])
    assert doc["distributed_type"] == "MULTI_NPU"
