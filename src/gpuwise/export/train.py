"""`--to torchrun`, `--to accelerate`, `--to deepspeed`: the launch line and its configuration for
a training plan.

The launcher starts the user's Hugging Face Trainer script (`TRAIN_SCRIPT`, default train.py)
with the plan's micro-batch, gradient accumulation, epochs, precision and activation
checkpointing as TrainingArguments flags; the layout the plan chose (one device, DDP, ZeRO-2 or
FSDP) becomes the launcher's own setting: a DeepSpeed config of that ZeRO stage, FSDP full
sharding, or nothing for DDP. Numbers the Trainer has no flag for (sequence length, LoRA rank
and targets, the 4-bit base of QLoRA) are exported as GPUWISE_* variables the script reads.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from gpuwise.export.common import Export, Note, command_line, header, lora_target, script, yaml_text
from gpuwise.export.tables import ExportTables
from gpuwise.export.view import ExportView

SCRIPT = '"${TRAIN_SCRIPT:-train.py}"'
DS_CONFIG = "ds_config.json"
OUTPUT_DIR = "output"


def precision_key(v: ExportView) -> str:
    """bf16 or fp16: the mixed precision the plan sized (fp16 on cards without bf16)."""
    return "fp16" if (v.train_precision or "").endswith("fp16") else "bf16"


def zero_stage(v: ExportView, t: ExportTables) -> int:
    """The ZeRO stage of the plan's layout (0 for one device or DDP)."""
    return int(t.value("deepspeed_zero_stage", v.strategy) or 0)


def ds_config(v: ExportView, t: ExportTables) -> dict[str, Any]:
    """DeepSpeed's JSON config: micro-batch, accumulation, their product over every device, the
    ZeRO stage and the mixed precision (DeepSpeed checks batch = micro × accumulation × world)."""
    assert v.micro_batch is not None and v.grad_accumulation is not None
    precision = precision_key(v)
    return {
        "train_micro_batch_size_per_gpu": v.micro_batch,
        "gradient_accumulation_steps": v.grad_accumulation,
        "train_batch_size": v.global_batch,
        "zero_optimization": {"stage": zero_stage(v, t), **_hierarchical(v)},
        "bf16": {"enabled": precision == "bf16"},
        "fp16": {"enabled": precision == "fp16"},
    }


