"""Bytes of a model's weights in a storage format, and the parameters a LoRA adapter adds.

Parameter counts come from the architecture (catalog/params.py), scaled so that their sum
matches the model's stated total (norms and biases fold into the linear share). A model read
from a local folder whose safetensors headers or index state the bytes uses those bytes
instead of the formula when the requested format is the one the files are stored in.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuwise.catalog.params import ParamCounts, count_params
from gpuwise.catalog.schema import LlmModel
from gpuwise.catalog.schema_memory import WeightFormat


@dataclass(frozen=True)
class WeightBytes:
    """Weights split into the stored values and the quantization scales/zeros."""

    weights: float
    quant_constants: float
    embedding_on_gpu: bool = True

    @property
    def total(self) -> float:
        """Everything the weights occupy."""
        return self.weights + self.quant_constants


def param_split(m: LlmModel) -> tuple[float, float, float, ParamCounts]:
    """Embedding, LM head and linear-layer parameters that add up to `params_b`."""
    counts = count_params(m)
    embedding, head = float(counts.embedding), float(counts.lm_head)
    linear = max(m.params_b * 1e9 - embedding - head, 0.0)
    return embedding, head, linear, counts


def expert_params(m: LlmModel) -> float:
    """Parameters of the routed experts, on the same scale as `param_split`'s linear share (the
    architecture's count scaled so that all parts add up to `params_b`). Shared experts, router,
    attention and dense FFNs are not counted: gpt-oss's MXFP4 covers `mlp.experts` only."""
    _, _, linear, counts = param_split(m)
    rest = counts.total - counts.embedding - counts.lm_head
    if rest <= 0:
        return 0.0
    return counts.ffn_experts * linear / rest


def _boosted_params(m: LlmModel) -> float:
    """Tensors llama.cpp's _M mixtures store in more bits: attn_v and the dense ffn_down.

    Expert ffn_down tensors of MoE models are not upgraded (Mixtral 8x7B Q4_K_M is 4.53 bits per
    weight, which an upgrade of its experts would push above 4.8).
    """
    attn_v = m.layers * m.hidden_size * m.kv_heads * m.head_dim
    dense_layers = m.layers - (m.moe.moe_layers if m.moe else 0)
    return attn_v + dense_layers * m.intermediate_size * m.hidden_size


_FLOAT_BITS = {"bf16": 16.0, "fp16": 16.0, "fp32": 32.0}


def stored_bytes(m: LlmModel, fmt: WeightFormat) -> float | None:
    """The files' own byte count, when `fmt` is the format they are stored in (else None)."""
    if m.weight_bytes_exact is None or fmt.kind == "gguf":
        return None
    if fmt.kind == "float" and _FLOAT_BITS.get(m.weight_dtype or "") == fmt.bits_per_weight:
        return float(m.weight_bytes_exact)
    if m.weight_format_hint is not None and m.weight_format_hint == fmt.id:
        return float(m.weight_bytes_exact)
    return None


def weight_bytes(m: LlmModel, fmt: WeightFormat, embeddings_on_cpu: bool = False) -> WeightBytes:
    """Bytes of all weights held on the GPUs (before any split across GPUs)."""
    exact = stored_bytes(m, fmt)
    if exact is not None:
        return WeightBytes(exact, 0.0)
    embedding, head, linear, _ = param_split(m)
    if m.gguf_weight_bytes and fmt.kind == "gguf":
        total = float(m.gguf_weight_bytes)
        emb = embedding * fmt.bits_per_weight / 8
        on_cpu = embeddings_on_cpu and not m.tied_embeddings
        return WeightBytes(total - (emb if on_cpu else 0.0), 0.0, not on_cpu)
    if fmt.quantizes == "experts":  # MXFP4 experts, everything else 16-bit (gpt-oss)
        return _experts_bytes(m, fmt, embedding, head, linear, embeddings_on_cpu)
    if fmt.quantizes == "all" and fmt.kind in ("float", "mlx"):
        return WeightBytes((embedding + head + linear) * fmt.bits_per_weight / 8, 0.0)
    if fmt.kind == "gguf":
        return _gguf_bytes(m, fmt, embedding, head, linear, embeddings_on_cpu)
    nominal = int(fmt.bits_per_weight)
    values = linear * nominal / 8 + (embedding + head) * 2
    constants = linear * (fmt.bits_per_weight - nominal) / 8
    return WeightBytes(values, constants)


