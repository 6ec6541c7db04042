"""What sizing hands the plan: the configuration that fits (Sized) and what it was sized with
(SizeInputs, ScaleOut). A module of its own so sizing's search and its several layouts
(sizing.py, sizing_layouts.py) share them without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpuwise.advise.attempts import Defaults
from gpuwise.advise.engines import EngineChoice
from gpuwise.catalog.schema import Gpu, LlmModel
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.memory import MemoryEstimate
from gpuwise.estimate.speed import SpeedEstimate
from gpuwise.estimate.speed_constants import SpeedConstants
from gpuwise.estimate.speed_scaleout import Fabric


@dataclass(frozen=True)
class Sized:
    """A workload configuration that fits, with its memory and speed."""

    gpu: Gpu
    count: int
    quant: str
    engine: str
    strategy: str
    memory: MemoryEstimate
    speed: SpeedEstimate
    hours_per_run: float | None
    tokens_per_s: float
    speed_known: bool = True
    micro_batch: int | None = None
    grad_accumulation: int | None = None
    grad_checkpointing: bool | None = None
    prompt_tokens: int | None = None
    kv_tokens_per_request: int | None = None
    support: str = "yes"
    compute: str | None = None
    network_gbps_per_node: float | None = None
    """The network between machines this configuration was timed with (multi-machine jobs)."""
    network_assumed: bool = False
    replicas: int = 1
    """Copies of the model serving side by side (one per machine when a service spans several)."""
    compressed_for_target: str | None = None
    """The format that fitted first but missed the speed target, when a more compressed one
    was chosen to meet it (a quality caveat the report states)."""
    pooling: bool = False
    """An embedder or reranker: `tokens_per_s` counts input tokens (no output is generated)."""
    companion_bytes: int = 0
    """Memory reserved on each device for models served beside this one (advise/companions.py)."""
    fused_only: bool = False
    """The run fits only with fused kernels (Unsloth, Liger), tried on owned cards."""
    companion_share: float = 0.0
    """The share of the devices' time companions with a stated load take (advise/companions.py);
    `tokens_per_s` is what is left for the main model."""
    step_tokens: int | None = None
    """The engine's step token budget (vLLM --max-num-batched-tokens, SGLang
    --chunked-prefill-size) the plan chose over the engine's default; None: the default."""
    machines_per_replica: int = 1
    """Machines one replica spans (a model one machine cannot hold, experts spread over all)."""
    full_context_first_token_s: tuple[float, float] | None = None
    """Local use with a long context and no prompt length given: the first token's wait of a
    prompt that fills the context (central, slow end); None otherwise."""

    @property
    def lighter_kv_cache(self) -> str | None:
        """The KV cache type where the search chose one lighter than 16 bits (fp8:
        advise/formats.py); None for the default cache or a model that keeps none."""
        kv = self.memory.inputs.get("kv_dtype")
        return kv if kv and kv != "f16" and not self.pooling else None


@dataclass(frozen=True)
class ScaleOut:
    """A job across machines: devices per machine and the network between them (Gb/s)."""

    nodes: int = 1
    node_devices: int = 0
    network_gbps_per_node: float | None = None
    network_assumed: bool = False
    """The network is the catalog's Ethernet assumption, not a published figure."""
    may_span: bool = False
    """Machines big enough to join into one serving replica (catalog scale_out_min_node_gpus)."""
    fabric: Fabric | None = None
    """The network between machines as the all-to-all of a spanning replica uses it."""


@dataclass(frozen=True)
class SizeInputs:
    """What sizing needs beside the scenario and the card: the model and the constants."""

    model: LlmModel
    mc: MemoryConstants
    sc: SpeedConstants
    choice: EngineChoice
    defaults: Defaults
    scale: ScaleOut = ScaleOut()
    reading_floor: float | None = None
    """The speed each configuration must reach when the scenario sets no target (plan.py)."""
    step_budgets: tuple[int, ...] = ()
    """Step token budgets worth trying for this engine (catalog step_budget)."""
    span: int = 1
    """Machines the replica being sized spans (sizing adds their network time)."""
    batch_floor_bits: float | None = None
    """The fewest bits per weight a one-off batch may be run at to finish sooner (plan
    assumption batch_quality_floor_bits); None: a standing service, quality first."""
    companion_bytes: int = 0
    """Device memory reserved for models served beside the main one (advise/companions.py)."""
    companion_loads: tuple[tuple[LlmModel, float], ...] = ()
    """Companions with a stated load: their device time is taken from the main model's."""
    host_offload: bool = False
    """Whether a training run that fits no layout may offload to the host's RAM: only on cards
    the user owns (what they have runs the job, slowly); a card bought or rented for the job
    is one that holds it (sizing._size_train)."""
    memo: dict[tuple[object, ...], Any] = field(default_factory=dict, compare=False)
    """Memory estimates by request (_estimate); one search shares it across cards."""


def joined_machines(s: object, sized: Sized) -> bool:
    """Whether the machines of an option talk to each other (a training run over all of them,
    a replica spanning several) and so need a cluster network; replicas of one machine each
    need only the load balancer's ordinary network."""
    workload = getattr(s, "workload", None)
    return getattr(workload, "kind", "") == "train" or sized.machines_per_replica > 1


def weight_bits(mc: MemoryConstants, quant: str) -> float:
    """A format's bits per weight (catalog weight_format), 16 where the catalog has none."""
    from gpuwise.errors import UserError

    try:
        return float(mc.weight_format(quant).bits_per_weight)
    except UserError:
        return 16.0
