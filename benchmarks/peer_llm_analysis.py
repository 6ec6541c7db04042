"""Runs inside the benchmark's own venv with llm-analysis installed (never imported by gpuwise).

Reads a JSON list of jobs on stdin, each with a model config (from gpuwise's catalog, so both
tools see the same architecture), a GPU config and the case's settings; prints a JSON list of
results. llm-analysis is used with its own default efficiencies.
"""

import json
import sys


def gpu_config(g):
    from llm_analysis.config import GPUConfig, gpu_configs

    name = "gw-" + g["id"]
    if name not in gpu_configs:
        gpu_configs[name] = GPUConfig(
            name=name,
            mem_per_GPU_in_GB=g["memory_gb"],
            hbm_bandwidth_in_GB_per_sec=g["bandwidth"],
            intra_node_bandwidth_in_GB_per_sec=g["link"] or 32,
            intra_node_min_message_latency=8e-06,
            peak_fp16_TFLOPS=g["fp16"],
            peak_i8_TFLOPS=g["fp16"] * 2,
            peak_i4_TFLOPS=g["fp16"] * 4,
            inter_node_bandwidth_in_GB_per_sec=25,
        )
    return name


def model_config(m):
    from llm_analysis.config import ModelConfig, model_configs

    name = "gw-" + m["id"]
    if name not in model_configs:
        model_configs[name] = ModelConfig(
            name=name,
            num_layers=m["layers"],
            n_head=m["heads"],
            hidden_dim=m["hidden_size"],
            vocab_size=m["vocab_size"],
            max_seq_len=m["max_context"],
            num_key_value_heads=m["kv_heads"],
            ffn_embed_dim=m["intermediate_size"],
            model_type="llama",
        )
    return name


def run(job):
    import logging

    from llm_analysis import analysis

    logging.disable(logging.CRITICAL)
    kw = dict(
        model_name=model_config(job["model"]),
        gpu_name=gpu_config(job["gpu"]),
        dtype_name=job["dtype"],
        log_level="CRITICAL",
    )
    if job["kind"] == "infer":
        out = analysis.infer(
            batch_size_per_gpu=job["batch"],
            seq_len=job["prompt"],
            num_tokens_to_generate=max(1, job["gen"]),
            tp_size=job["tp"],
            **kw,
        )
        mem = sum(
            v
            for k, v in out.items()
            if k.endswith("memory_per_gpu") and isinstance(v, (int, float))
        )
        return {
            "memory_bytes": mem,
            "prefill_s": out.get("prefill_latency"),
            "decode_s_per_token": out.get("per_token_latency") or out.get("decode_latency"),
        }
    out = analysis.train(
        batch_size_per_gpu=job["batch"],
        seq_len=job["seq_len"],
        total_num_gpus=job["gpus"],
        ds_zero=job["zero"],
        activation_recomputation=2 if job["recompute"] else 0,
        mlp_gated_linear_units=True,
        flash_attn=True,
        **kw,
    )
    mem = sum(
        out.get(k, 0) or 0
        for k in (
            "weight_memory_per_gpu",
            "gradient_memory_per_gpu",
            "optimizer_state_memory_per_gpu",
            "activation_memory_per_gpu",
        )
    )
    return {"memory_bytes": mem, "latency_per_iter": out.get("latency_per_iter")}


def main():
    results = []
    for job in json.load(sys.stdin):
        try:
            results.append({"id": job["id"], **run(job)})
        except Exception as exc:  # report, don't stop the table
            results.append({"id": job["id"], "error": f"{type(exc).__name__}: {exc}"[:200]})
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