def _experts_bytes(
    m: LlmModel, fmt: WeightFormat, embedding: float, head: float, linear: float, on_cpu: bool
) -> WeightBytes:
    """Experts in the format (values + block scales), the rest in 16 bits (or the shipped
    checkpoint's `hint_rest_bits`: DeepSeek-V4's FP8). llama.cpp (`gguf`: the engine that
    keeps token embeddings on the CPU) reads the format's GGUF files, whose other tensors are
    at the format's `gguf_rest_bits` (gpt-oss: Q8_0; 59.0 GiB for 120B where 16 bits would make
    60.7: blind w55-02, its decode read 1.4 GB a token too many on a DGX Spark)."""
    experts = expert_params(m)
    nominal = int(fmt.bits_per_weight)
    gguf_bits = fmt.gguf_rest_bits if on_cpu else None
    on_cpu = on_cpu and not m.tied_embeddings
    rest = linear - experts
    rest_bits = m.hint_rest_bits if m.hint_rest_bits and fmt.id == m.weight_format_hint else 16.0
    rest_bits = gguf_bits or rest_bits
    embeddings = (0.0 if on_cpu else embedding) + head
    values = experts * nominal / 8 + rest * rest_bits / 8 + embeddings * (gguf_bits or 16.0) / 8
    return WeightBytes(values, experts * (fmt.bits_per_weight - nominal) / 8, not on_cpu)


def _gguf_bytes(
    m: LlmModel, fmt: WeightFormat, embedding: float, head: float, linear: float, on_cpu: bool
) -> WeightBytes:
    """GGUF: every tensor quantized, some upgraded; llama.cpp keeps token embeddings on the CPU."""
    bulk = fmt.bits_per_weight
    boosted = _boosted_params(m) * fmt.boosted_share if fmt.boosted_bits_per_weight else 0.0
    up = (fmt.boosted_bits_per_weight or bulk) - bulk
    out_bits = fmt.output_bits_per_weight or bulk
    if m.tied_embeddings:
        emb_bytes, head_bytes = embedding * out_bits / 8, 0.0
        on_cpu = False
    else:
        emb_bytes, head_bytes = embedding * bulk / 8, head * out_bits / 8
    total = linear * bulk / 8 + boosted * up / 8 + head_bytes + (0.0 if on_cpu else emb_bytes)
    return WeightBytes(total, 0.0, not on_cpu)


def lora_params(m: LlmModel, rank: int, targets: tuple[str, ...]) -> float:
    """Adapter parameters: rank × (in + out) for every targeted matrix in every layer.

    MoE layers carry one adapter per expert on gate/up/down (PEFT targets every nn.Linear).
    """
    h, q_out, kv_out = m.hidden_size, m.heads * m.head_dim, m.kv_heads * m.head_dim
    moe = m.moe
    ffn_layers_dense = m.layers - (moe.moe_layers if moe else 0)
    ffn_sets: list[tuple[float, int]] = [(ffn_layers_dense, m.intermediate_size)]
    if moe:
        ffn_sets.append((moe.moe_layers * moe.experts, moe.expert_intermediate_size))
    per_layer = {"q": h + q_out, "k": h + kv_out, "v": h + kv_out, "o": q_out + h}
    total = 0.0
    for t in targets:
        if t in per_layer:
            total += m.layers * rank * per_layer[t]
        elif t in ("gate", "up", "down"):
            total += sum(count * rank * (h + size) for count, size in ffn_sets)
        elif t in ("embed", "lm_head"):
            total += rank * (m.vocab_size + h)
    return total


def module_params(m: LlmModel, modules: tuple[str, ...]) -> float:
    """Parameters of modules trained in full beside adapters (PEFT modules_to_save)."""
    embedding, head, _, _ = param_split(m)
    sizes = {
        "embed": embedding,
        "lm_head": head if not m.tied_embeddings else 0.0,
        "norm": float(2 * m.layers * m.hidden_size),
    }
    return sum(sizes[x] for x in modules)
