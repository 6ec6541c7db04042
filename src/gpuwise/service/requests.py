"""The inputs of each command as typed requests: the body of `/api/...` in `gpuwise serve`, the
arguments of each `gpuwise mcp` tool, and what the web forms fill in.

Field names are the CLI's flags (`hours_per_day` for `--hours-per-day`). A number may be given
as a number or as text with units, exactly as on the command line (`"20M"`, `"¥3000"`,
`"2 days"`): :mod:`gpuwise.service.calls` reads each with the flag's quantity, so a bad value
gets the CLI's own one-line message. Every text field and list is bounded, so a request cannot
make gpuwise hold or parse more than a real input needs.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

NAME_MAX_CHARS = 200
"""A model, GPU, provider or region name: the longest real one is under 80 characters."""
PASTE_MAX_BYTES = 2 * 1024 * 1024
"""A pasted report (nvidia-smi -q, collect_env, a log): 2 MiB is a long one."""
SCENARIO_MAX_CHARS = 100_000
LIST_MAX_ITEMS = 16

Num = Annotated[
    float | str | None,
    Field(
        default=None,
        description="a number, or text with units as on the command line (20M, 32k, ¥3000)",
    ),
]
Name = Annotated[str | None, Field(default=None, max_length=NAME_MAX_CHARS)]


def _text(description: str, max_length: int = NAME_MAX_CHARS) -> Any:
    """An optional text field, bounded, described for the OpenAPI and MCP schemas."""
    return Field(default=None, max_length=max_length, description=description)


class Request(BaseModel):
    """Unknown fields are errors (a typo never silently changes an answer)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _null_means_default(cls, data: Any) -> Any:
        """`"hours_per_day": null` is the flag not given: the CLI's default, never a None
        where a number is needed."""
        if not isinstance(data, dict):
            return data
        fields = cls.model_fields
        return {k: v for k, v in data.items() if v is not None or k not in fields}


class PlanRequest(Request):
    """`gpuwise plan`: a persona or a pasted scenario, and/or the flags that override it."""

    persona: str | None = _text(
        "individual, small-team, enterprise-domestic, cost-extreme or example"
    )
    scenario_yaml: str | None = _text(
        "a scenario file's text (YAML or JSON), as `gpuwise plan FILE` reads it",
        SCENARIO_MAX_CHARS,
    )
    model: str | None = _text("model: catalog name, Hugging Face id or Ollama tag")
    workload: str | None = _text("train, serve or local")
    mode: str | None = _text("full, lora, qlora or freeze (training)")
    dataset_tokens: Num = None
    epochs: Num = None
    runs_per_month: Num = None
    concurrency: Num = None
    context: Num = None
    target_tokens_per_s: Num = None
    months: Num = None
    hours_per_day: Num = None
    days_per_week: Num = None
    budget: Num = None
    budget_per: str | None = _text("month, total, year or run")
    currency: str | None = _text("CNY, USD or EUR")
    region: Name = None
    host_price: Num = None
    allow_spot: bool | None = None
    data_stays: bool = False
    domestic: bool = False
    frameworks: list[Annotated[str, Field(max_length=NAME_MAX_CHARS)]] | None = Field(
        default=None, max_length=LIST_MAX_ITEMS
    )
    deadline_days: Num = None
    max_gpus: Num = None
    fx: Num = None
    top: Num = 8


class JobRequest(Request):
    """What runs (`gpuwise estimate` and `fit` share these)."""

    model: str = Field(
        min_length=1,
        max_length=NAME_MAX_CHARS,
        description="catalog name, Hugging Face id (Qwen/Qwen2.5-7B-Instruct) or Ollama tag",
    )
    mode: str = Field(default="inference", max_length=NAME_MAX_CHARS)
    quant: Name = None
    batch: Num = 1
    seq_len: Num = 2048
    context: Num = None
    prompt_tokens: Num = None
    gen_tokens: Num = None
    kv_dtype: Name = None
    optimizer: str = Field(default="adamw", max_length=NAME_MAX_CHARS)
    precision: str = Field(default="mixed-bf16", max_length=NAME_MAX_CHARS)
    grad_checkpointing: bool = True
    optimizer_in_backward: bool = False
    attention: Name = None
    lora_rank: Num = 16
    lora_targets: str = Field(default="all-linear", max_length=NAME_MAX_CHARS)
    train_modules: str = Field(default="", max_length=NAME_MAX_CHARS)
    gpus: Num = None
    strategy: str = Field(default="none", max_length=NAME_MAX_CHARS)
    engine: Name = None
    ubatch: Num = None


class EstimateRequest(JobRequest):
    """`gpuwise estimate`: memory per GPU, and speed on `gpu`."""

    gpu: Name = None
    concurrency: Num = None
    train_tokens: Num = None
    epochs: Num = 1.0
    cpu_bandwidth: Num = None


class FitRequest(JobRequest):
    """`gpuwise fit`: every catalog GPU (×1/2/4/8, or exactly `gpus`) that holds the job."""

    vendor: Name = None


class CostRequest(Request):
    """`gpuwise cost`: own `count` cards of `own`, or rent each offer of `vs`."""

    own: Name = None
    count: Num = 1
    owned: bool = False
    vs: list[Annotated[str, Field(max_length=NAME_MAX_CHARS)]] = Field(
        default_factory=list,
        max_length=LIST_MAX_ITEMS,
        description="offers as provider:instance[:billing], e.g. autodl:4090-x1:on-demand",
    )
    hours_per_day: Num = 8.0
    months: Num = 24
    data_gb: Num = 0.0
    storage: str = Field(default="block", max_length=NAME_MAX_CHARS)
    egress_gb_per_month: Num = 0.0
    snapshot_gb: Num = 0.0
    checkpoint_min: Num = 30.0
    nat: bool = False
    no_public_ip: bool = False
    card_price: Num = None
    host_price: Num = None
    platform: Name = None
    tariff: Num = None
    pue: Num = None
    idle_hours_per_day: Num = None
    resale_pct: Num = None
    maintenance_pct: Num = None
    spot_interruptions_per_day: Num = None
    restart_min: Num = None
    currency: Name = None
    fx: Num = None


class OffersRequest(Request):
    """`gpuwise offers`: cloud offers, cheapest per GPU-hour first."""

    gpu: Name = None
    provider: Name = None
    region: Name = None
    billing: Name = None
    max_price: Num = None
    currency: Name = None
    fx: Num = None


class DoctorPasteRequest(Request):
    """`gpuwise doctor --from`: pasted nvidia-smi, collect_env, pip list, logs, tracebacks."""

    text: str = Field(
        min_length=1,
        max_length=PASTE_MAX_BYTES,
        description="the pasted output (several commands' output may follow each other)",
    )


REQUESTS: dict[str, type[Request]] = {
    "plan": PlanRequest,
    "estimate": EstimateRequest,
    "fit": FitRequest,
    "cost": CostRequest,
    "offers": OffersRequest,
    "doctor_from_paste": DoctorPasteRequest,
}
"""Each call by name: the API path (`/api/plan`), the MCP tool name."""
