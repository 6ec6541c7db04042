"""The `gpuwise plan --json` document as types: what advise hands the renderers, the web page,
the exports and the MCP tool, and what docs/schemas/plan.json publishes.

Frozen pydantic models: a renderer reads `option.total_cost`, not `option["total_cost"]`, and
the schema comes from the same definition as the document (`model_dump(mode="json")`).
A rule's `numbers` stay a mapping: each rule has its own (advise/fired.py), and their keys are
the placeholders of the rule's message.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from gpuwise.advise.scenario import Scenario
from gpuwise.cost.report_model import PriceEntry
from gpuwise.documents import Frozen, Sparse


class Tie(Frozen):
    """A rental named by an answer: provider, instance, billing."""

    provider: str | None
    instance: str | None
    billing: str | None


class CloudAnswer(Tie):
    """The rental the plan answers with, and others as cheap within the prices' uncertainty."""

    ties: list[Tie]


class Either(Frozen):
    """What settles a near tie between owning and renting."""

    own: str
    rent: str
    margin: float
    own_above_hours_per_day: float | None = Field(
        description="owning wins above this daily use (None: one side wins at every use)"
    )
    cheaper_always: str | None = Field(description="own | rent when one side always wins")
    rent_before_month: int | None = Field(description="renting wins if the project ends before")
    own_above_runs_per_month: float | None = Field(
        default=None,
        description="for runs or batches: owning wins above this many a month (None: a service,"
        " or owning never wins); the hours-a-day figures are then left out",
    )


class TimeTie(Frozen):
    """A cost tie between two runs settled by time: the first option ends sooner than a
    cheaper one whose total is within `margin` of its own (advise/ties.py)."""

    shorter: str
    shorter_hours: float
    shorter_long_hours: float = Field(description="the long (p90) end of its band")
    cheaper: str
    cheaper_hours: float
    cheaper_long_hours: float
    margin: float
    deadline_hours: float | None = None


class MachineTie(Frozen):
    """A service's cost tie settled by machines: the first option runs on fewer machines than
    a cheaper one whose ranking total is within `margin` of its own (advise/ties.py)."""

    fewer: str
    fewer_machines: int
    cheaper: str
    cheaper_machines: int
    margin: float


class Answers(Frozen):
    """Buy or rent, which vendor and card, which cloud and billing (None: no ranked option)."""

    buy_or_rent: Literal["buy", "rent", "either"] | None
    vendor: str | None
    card: str | None
    count: int | None = None
    spare_count: int = 0
    """Cards of the spare an SLA adds beside `count` (N+1 in its own machine), so the answer
    names every card the bill pays for (blind w61-01: "H800 x8" over a bill for 12)."""
    system: str | None = None
    systems: int | None = None
    cloud: CloudAnswer | None = None
    either: Either | None = None
    decided_by_time: TimeTie | None = None
    decided_by_machines: MachineTie | None = None
    """A run or batch tied on cost with a cheaper one and ranked first for ending sooner."""
    already_owned: bool = False
    """The first option runs on hardware the user already owns: "buy" then means keep using
    it, with nothing to buy (the answer says so instead of "Buy")."""


class TextItem(Frozen):
    """A risk, blocker, unchecked limit, assumption or suggestion: its id and its words."""

    id: str
    text: str


class RuleItem(Frozen):
    """A guide rule that fired: its id, its words and the numbers behind them."""

    id: str
    text: str
    numbers: dict[str, Any]


class SizedConfig(Sparse):
    """The configuration that fits: format, engine, parallelism and the request sizes chosen.
    The optional parts appear only where they apply (a training run's micro-batch …)."""

    quant: str
    engine: str
    strategy: str
    memory_per_gpu_bytes: int
    tokens_per_s: float
    format_support: str
    compute_precision: str | None
    micro_batch: int | None = None
    grad_accumulation: int | None = None
    grad_checkpointing: bool | None = None
    prompt_tokens: int | None = None
    kv_tokens_per_request: int | None = None
    compressed_for_target_from: str | None = None
    replicas: int | None = None
    machines_per_replica: int | None = Field(
        None, description="machines one replica spans (a model one machine cannot hold)"
    )
    step_tokens: int | None = Field(
        None,
        description="engine step token budget to set (vLLM --max-num-batched-tokens, "
        "SGLang --chunked-prefill-size); absent: the engine's default",
    )
    throughput_of: Literal["input_tokens"] | None = Field(
        None, description="input_tokens: an embedder or reranker (tokens_per_s counts inputs)"
    )
    kv_cache_dtype: str | None = Field(
        None,
        description="the KV cache's type where the plan chose one lighter than the "
        "engine's 16-bit default (fp8: vLLM/SGLang --kv-cache-dtype)",
    )

    OMIT_WHEN_NONE = frozenset(
        {
            "throughput_of",
            "kv_cache_dtype",
            "micro_batch",
            "grad_accumulation",
            "grad_checkpointing",
            "prompt_tokens",
            "kv_tokens_per_request",
            "compressed_for_target_from",
            "replicas",
            "machines_per_replica",
            "step_tokens",
        }
    )


