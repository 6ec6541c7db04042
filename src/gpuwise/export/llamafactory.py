"""`--to llama-factory`: the training YAML of a LoRA, QLoRA, freeze or full fine-tuning plan.

finetuning_type and the 4-bit base come from the plan's mode, cutoff_len from its sequence
length, the per-device batch, accumulation, epochs, precision and activation checkpointing from
its sizing, and a DeepSpeed config of the plan's ZeRO stage where the layout shards (ZeRO-2,
FSDP as ZeRO-3). The dataset is the user's: the YAML names a placeholder to replace.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from gpuwise.export.common import Export, Note, command_line, header, lora_target, script, yaml_text
from gpuwise.export.tables import ExportTables
from gpuwise.export.train import DS_CONFIG, OUTPUT_DIR, ds_config, precision_key, zero_stage
from gpuwise.export.view import ExportView

DATASET_PLACEHOLDER = "your_dataset"
"""A name LLaMA-Factory refuses until the user registers a dataset under it
(data/dataset_info.json)."""


def train_yaml(v: ExportView, t: ExportTables) -> dict[str, Any]:
    """LLaMA-Factory's SFT config with the plan's numbers."""
    assert v.hf_repo is not None
    doc: dict[str, Any] = {
        "model_name_or_path": v.hf_repo,
        "stage": "sft",
        "do_train": True,
        "finetuning_type": t.value("llamafactory_finetuning_type", v.mode),
    }
    if v.mode in ("lora", "qlora"):
        doc["lora_rank"] = v.lora_rank
        doc["lora_target"] = lora_target(v)
    bits = t.value("llamafactory_quantization_bit", v.mode)
    if bits:
        doc["quantization_bit"] = int(bits)
    template = t.longest_prefix("llamafactory_template", v.model_id)
    doc.update(
        {
            "dataset": DATASET_PLACEHOLDER,
            "template": template or "default",
            "cutoff_len": v.seq_len_tokens,
            "output_dir": f"saves/{v.model_id}/{v.mode}",
            "per_device_train_batch_size": v.micro_batch,
            "gradient_accumulation_steps": v.grad_accumulation,
            "num_train_epochs": v.epochs,
            precision_key(v): True,
        }
    )
    if not v.grad_checkpointing:
        doc["disable_gradient_checkpointing"] = True
    if zero_stage(v, t) > 0:
        doc["deepspeed"] = DS_CONFIG
    return doc


def export_llamafactory(v: ExportView, t: ExportTables) -> Export:
    """train.yaml, launch.sh (torchrun over the plan's machines) and ds_config.json if sharded."""
    f = partial(t.flag, "llamafactory")
    env: list[str] = []
    if v.devices > 1:
        env.append(f"export {f('force_torchrun')}=1")
    if v.machines > 1:
        port = int(t.setting("torchrun_master_port"))
        env += [
            f"export {f('nnodes')}={v.machines}",
            f'export {f("node_rank")}="${{{f("node_rank")}:-0}}"',
            f'export {f("master_addr")}="${{{f("master_addr")}:?set {f("master_addr")}}}"',
            f'export {f("master_port")}="${{{f("master_port")}:-{port}}}"',
        ]
    body = ['cd "$(dirname "$0")"', *env, command_line([*f("command").split(), "train.yaml"])]
    doc = train_yaml(v, t)
    files = {
        "train.yaml": header(v, "llama-factory") + yaml_text(doc),
        "launch.sh": script(v, "llama-factory", body),
    }
    if "deepspeed" in doc:
        files[DS_CONFIG] = json.dumps(ds_config(v, t), indent=2) + "\n"
    return Export("llama-factory", files, tuple(notes(v, doc)))


def notes(v: ExportView, doc: dict[str, Any]) -> list[Note]:
    """The dataset to register, and a template to choose where the catalog names none."""
    out: list[Note] = [("export.note_dataset", {"placeholder": DATASET_PLACEHOLDER})]
    if doc["template"] == "default":
        out.append(("export.note_template", {"model": v.model_id}))
    return out


__all__ = ["OUTPUT_DIR", "export_llamafactory"]
