"""Architecture features of the 2025–26 open models that a Llama-shaped description cannot hold.

Each changes what memory a served model needs, so each has its own typed table instead of an
approximation by the nearest dense shape:

- `LinearAttention`: hybrids whose linear-attention layers (Gated DeltaNet in Qwen3-Next and
  Qwen3.5, lightning attention in MiniMax-M1) keep a fixed recurrent state per sequence; only
  their full-attention layers (`LlmModel.attention_layers`) grow a KV cache with the context.
- `SparseAttention`: DeepSeek Sparse Attention (V3.2, GLM-5): a lightning indexer keeps one more
  key per cached token and selects the `top_k` tokens each query attends to. The cache still
  holds every token; the attention compute does not grow past `top_k`.
- `CompressedAttention`: DeepSeek-V4's hybrid attention: a short sliding window in every layer
  plus, in most layers, a history compressed 4x (attended sparsely through an indexer) or 128x
  (attended densely); the cache grows with the context at a fraction of a token per token.
- `GlobalAttention`: models whose full-attention layers differ from their sliding-window layers
  (Gemma 4: fewer, wider K/V heads in the global layers, K and V from one projection).
- `Mla`, `Moe`, `Ssm`: latent attention, experts and Mamba state, older than the rest.
- `Vision`: the image encoder of a vision-language model (its parameters are weights on the GPU;
  the memory images take is not modelled, and estimates say so).
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, defer_build=True)


LinearKind = Literal["gated-deltanet", "lightning"]


class LinearAttention(_Strict):
    """Linear-attention layers of a hybrid model and the state each keeps per sequence.

    Gated DeltaNet (Yang et al. 2024, arXiv 2412.06464; the Qwen3-Next/Qwen3.5 layer): q and k
    of `key_heads` × `key_head_dim`, v and an output gate z of `value_heads` × `value_head_dim`,
    per-head decay and beta projections, a short causal conv of `conv_kernel` taps over q, k, v,
    a gated RMSNorm and the output projection. Its state per value head is a key_head_dim ×
    value_head_dim matrix, plus the conv's last (conv_kernel − 1) inputs.

    Lightning attention (MiniMax-01, arXiv 2501.08313; MiniMax-M1): fused q/k/v, a sigmoid output
    gate, a norm and the output projection; each head keeps a head_dim × head_dim state, no conv.
    """

    kind: LinearKind
    layers: PositiveInt
    key_heads: PositiveInt
    value_heads: PositiveInt
    key_head_dim: PositiveInt
    value_head_dim: PositiveInt
    conv_kernel: int = Field(default=0, ge=0)

    def conv_channels(self) -> int:
        """Channels the short convolution runs over (q, k and v), 0 without one."""
        if not self.conv_kernel:
            return 0
        return 2 * self.key_heads * self.key_head_dim + self.value_heads * self.value_head_dim

    def state_elements(self) -> int:
        """Elements one layer keeps per sequence: the recurrent matrices plus the conv window."""
        recurrent = self.value_heads * self.key_head_dim * self.value_head_dim
        return recurrent + self.conv_channels() * max(self.conv_kernel - 1, 0)

    def params_per_layer(self, hidden: int) -> int:
        """Weights of one linear-attention mixer (without the block's pre-norm)."""
        qk = self.key_heads * self.key_head_dim
        v = self.value_heads * self.value_head_dim
        if self.kind == "gated-deltanet":
            in_proj = hidden * (2 * qk + 2 * v) + hidden * 2 * self.value_heads  # qkvz, b and a
            conv = self.conv_channels() * self.conv_kernel
            per_head = 2 * self.value_heads  # A_log and dt_bias
            return in_proj + conv + per_head + self.value_head_dim + v * hidden
        return hidden * (2 * qk + v) + hidden * v + v + v * hidden  # qkv, gate, norm, out


class SparseAttention(_Strict):
    """DeepSeek Sparse Attention (DSA; DeepSeek-V3.2-Exp report, 2025-09): per layer a lightning
    indexer of `index_heads` × `index_head_dim` queries (from the MLA query latent), one shared
    index key per token, and per-head weights; each query attends to the `top_k` tokens the
    indexer scores highest."""

    kind: Literal["dsa"] = "dsa"
    index_heads: PositiveInt
    index_head_dim: PositiveInt
    top_k: PositiveInt

    def params_per_layer(self, hidden: int, q_lora_rank: int) -> int:
        """wq_b (from the query latent, or the hidden state without one), wk with its LayerNorm,
        and the per-head weight projection."""
        q_in = q_lora_rank or hidden
        width = self.index_heads * self.index_head_dim
        return (
            q_in * width
            + hidden * self.index_head_dim
            + 2 * self.index_head_dim
            + (hidden * self.index_heads)
        )


class CompressedAttention(_Strict):
    """DeepSeek-V4's hybrid compressed attention (DeepSeek-V4 model card and config.json, via the
    maxtext configs deepseek4-284b/-1600b; transformers' DeepseekV4Config).

    Every layer attends to the last `LlmModel.sliding_window` tokens of one shared K=V head
    (`kv_heads` × `head_dim`, a single vector per token serving as key and value). Beyond the
    window, `csa_layers` keep one compressed entry per `csa_ratio` tokens (overlapping windows
    of learned pooling) plus an index key of `index_head_dim`, and each query attends to the
    `top_k` entries a lightning indexer of `index_heads` scores highest; `hca_layers` keep one
    entry per `hca_ratio` tokens and attend to all of them. The remaining layers are
    window-only. Queries come from a latent of `q_lora_rank`; the output projection is grouped:
    `output_groups` groups of heads each down to `output_rank`, then one matrix to the hidden
    size. `residual_streams` is the hyper-connection width (mHC: that many copies of the
    residual stream, mixed by small learned maps around each sub-block).
    """

    kind: Literal["csa-hca"] = "csa-hca"
    csa_layers: PositiveInt
    csa_ratio: PositiveInt
    hca_layers: int = Field(default=0, ge=0)
    hca_ratio: PositiveInt = 128
    index_heads: PositiveInt
    index_head_dim: PositiveInt
    top_k: PositiveInt
    q_lora_rank: PositiveInt
    output_groups: PositiveInt
    output_rank: PositiveInt
    residual_streams: PositiveInt = 1

    def entries(self, context: float) -> tuple[float, float]:
        """Compressed entries one sequence of `context` tokens keeps in a CSA and an HCA layer."""
        return math.ceil(context / self.csa_ratio), math.ceil(context / self.hca_ratio)

    def attention_params(self, hidden: int, heads: int, head_dim: int, kv_width: int) -> int:
        """q (latent, norm, up), the shared K=V projection and its norm, the grouped output
        projection and one attention sink per head: the part every layer has."""
        q = hidden * self.q_lora_rank + self.q_lora_rank + self.q_lora_rank * heads * head_dim
        kv = hidden * kv_width + kv_width
        out = heads * head_dim * self.output_rank + self.output_groups * self.output_rank * hidden
        return q + kv + out + heads

    def compressor_params(self, hidden: int, width: int, ratio: int, overlap: bool) -> int:
        """A learned pooling of `ratio` tokens into one entry of `width`: key and gate
        projections (twice as wide with overlapping windows), a position bias per slot, a norm."""
        factor = 2 if overlap else 1
        return 2 * hidden * factor * width + factor * ratio * factor * width + width

    def extra_params(self, hidden: int, kv_width: int) -> int:
        """Compressors of both kinds and the CSA layers' indexers (its query from the latent,
        per-head weights, its own compressor of index keys), over all layers that have them."""
        csa = self.compressor_params(hidden, kv_width, self.csa_ratio, True)
        indexer = self.q_lora_rank * self.index_heads * self.index_head_dim
        indexer += hidden * self.index_heads
        indexer += self.compressor_params(hidden, self.index_head_dim, self.csa_ratio, True)
        hca = self.compressor_params(hidden, kv_width, self.hca_ratio, False)
        return self.csa_layers * (csa + indexer) + self.hca_layers * hca

    def hyper_connection_params(self, hidden: int) -> int:
        """The mHC maps around one block's two sub-blocks (pre and post each): 0 without mHC."""
        n = self.residual_streams
        return 0 if n == 1 else 4 * (2 + n) * n * hidden


class GlobalAttention(_Strict):
    """The shape of the full-attention layers where it differs from the sliding-window layers
    (Gemma 4: 2–4 K/V heads of 512 in the global layers against 8–16 of 256 in the local ones).

    `shared_kv_projection`: K and V come from one projection (Gemma 4's attention_k_eq_v), so
    the layer has no v_proj. The cache is still counted as separate K and V (the values are
    normed without RoPE, the keys rotated), which is what engines store.
    """

    kv_heads: PositiveInt
    head_dim: PositiveInt
    shared_kv_projection: bool = False

    def kv_elements_per_token(self, tp: int = 1) -> float:
        """K and V elements one global layer stores per token on one GPU."""
        return 2.0 * max(1, -(-self.kv_heads // tp)) * self.head_dim

    def params(self, hidden: int, heads: int, qk_norm: bool) -> int:
        """q, k, (v,) o projections of one global layer and its q/k norms."""
        q = heads * self.head_dim
        kv = self.kv_heads * self.head_dim * (1 if self.shared_kv_projection else 2)
        return hidden * q + hidden * kv + q * hidden + (2 * self.head_dim if qk_norm else 0)


class Vision(_Strict):
    """The image encoder (and its projector into the language model) of a vision-language
    model, as a parameter count: what it adds to the weights on the GPU."""

    params_b: PositiveFloat
    """Billions of parameters of the vision tower and projector."""
    patches_per_token: PositiveFloat = 1.0
    """Encoder positions behind one image token the language model reads: the merger's
    spatial_merge_size squared (Qwen2/2.5/3-VL merge 2 × 2 patches: 4). 1 where the catalog
    does not state it, which makes the encoder's compute a lower bound."""

    def encoder_flops(self, image_tokens: float) -> float:
        """FLOPs of encoding the images behind `image_tokens` language-model tokens: 2 × the
        tower's weights per encoder position (its attention over an image's patches, a few
        percent at common resolutions, is left out)."""
        return 2.0 * self.params_b * 1e9 * image_tokens * self.patches_per_token


class Mla(_Strict):
    """Multi-head latent attention (DeepSeek V2/V3): the KV cache holds a compressed latent."""

    kv_lora_rank: PositiveInt
    qk_rope_head_dim: PositiveInt
    qk_nope_head_dim: PositiveInt
    v_head_dim: PositiveInt
    q_lora_rank: int = Field(default=0, ge=0)


class Moe(_Strict):
    """Mixture of experts: all experts are resident, `active_experts` run per token."""

    experts: PositiveInt
    active_experts: PositiveInt
    shared_experts: int = Field(default=0, ge=0)
    expert_intermediate_size: PositiveInt
    moe_layers: PositiveInt
    shared_expert_intermediate_size: int = Field(default=0, ge=0)


class Ssm(_Strict):
    """State-space (Mamba) layers: a fixed recurrent state per sequence instead of a KV cache.

    Mamba-1 (`heads` = 0): in_proj h→2·d_inner, depthwise conv over d_inner, x_proj to
    dt_rank + 2·state, dt_proj, A (d_inner × state) and D. Mamba-2 (`heads` > 0): in_proj
    h→2·d_inner + 2·groups·state + heads, conv over d_inner + 2·groups·state, per-head A/D/dt
    and a gated norm over d_inner (Dao & Gu 2024, arXiv 2405.21060).
    """

    layers: int = Field(ge=0)
    d_inner: PositiveInt
    state_size: PositiveInt
    conv_kernel: PositiveInt = 4
    dt_rank: int = Field(default=0, ge=0)
    heads: int = Field(default=0, ge=0)
    groups: int = Field(default=1, ge=1)
    proj_bias: bool = False
    conv_bias: bool = True

    def state_elements(self) -> int:
        """Elements one layer keeps per sequence: the SSM state plus the conv window."""
        conv_channels = self.d_inner + (2 * self.groups * self.state_size if self.heads else 0)
        return self.d_inner * self.state_size + conv_channels * (self.conv_kernel - 1)
