"""Typed constants of the memory model: weight formats, KV dtypes, optimizers, precisions, engines.

They are catalog data (data/memory.toml) with sources, not numbers in code, so a user can
correct one in an override file and see where each came from.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, NonNegativeFloat, PositiveFloat

from gpuwise.catalog.schema import Sourced


class WeightFormat(Sourced):
    """How weights are stored: bits per weight and which weights the format covers.

    `quantizes = "linear"`: only the transformer blocks' linear layers use the format; embeddings
    and the LM head stay in 16-bit (GPTQ, AWQ, bitsandbytes, FP8 checkpoints). `"all"`: every
    tensor (GGUF files), with some tensors upgraded as llama.cpp's quantizer does. `"experts"`:
    only the MoE experts' weights use the format and everything else stays 16-bit (gpt-oss ships
    its experts in MXFP4, attention, router, embeddings and head in bf16).
    """

    id: str
    aliases: list[str] = Field(default_factory=list)
    kind: Literal["float", "bnb", "gptq", "awq", "fp8", "w8a8", "gguf", "int8", "mlx", "mxfp4"]
    bits_per_weight: PositiveFloat
    quantizes: Literal["linear", "all", "experts"] = "linear"
    boosted_bits_per_weight: PositiveFloat | None = None
    boosted_share: float = Field(default=0.0, ge=0, le=1)
    output_bits_per_weight: PositiveFloat | None = None
    gguf_rest_bits: PositiveFloat | None = None
    """Bits per weight of every tensor outside the experts (attention, router, embeddings, LM
    head) in the format's GGUF files, which llama.cpp reads: ggml-org's MXFP4 GGUFs of gpt-oss
    keep them in Q8_0 (8.5), where the safetensors checkpoint keeps them in 16 bits. None: as
    in the checkpoint."""
    qlora_base: bool = False
    trainable: bool = False


class KvDtype(Sourced):
    """Bytes per stored KV element."""

    id: str
    aliases: list[str] = Field(default_factory=list)
    bytes_per_element: PositiveFloat


class Optimizer(Sourced):
    """Optimizer state per trainable parameter.

    `states` tensors per parameter; each takes the precision's state bytes unless
    `bytes_per_state` fixes it (8-bit optimizers). `pageable`: states can spill to CPU RAM.
    """

    id: str
    aliases: list[str] = Field(default_factory=list)
    states: NonNegativeFloat
    bytes_per_state: PositiveFloat | None = None
    pageable: bool = False


class Precision(Sourced):
    """Bytes of weights, gradients, master copy and optimizer states per trainable parameter."""

    id: str
    aliases: list[str] = Field(default_factory=list)
    weight_bytes: PositiveFloat
    grad_bytes: PositiveFloat
    master_bytes: NonNegativeFloat
    state_bytes: PositiveFloat
    activation_bytes: PositiveFloat


class Engine(Sourced):
    """What a serving or training stack adds or reserves beyond the model itself."""

    id: str
    aliases: list[str] = Field(default_factory=list)
    role: Literal["serve", "train", "both"]
    cuda_context_mib: NonNegativeFloat
    workspace_mib: NonNegativeFloat = 0.0
    allocator_reserve_fraction: float = Field(default=0.0, ge=0, le=0.5)
    preallocate_fraction: float | None = Field(default=None, gt=0, le=1)
    preallocate_of_free: bool = False
    """The share is of the memory left free after the weights and the engine's own buffers
    (TensorRT-LLM's free_gpu_memory_fraction), not of the whole card (vLLM, SGLang)."""
    kv_latent_for_mla: bool = True
    mla_dp_attention: bool = False
    """Serves an MLA model's attention data parallel across its GPUs (each GPU caches its own
    sequences' latent KV and holds the attention weights whole; estimate/layout.py)."""
    embeddings_on_cpu: bool = False
    prefill_chunk_tokens: int | None = Field(default=None, gt=0)
    sampler_bytes_per_logit: NonNegativeFloat = 0.0
    """Bytes per logit the engine's start-up profile run holds when it samples one token for
    each of its max-num-seqs dummy requests (float32 logits and the sampler's copies); the KV
    pool is what is left after it (estimate/profile_run.py). 0: the engine reserves none."""
    moe_tile_tokens: int | None = Field(default=None, gt=0)
    moe_expert_loop: bool = False
    """Training runs a MoE's routed experts one at a time (Hugging Face transformers' modeling
    code keeps each expert an nn.Module in a list and loops over the experts a batch routes to),
    so every expert of every MoE layer costs its own kernel launches in every pass, where grouped
    GEMM kernels (Megatron, fused MoE) run all of a layer's experts in a few launches."""
    train_execution: Literal["eager", "compiled", "fused", "framework"] = "eager"
    """How the engine runs a training step by default (catalog/schema_speed.py `Execution`):
    what its shipped configs do when the user says nothing (torchtune's recipes ship with
    compile off; Unsloth always patches in its fused kernels)."""
    logits_last_token_only: bool = True
    chunked_cross_entropy: bool = False
    norm_fp32_upcast: bool = True
    default_context: int | None = Field(default=None, gt=0)
    default_kv_dtype: str = "f16"
    kv_dtypes: list[str] = Field(default_factory=list)
    """KV cache types the engine runs besides its default (vLLM's and SGLang's
    --kv-cache-dtype fp8): a plan tries them where the 16-bit cache misses the memory or the
    speed (advise/sizing.py), on cards with FP8 units."""
    layer_split: bool = False
    """Splits a model's layers over several unlike cards in one process (llama.cpp's default
    --split-mode layer, Ollama's scheduler): a user may keep an owned card and add another."""
    cpu_offload: bool = False
    """Runs the layers that do not fit the cards from system RAM on the CPU (-ngl / num_gpu)."""


class ActivationModel(Sourced):
    """Per-token, per-layer activation counts of a decoder layer (multiples of hidden, FFN size).

    The count of saved tensors follows Korthikanti et al. (2022) for a standard layer, written
    for a gated FFN: see estimate/memory.py.
    """

    norm_input_multiples: PositiveFloat
    norm_fp32_multiples: PositiveFloat
    ffn_always_multiples: PositiveFloat
    prefill_ffn_multiples: PositiveFloat
    prefill_hidden_multiples: PositiveFloat
    eager_score_bytes: PositiveFloat
    logits_train_bytes: PositiveFloat
    logits_chunks: int = Field(gt=0)
    zero3_prefetch_layers: PositiveFloat