class KeptBeside(Frozen):
    """Owned hardware kept serving a share of the requests beside an option's added hardware
    (advise/owned_beside.py); the option's bill includes its running cost."""

    gpu: str
    count: int = Field(description="owned cards kept serving")
    requests: int = Field(description="requests in flight the owned cards serve")
    tokens_per_s: float = Field(description="their share of the option's tokens_per_s")
    quant: str
    monthly_cost: float = Field(description="their running cost per month, in the option's bill")


class PlanOption(Frozen):
    """One option of the plan: hardware, where, bill, time, memory, speed, risks and rules."""

    kind: Literal["own", "rent"]
    gpu: str
    vendor: str
    count: int = Field(description="cards (a multi-chip card counts once)")
    devices: int
    added_gpu: str | None = Field(
        None, description="a card bought and added to the owned `gpu` cards (layer split)"
    )
    added_count: int | None = Field(None, description="cards of `added_gpu` bought")
    offload_fraction: float | None = Field(
        None, description="share of the weights run from system RAM beside the owned cards"
    )
    machines: int
    system: str | None
    systems: int | None
    idle_devices: int
    provider: str | None
    provider_name: str | None
    instance: str | None
    billing: str | None
    already_owned: bool
    platform: str | None
    total_cost: float
    monthly_cost: float
    hardware_priced: bool
    currency: str
    items: dict[str, float]
    unpriced: list[str]
    time_hours: float | None
    busy_hours_per_month: float
    memory_per_gpu_bytes: int
    memory_capacity_bytes: int
    tokens_per_s: float
    tokens_per_s_band: tuple[float, float] | None = Field(
        None, description="p10–p90 of tokens_per_s from the speed model's error band"
    )
    time_hours_band: tuple[float, float] | None = Field(
        None, description="the run's hours at the p90 and p10 speeds (fast end first)"
    )
    config: SizedConfig
    pareto: bool
    rank: int = Field(
        0, description="place in the plan's ranking (1 = first); rows of the table may skip"
    )
    risks: list[TextItem]
    rules: list[RuleItem]
    blockers: list[TextItem]
    unchecked: list[TextItem]
    opportunity_value: float | None
    porting_cost: float | None = Field(
        None,
        description="the porting work its partly supported layers need, in engineer wages, "
        "added to its total for ranking only (advise/porting.py)",
    )
    unpriced_ranked_at: float | None = Field(
        None,
        description="what its unpriced storage is ranked at: the least the plan's other "
        "rentals pay for it, added to its total for ranking only (advise/unpriced_items.py)",
    )
    prices: list[PriceEntry]
    kept_beside: KeptBeside | None = Field(
        None, description="owned hardware serving part of the load beside this option's"
    )
    standby: Literal["hot", "cold"] | None = Field(
        None,
        description="a public API's failover: hot (a spare replica priced in) or cold (none "
        "running; a replacement started or the machine repaired on failure)",
    )
    spare_devices: int | None = Field(
        None,
        description="devices the hot spare adds: what one machine of the option carries "
        "(a machine, not a card, is what fails), or a whole system",
    )


class PlanReport(Frozen):
    """`gpuwise plan --json`."""

    scenario: Scenario
    answers: Answers
    answer_text: list[str]
    options: list[PlanOption]
    options_considered: int
    unchecked: list[PlanOption]
    infeasible: list[PlanOption]
    assumptions: list[TextItem]
    rules: list[RuleItem]
    dropped: dict[str, int]
    suggestions: list[TextItem]
    currency: str