def _hierarchical(v: ExportView) -> dict[str, int]:
    """ZeRO++ hierarchical partitioning for a hybrid-sharded plan: the weights' copy per
    machine (zero_hpz_partition_size = devices per machine)."""
    if v.strategy != "hsdp" or v.machines < 2:
        return {}
    return {"zero_hpz_partition_size": v.devices // v.machines}


def trainer_args(v: ExportView, t: ExportTables, layout: bool = True) -> list[str]:
    """The Trainer flags the plan fixes; `layout` adds the DeepSpeed or FSDP flag (torchrun and
    deepspeed pass it to the Trainer; accelerate sets the layout in its own config)."""
    assert v.hf_repo is not None
    f = partial(t.flag, "trainer")
    words = [
        f("model"), v.hf_repo,
        f("micro_batch"), str(v.micro_batch),
        f("grad_accumulation"), str(v.grad_accumulation),
        f("epochs"), f"{v.epochs:g}",
        f(precision_key(v)),
        f("output_dir"), OUTPUT_DIR,
    ]  # fmt: skip
    if v.grad_checkpointing:
        words.append(f("grad_checkpointing"))
    if layout and uses_deepspeed(v):
        words += [f("deepspeed"), DS_CONFIG]
    elif layout and v.strategy in ("fsdp", "hsdp"):
        words += [f("fsdp"), t.value("trainer_fsdp", v.strategy) or ""]
    return words


def uses_deepspeed(v: ExportView) -> bool:
    """Whether the layout needs DeepSpeed under torchrun (ZeRO-1 or -2; FSDP runs natively)."""
    return v.strategy in ("zero1", "zero2")


def script_env(v: ExportView) -> list[str]:
    """The plan's numbers the Trainer has no flag for, for the user's script to read."""
    env = {
        "GPUWISE_MAX_SEQ_LEN": str(v.seq_len_tokens),
        "GPUWISE_FINETUNE": v.mode,
    }
    if v.mode in ("lora", "qlora"):
        env["GPUWISE_LORA_RANK"] = str(v.lora_rank)
        env["GPUWISE_LORA_TARGETS"] = lora_target(v)
    if v.mode == "qlora":
        env["GPUWISE_LOAD_IN_4BIT"] = v.quant
    return [f"export {k}={json.dumps(val)}" for k, val in env.items()]


def torchrun_line(v: ExportView, t: ExportTables, node_rank: str, master: str) -> list[str]:
    """torchrun with the plan's machines and devices per machine."""
    f = partial(t.flag, "torchrun")
    port = f'"${{MASTER_PORT:-{int(t.setting("torchrun_master_port"))}}}"'
    return [
        f("command"),
        f("nnodes"), str(v.machines),
        f("nproc_per_node"), str(v.devices_per_node),
        f("node_rank"), node_rank,
        f("master_addr"), master,
        f("master_port"), port,
        SCRIPT,
    ]  # fmt: skip


def export_torchrun(v: ExportView, t: ExportTables) -> Export:
    """launch.sh (and ds_config.json for ZeRO-2)."""
    words = torchrun_line(v, t, '"${NODE_RANK:-0}"', '"${MASTER_ADDR:-127.0.0.1}"')
    files = {"launch.sh": _launch(v, "torchrun", words + trainer_args(v, t))}
    if uses_deepspeed(v):
        files[DS_CONFIG] = json.dumps(ds_config(v, t), indent=2) + "\n"
    return Export("torchrun", files, tuple(train_notes(v)))


def export_deepspeed(v: ExportView, t: ExportTables) -> Export:
    """launch.sh, ds_config.json (DeepSpeed always reads one) and a hostfile for several
    machines."""
    f = partial(t.flag, "deepspeed")
    words = [f("command"), f("num_nodes"), str(v.machines), f("num_gpus"), str(v.devices_per_node)]
    files: dict[str, str] = {}
    if v.machines > 1:
        port = str(int(t.setting("torchrun_master_port")))
        words += [f("hostfile"), "hostfile", f("master_addr"), '"${MASTER_ADDR:?set MASTER_ADDR}"']
        words += [f("master_port"), port]
        hosts = "".join(f"node{i + 1} slots={v.devices_per_node}\n" for i in range(v.machines))
        files["hostfile"] = (
            header(v, "deepspeed") + "# one line per machine: its host name\n" + hosts
        )
    args = [a for a in trainer_args(v, t, layout=False)]
    words += [SCRIPT, *args, t.flag("trainer", "deepspeed"), DS_CONFIG]
    files["launch.sh"] = _launch(v, "deepspeed", words)
    files[DS_CONFIG] = json.dumps(ds_config(v, t), indent=2) + "\n"
    return Export("deepspeed", files, tuple(train_notes(v)))


def accelerate_config(v: ExportView, t: ExportTables) -> dict[str, Any]:
    """Accelerate's config file: machines, processes over all of them, precision, layout."""
    table = "accelerate_distributed_type"
    distributed = t.value(table, f"{v.strategy}.{v.stack}") or t.value(table, v.strategy) or "NO"
    config: dict[str, Any] = {
        "compute_environment": "LOCAL_MACHINE",
        "distributed_type": distributed,
        "num_machines": v.machines,
        "num_processes": v.devices,
        "machine_rank": 0,
        "mixed_precision": precision_key(v),
        "use_cpu": False,
    }
    if v.machines > 1:
        config["main_process_port"] = int(t.setting("torchrun_master_port"))
    if distributed == "DEEPSPEED":
        config["deepspeed_config"] = {
            "zero_stage": zero_stage(v, t),
            "gradient_accumulation_steps": v.grad_accumulation,
        }
    if distributed == "FSDP":
        config["fsdp_config"] = {
            "fsdp_sharding_strategy": t.value("accelerate_fsdp_sharding", v.strategy)
            or t.value("accelerate_fsdp_sharding", "fsdp"),
            "fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
        }
    return config


def export_accelerate(v: ExportView, t: ExportTables) -> Export:
    """accelerate.yaml and launch.sh (machine rank and head address from the environment)."""
    f = partial(t.flag, "accelerate")
    words = [*f("command").split(), f("config_file"), "accelerate.yaml"]
    if v.machines > 1:
        words += [f("machine_rank"), '"${NODE_RANK:-0}"']
        words += [f("main_process_ip"), '"${MASTER_ADDR:?set MASTER_ADDR}"']
    words += [SCRIPT, *trainer_args(v, t, layout=False)]
    files = {
        "accelerate.yaml": header(v, "accelerate") + yaml_text(accelerate_config(v, t)),
        "launch.sh": _launch(v, "accelerate", words),
    }
    return Export("accelerate", files, tuple(train_notes(v)))


def _launch(v: ExportView, target: str, words: list[str]) -> str:
    body = [
        f"# micro-batch {v.micro_batch} x accumulation {v.grad_accumulation} x {v.devices} "
        f"devices = {v.global_batch} sequences per step; layout {v.strategy}",
        'cd "$(dirname "$0")"',
        *script_env(v),
        command_line(words),
    ]
    return script(v, target, body)


def train_notes(v: ExportView) -> list[Note]:
    """The script is the user's: what it must read."""
    return [("export.note_train_script", {"mode": v.mode})]
