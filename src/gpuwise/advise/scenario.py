"""A planning scenario: the workload, how long and how hard it runs, and the constraints.

Read from YAML or TOML (or built from flags); unknown keys are errors with a did-you-mean, so
a typo never silently changes an answer.
"""

from __future__ import annotations

import difflib
import math
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    model_validator,
)

from gpuwise import units
from gpuwise.errors import UserError

FRAMEWORKS = {
    "pytorch": "pytorch",
    "torch": "pytorch",
    "tensorflow": "tensorflow",
    "jax": "jax",
    "mindspore": "mindspore",
    "vllm": "vllm",
    "sglang": "sglang",
    "llama.cpp": "ollama",
    "ollama": "ollama",
    "torch.compile": "torch_compile",
    "torch_compile": "torch_compile",
    "flashattention": "flash_attention",
    "flash_attention": "flash_attention",
    "flash-attention": "flash_attention",
    "bitsandbytes": "bitsandbytes",
    "deepspeed": "deepspeed",
    "unsloth": "unsloth",
    "tensorrt-llm": "tensorrt_llm",
    "tensorrt_llm": "tensorrt_llm",
}

VISION_SUFFIX = "_vision"
VISION_ENGINES = ("vllm", "sglang", "ollama", "tensorrt_llm")
"""Serving engines whose image input is a feature of its own per stack (feature matrix rows
`vllm_vision`, …): the vision encoder, its kernels and preprocessing are ported separately."""

OWN_RUNTIME_ENGINES = ("mlx", "mindie")
"""Engines with their own runtime (Apple MLX, Huawei MindIE) and no row in the feature matrix."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


def _number_as_text(value: Any) -> Any:
    """A bare number where a preset id or a price is accepted: the price, as written."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value:g}"
    return value


def _n(quantity: str) -> Any:
    """A number read by gpuwise.units: `20M`, `32k`, `¥3000` accepted, the policy range enforced."""
    return BeforeValidator(units.field(quantity))


Currency = Literal["CNY", "USD", "EUR"]


class Budget(_Strict):
    """How much may be spent: per month, over the whole project, per year or per run of a
    job with an end (parse_scenario turns the last two into the project's total and the plan
    says so: blind w56-05 wrote `per: run` for a quarterly fine-tune and was refused)."""

    amount: Annotated[float, _n("budget")]
    currency: Currency = "CNY"
    per: Literal["month", "total", "year", "run"] = "month"

    @model_validator(mode="before")
    @classmethod
    def _typed_currency(cls, data: Any) -> Any:
        """`amount: ¥3000` sets the currency; one that contradicts `currency:` is an error."""
        return units.currency_from_amount(data)


class Owned(_Strict):
    """Hardware the team already has (`owns: [rtx-4090]` is one card of it)."""

    gpu: str
    count: Annotated[int, _n("card_count")] = 1
    network_gbps_per_gpu: Annotated[float | None, _n("network_gbps")] = None
    """The scale-out network between the machines these cards sit in, per card (400 for
    InfiniBand NDR with a NIC per GPU); None: not known, timed at the catalog's Ethernet."""
    per_machine: Annotated[int | None, _n("card_count")] = None
    """Cards in each machine (two 4U servers of 4 RTX 4090s: 4); None: the catalog's most per
    host for the card (blind w49-05: 8 owned 4090s were split into 4 desktops of 2)."""

    @model_validator(mode="before")
    @classmethod
    def _one_card_by_name(cls, data: object) -> object:
        """A bare name in the list is one card: the way people first write it."""
        return {"gpu": data} if isinstance(data, str) else data


class Companion(_Strict):
    """A model served beside the main one (`companions: [bge-m3]` is one without a load)."""

    model: str
    tokens_per_s: Annotated[float | None, _n("target_tps")] = None
    """Input tokens a second it must read at the service's load (a reranker: queries a second
    × candidates × tokens of a query and a candidate); None: its compute is not counted."""

    @model_validator(mode="before")
    @classmethod
    def _by_name(cls, data: object) -> object:
        """A bare name is a companion whose load is not stated."""
        return {"model": data} if isinstance(data, str) else data


class Workload(_Strict):
    """What runs: fine-tuning (train), a served model (serve) or local chat (local)."""

    kind: Literal["train", "serve", "local"]
    model: str
    mode: Literal["full", "lora", "qlora", "freeze"] = "qlora"
    lora_rank: Annotated[int | None, _n("lora_rank")] = None
    """LoRA / QLoRA adapter rank (None: 16, PEFT's and LLaMA-Factory's common default)."""
    lora_targets: str | None = None
    """Modules the adapters sit on: `all-linear` (the default) or a list such as `q,v`."""
    dataset_tokens: Annotated[float | None, _n("dataset_tokens")] = None
    samples: Annotated[int | None, _n("samples")] = None
    seq_len: Annotated[int, _n("context")] = 2048
    epochs: Annotated[float, _n("epochs")] = 1.0
    runs_per_month: Annotated[float, _n("runs_per_month")] = 1.0
    batch: Annotated[int, _n("batch")] = 1
    """Training: the global batch, sequences per optimizer step over every device (what a
    recipe states: Llama 2 used 4M tokens, 1,024 sequences of 4,096). Each device takes its
    share (device_batch), reached with micro-batches and gradient accumulation."""
    concurrency: Annotated[int, _n("concurrency")] = 1
    """Requests in flight: over the whole service for a service (split among its replicas); for
    a one-off batch (`samples`), in each engine copy (every copy keeps its running batch full)."""
    context: Annotated[int, _n("context")] = 4096
    prompt_tokens: Annotated[int | None, _n("context")] = None
    image_tokens: Annotated[int | None, _n("tokens_part")] = None
    """Of each prompt's tokens, those its images become (a vision-language model: an 800 × 800
    image is about 625 tokens for Qwen3-VL); the vision encoder's pass over them is counted in
    the prompt's compute (estimate.speed_prefill)."""
    cached_prompt_share: float = Field(default=0.0, ge=0.0, lt=1.0)
    """The share of each prompt the engine finds in its prefix cache: a coding agent re-sends
    the conversation and the repository context every turn, a RAG app its system prompt.
    vLLM's and SGLang's automatic prefix caching then prefill only the rest (time to first
    token and throughput); the KV memory is still sized for whole prompts."""
    gen_tokens: Annotated[int, _n("tokens_part")] = 256
    """Tokens each request generates; 0 only for an embedder or reranker, which generates
    nothing (advise/workload.generation_of)."""
    companions: list[Companion] = Field(default_factory=list, max_length=8)
    """Models served beside this one on the same devices (a RAG app's embedder and reranker, a
    guard model): each runs as its own server process, and its memory is reserved on every
    device the main model uses (advise/companions.py); where its load is stated
    (`{model: bge-reranker-v2-m3, tokens_per_s: 3.7M}`) the device time it takes is taken
    from the main model's, else its compute is not counted."""

    def companion_names(self) -> list[str]:
        """The companions' model names, in the scenario's order."""
        return [c.model for c in self.companions]

    target_tokens_per_s: Annotated[float | None, _n("target_tps")] = None
    target_tokens_per_s_per_request: Annotated[float | None, _n("target_tps")] = None
    """The speed each request must see (a coding assistant or an agent waits on every token,
    faster than people read): the service is sized for it × concurrency in all, or for
    target_tokens_per_s where that is higher (blind w13-01, w15-01)."""
    first_token_s: Annotated[float | None, _n("wait_s")] = None
    """The longest a request may wait for its first token (a game NPC, a voice agent: about
    1 s): checked against one prompt's prefill at the slow end of its band, before any queue
    (advise/limits.py; blind w46-03 wrote `max_ttft_s` and was refused)."""
    grad_checkpointing: bool | None = None
    engine: str | None = None
    quant: str | None = None
    execution: Literal["eager", "compiled", "fused", "framework"] | None = None
    """How a training step runs: eager PyTorch, compiled (torch.compile, e.g. torchtune with
    compile=True), fused kernels (Liger, Unsloth) or a fused-kernel framework (Megatron, NeMo).
    None: the engine's default (the catalog's `train_execution`: eager for Hugging Face and
    torchtune's shipped configs, fused for Unsloth)."""

    @model_validator(mode="after")
    def _per_request_target(self) -> Workload:
        """A per-request target becomes the total the plan sizes for (its concurrency ×)."""
        each = self.target_tokens_per_s_per_request
        if not each:
            return self
        total = max(self.target_tokens_per_s or 0.0, each * self.concurrency)
        return self.model_copy(update={"target_tokens_per_s": total})

    @model_validator(mode="after")
    def _known_targets(self) -> Workload:
        """Adapter targets are module names the estimate knows (an unknown one names them)."""
        from gpuwise.errors import UserError

        try:
            self.adapter_targets()
        except UserError as e:
            raise UserError("plan.bad_lora_targets", **e.params) from None
        return self

    def adapter_targets(self) -> tuple[str, ...]:
        """The modules LoRA adapters sit on (all linear layers unless the scenario says)."""
        from gpuwise.estimate.request import ALL_LINEAR, parse_targets

        return parse_targets(self.lora_targets) if self.lora_targets else ALL_LINEAR

    _assumed_batch: int | None = PrivateAttr(default=None)
    """The global batch the plan takes where a full fine-tune or pre-training run sets none
    (advise/workload.assume_global_batch)."""

    def global_batch(self) -> int:
        """Sequences per optimizer step: the scenario's, else the plan's assumed recipe batch."""
        if "batch" in self.model_fields_set or self._assumed_batch is None:
            return self.batch
        return self._assumed_batch

    def device_batch(self, devices: int) -> int:
        """Sequences one device takes per optimizer step: its share of the global batch,
        rounded up (a batch smaller than the devices still gives each device one)."""
        return max(1, math.ceil(self.global_batch() / max(1, devices)))

    def batch_requests(self) -> int:
        """Requests of a one-off batch job: a serve workload given `samples` answers N prompts
        once (labelling, synthetic data, bulk embedding) and is timed and billed like a
        training run, not as a service kept up every day; 0 for a standing service."""
        return self.samples or 0 if self.kind == "serve" else 0

    def one_off(self) -> bool:
        """A job with an end (a training run or a batch), timed from its work, not from the
        scenario's hours a day."""
        return self.train_tokens() > 0 if self.kind == "train" else self.batch_requests() > 0

    def train_tokens(self) -> float:
        """Tokens one pass over the data holds (samples × seq_len when only samples are given)."""
        if self.dataset_tokens:
            return self.dataset_tokens
        if self.samples:
            return float(self.samples * self.seq_len)
        return 0.0


class Scenario(_Strict):
    """Everything the planner needs to rank options."""

    name: str = ""
    workload: Workload
    months: Annotated[float, _n("months")] = 12.0
    hours_per_day: Annotated[float, _n("busy_hours")] = 8.0
    days_per_week: Annotated[float, _n("days_per_week")] = 7.0
    """Days of each week the service runs its `hours_per_day` (5: weekdays only); the bills
    and the power count `hours_per_day` x days_per_week / 7 a day on average."""
    budget: Budget | None = None
    deadline_days: Annotated[float | None, _n("deadline_days")] = None
    region: str = "any"
    data_may_leave: bool = True
    acquire: Literal["any", "buy", "rent"] = "any"
    """How the hardware may be had: "buy" only (capital-only funds, a lab's shared server it
    must own: blind w57-04), "rent" only (no premises and no one to run machines: w57-05),
    "any" both. Cards the user already owns are used either way. `buy_only: true` and
    `rent_only: true` say the same."""
    domestic_only: bool = False
    compliance: list[Literal["hipaa"]] = Field(default_factory=list)
    """Rules the data falls under that narrow who may process it: "hipaa" (US health data)
    rents only from clouds that sign a HIPAA Business Associate Agreement covering their GPU
    instances (catalog `hipaa_baa`, sourced); owned hardware stays (the user runs the
    safeguards)."""
    domestic_preference_pct: Annotated[float | None, _n("percent")] = None
    """国产化 preferred but not required: how much more (in % of the total) the buyer will pay
    for an option on Chinese-made accelerators; the ranking weighs their totals down by it
    (a bill is not changed). None: no preference."""
    frameworks: list[str] = Field(default_factory=lambda: ["pytorch"])
    ops_capacity: Literal["none", "some", "strong"] = "some"
    owns: list[Owned] = Field(default_factory=list)
    owns_host: bool = False
    rental_overhead_pct: Annotated[float | None, _n("percent")] = None
    """Indirect costs (F&A) an institution charges on what it rents, in % of the bill (a US
    university's negotiated rate, e.g. 55); equipment it buys is exempt (advise/overhead.py)."""
    host_ram_gb: Annotated[float | None, _n("storage_gb")] = None
    """System RAM of the PC the owned cards sit in: what CPU offload may use beside them
    (None: the catalog's plan_assumption owned_pc_system_ram_gb)."""
    host_ram_type: Literal["ddr4", "ddr5"] = "ddr5"
    """The PC's memory: it sets how fast offloaded layers are read (plan_assumption
    system_ram_gbps_ddr4 / _ddr5)."""
    host_price: Annotated[float | None, _n("money")] = None
    resale_pct: Annotated[float | None, _n("percent")] = None
    """What bought hardware fetches at the project's end, in % of its price (None: the
    catalog's resale curve by age). A state-owned enterprise or public body that disposes of
    assets through its own rules, not a second-hand market, sets 0 (blind w18-04)."""
    entity: Literal["individual", "company", "institution"] = "individual"
    """Who runs the project and pays the electricity: an individual pays a household tariff,
    a company a commercial one (a company is not a household); an institution (a university,
    hospital or public lab) buys and pays like a company: new hardware with an invoice, a
    non-household tariff, machines in an office or server room."""
    site: Literal["home", "office", "server-room", "datacenter", "colocation"] | None = None
    """Where owned machines sit; only a server room or a data centre adds facility overhead
    (PUE); a colocation space adds its rent per contracted kW too. None: at home for an
    individual, in an office for a company (no PUE either way)."""
    tariff: Annotated[str | None, BeforeValidator(_number_as_text)] = None
    """An electricity tariff preset id (owning.toml) or a price per kWh in `currency`; None: the
    default tariff of the entity's kind in the region (`tariff: 0.75` is read as 0.75 a kWh:
    blind w49-05 had to quote it)."""
    public_api: bool = False
    """The service is a public API with users who expect it up (an SLA): a rental in a data
    centre is preferred to a marketplace host."""
    standby: Literal["auto", "hot", "cold"] = "auto"
    """How a public API rides out a failed instance. hot: one spare replica always running (N+1,
    priced); cold: none running, a replacement is started (rented) or the machine repaired
    (owned) when one fails, and the service is down meanwhile; auto: hot, and where no option
    within the limits both runs a hot spare and holds its speed at the slow end of its band,
    the options that hold it with a cold standby are ranked too (advise/failover.py)."""
    allow_spot: bool | None = None
    currency: Currency = "CNY"
    checkpoint_min: Annotated[float, _n("checkpoint_min")] = 30.0
    data_gb: Annotated[float | None, _n("storage_gb")] = None
    egress_gb_per_month: Annotated[float, _n("storage_gb")] = 10.0
    max_gpus: Annotated[int, _n("max_gpus")] = 8
    consider: list[str] = Field(default_factory=list, max_length=12)
    """Cards or systems the user is weighing (`[mac-studio-m3-ultra, dgx-spark, rtx-pro-6000]`):
    the plan says what became of each (advise/considered.py); it does not limit the search."""
    providers: list[str] = Field(default_factory=list, max_length=40)
    """The clouds the user will rent from, by id or name (`[scaleway, ovhcloud, nebius,
    verda]`, `[阿里云, 华为云]`): rentals from any other are left out and counted by the rule
    `provider-not-listed`; empty: every cloud (blind w54-02: "EU clouds only" could not be
    written, and region: eu still ranked US companies' clouds)."""
    memory_margin: float = Field(default=0.05, ge=0, lt=0.9)

    @model_validator(mode="before")
    @classmethod
    def _acquire_shorthand(cls, data: Any) -> Any:
        """`buy_only: true` / `rent_only: true`, the way people write it, is `acquire`."""
        if not isinstance(data, dict):
            return data
        out = dict(data)
        for key, value in (("buy_only", "buy"), ("rent_only", "rent")):
            wanted = isinstance(out.get(key), bool) and out.pop(key)
            if wanted and "acquire" not in out:
                out["acquire"] = value
        return out

    @model_validator(mode="after")
    def _single_run(self) -> Scenario:
        """A job with an end (a backlog of samples, a training run) whose scenario says neither
        how long the project lasts nor how often it runs is one run: a one-month project, not
        the same run every month for the default twelve (blind w20-01: a 5M-image backlog
        billed twelve times). The plan says so (plan.note_one_run)."""
        w = self.workload
        if not w.one_off() or "months" in self.model_fields_set:
            return self
        if "runs_per_month" in w.model_fields_set:
            return self
        one = self.model_copy(update={"months": 1.0})
        one._one_run = True
        return one

    _running_batch_assumed: bool = PrivateAttr(default=False)
    """A one-off batch's requests in flight were assumed (the engine's default running batch,
    workload.with_assumed_concurrency), not stated: a card whose memory holds fewer runs fewer,
    as vLLM's scheduler does with the KV cache it has (sizing._size_batch)."""

    def running_batch_assumed(self) -> bool:
        """The batch's requests in flight are the engine's default, not the user's."""
        return self._running_batch_assumed

    _budget_stated: tuple[float, str, float] | None = PrivateAttr(default=None)
    """The budget as written when it was per year or per run: amount, per, and the years or
    runs it was multiplied by (parse_scenario._budget_over_project)."""

    def budget_stated(self) -> tuple[float, str, float] | None:
        """The budget as written, when it was turned into the project's total."""
        return self._budget_stated

    _one_run: bool = PrivateAttr(default=False)
    """Set by _single_run: the project was taken to be one run."""

    def one_run_assumed(self) -> bool:
        """The project was taken to be one run (_single_run): months and runs not given."""
        return self._one_run

    def feature_names(self, engine: str | None = None, vision: bool = False) -> list[str]:
        """Frameworks the job needs, as the feature matrix names them.

        The scenario's own list when it gives one. Otherwise what the job runs on: training runs
        PyTorch (and bitsandbytes for QLoRA's 4-bit base); serving and local chat run the
        option's engine — an Ollama user on a Mac needs Ollama's Metal backend, not PyTorch's MPS.
        A vision model served also needs the engine's image input on that stack (`vllm_vision`:
        the vision encoder and its preprocessing are a port of their own, blind w13-05);
        transformers runs its vision models wherever PyTorch runs.
        """
        if "frameworks" in self.model_fields_set:
            named = [FRAMEWORKS[f.lower()] for f in self.frameworks]
        else:
            named = self._job_frameworks(engine)
        if vision and self.workload.kind != "train":
            named += [f"{f}{VISION_SUFFIX}" for f in named if f in VISION_ENGINES]
        return named

    def _job_frameworks(self, engine: str | None) -> list[str]:
        w = self.workload
        if w.kind == "train":
            return ["pytorch", "bitsandbytes"] if w.mode == "qlora" else ["pytorch"]
        key = (engine or "").lower()
        if key in OWN_RUNTIME_ENGINES:
            return []  # not built on PyTorch; the precision table already says where it runs
        return [FRAMEWORKS.get(key, "pytorch")]  # transformers, exllamav2, optimum-neuron: torch

    def owned_site(self) -> str:
        """Where owned machines sit: the scenario's site, else home or office by who runs it —
        except that an organisation buying hardware for a public API puts it in a rented
        colocation rack: no expert signs an SLA on an office machine, and priced in an
        office at PUE 1.0 with no rack rent the purchase won for the wrong reason (blind
        w22-02). Machines it already owns stay where they are (the plan quotes moving them)."""
        if self.site:
            return self.site
        if self.public_api and self.organisation() and not self.owns:
            return "colocation"
        return "office" if self.organisation() else "home"

    def payer(self) -> Literal["household", "business"]:
        """Whose electricity bill: a household's or a business's."""
        return "business" if self.organisation() else "household"

    def organisation(self) -> bool:
        """A company or an institution: it buys new, pays a business tariff, has an office."""
        return self.entity != "individual"

    def keeps_data_in_region(self) -> bool:
        """A company or institution that names where its data is processed (a region other
        than 'any'): residency is a legal duty there (GDPR Art. 28 asks a contract with each
        processor), not a price preference."""
        return self.organisation() and self.region not in ("any", "global")

    def spot_allowed(self) -> bool:
        """Spot capacity fits a job that can stop and resume at no penalty.

        A service goes down for its users at every reclaim: it gets spot only where the
        scenario says `allow_spot: true`. Interruptible training gets it unless it says false,
        and so does a batch job (an interrupted request is sent again). Training resumes from
        its last checkpoint whether or not the scenario states the data set's size (a run sized
        by hours a day restarts the same way). A job with a deadline gets it too, but each spot
        option must leave the slack for reclaims and waits for capacity
        (`spot_needs_slack`, margin.spot_slack_check): a 9-hour run due in 5 days can wait.
        """
        if self.allow_spot is not None:
            return self.allow_spot
        return self.workload.kind == "train" or self.workload.one_off()

    def spot_needs_slack(self) -> bool:
        """Spot options are held to the deadline with slack (the user did not ask for spot)."""
        return self.allow_spot is None and self.deadline_days is not None


def _read(path: Path) -> dict[str, Any]:
    """YAML, TOML or JSON by extension, read by gpuwise.userfiles (encodings, size, nesting,
    duplicate keys); every problem names the file."""
    from gpuwise.userfiles import read_structured

    data = read_structured(path)
    if not isinstance(data, dict):
        raise UserError("plan.not_a_mapping", file=str(path))
    return data


def _fields_of(loc: tuple[Any, ...]) -> list[str]:
    """The known keys at the place of an unknown key (for did-you-mean)."""
    model: type[BaseModel] = Scenario
    for part in loc[:-1]:
        field = model.model_fields.get(str(part))
        ann = getattr(field, "annotation", None) if field else None
        for candidate in (Workload, Budget, Owned):
            if ann is candidate or candidate.__name__ in str(ann):
                model = candidate
    return list(model.model_fields)


def parse_scenario(data: dict[str, Any], origin: str) -> Scenario:
    """Validate a scenario; the first problem becomes one line naming file, field and fix."""
    if "workload" not in data:
        raise UserError("plan.no_workload", file=origin)
    data = _deadline_beside_workload(_batch_as_serve(data, origin))
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err["loc"])
        field = ".".join(str(p) for p in loc)
        unit_error = (err.get("ctx") or {}).get("error")
        if isinstance(unit_error, units.UnitValueError):
            problem = UserError(unit_error.error.key, **{**unit_error.error.params, "flag": field})
            raise UserError("plan.bad_number", file=origin, problem=problem.render()) from exc
        if err["type"] == "extra_forbidden":
            close = difflib.get_close_matches(str(loc[-1]), _fields_of(loc), n=1)
            hint = close[0] if close else ", ".join(_fields_of(loc))
            raise UserError("plan.unknown_key", file=origin, field=field, hint=hint) from exc
        raise UserError(
            "plan.bad_field",
            file=origin,
            field=field,
            problem=str(err["msg"]),
            value=repr(err.get("input"))[:40],
        ) from exc
    for f in scenario.frameworks:
        if f.lower() not in FRAMEWORKS:
            raise UserError(
                "plan.unknown_framework",
                file=origin,
                value=f,
                choices=", ".join(sorted(set(FRAMEWORKS))),
            )
    scenario = _budget_over_project(scenario, origin)
    return _context_holds_the_request(scenario, origin)


def _deadline_beside_workload(data: dict[str, Any]) -> dict[str, Any]:
    """`deadline_days` written inside `workload:` (where the job is described, blind w56-05)
    is the scenario's deadline; both given is left to the unknown-key error."""
    w = data.get("workload")
    if not isinstance(w, dict) or "deadline_days" not in w or "deadline_days" in data:
        return data
    rest = {k: v for k, v in w.items() if k != "deadline_days"}
    return {**data, "workload": rest, "deadline_days": w["deadline_days"]}


def _budget_over_project(scenario: Scenario, origin: str) -> Scenario:
    """A budget per year or per run is the project's total budget: the amount times the
    project's years, or times its runs (runs a month × months) for a job with an end. A
    standing service has no runs, so a budget per run of one is a contradiction to settle.
    The stated figure is kept for the plan's note (plan.note_budget_per)."""
    b = scenario.budget
    if b is None or b.per in ("month", "total"):
        return scenario
    w = scenario.workload
    if b.per == "run" and not w.one_off():
        raise UserError("plan.budget_per_run_standing", file=origin)
    times = scenario.months / 12 if b.per == "year" else w.runs_per_month * scenario.months
    total = b.model_copy(update={"amount": b.amount * times, "per": "total"})
    out = scenario.model_copy(update={"budget": total})
    out._budget_stated = (b.amount, b.per, times)
    return out


def _batch_as_serve(data: dict[str, Any], origin: str) -> dict[str, Any]:
    """`kind: batch` is how people write a one-off job over a backlog (caption 8M images, label
    a corpus): it is a served model given `samples`, timed and billed by its work (blind
    w45-01 wrote it and was refused, and billed ten days of a service instead)."""
    w = data.get("workload")
    if not isinstance(w, dict) or w.get("kind") != "batch":
        return data
    if not w.get("samples"):
        raise UserError("plan.batch_needs_samples", file=origin)
    return {**data, "workload": {**w, "kind": "serve"}}


def _context_holds_the_request(scenario: Scenario, origin: str) -> Scenario:
    """A request's prompt and answer fit its context: with no `context` given it is widened to
    hold them (the default 4,096 silently cut an 8,000-token prompt to 3,596, sizing memory and
    prefill for less than half the work: blind w11-01); a `context` given smaller than them is
    a contradiction the user must settle."""
    w = scenario.workload
    need = (w.prompt_tokens or 0) + w.gen_tokens
    if w.kind == "train" or not w.prompt_tokens or need <= w.context:
        return scenario
    if "context" in w.model_fields_set:
        raise UserError(
            "plan.prompt_exceeds_context",
            file=origin,
            prompt=w.prompt_tokens,
            gen=w.gen_tokens,
            context=w.context,
        )
    workload = w.model_copy(update={"context": need})
    return scenario.model_copy(update={"workload": workload})


def load_scenario(path: Path) -> Scenario:
    """Read and validate a scenario file."""
    return parse_scenario(_read(path), str(path))


def merge(data: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """Flags win over file values; nested tables merge one level."""
    out = dict(data)
    for key, value in overrides.items():
        if value is None:
            continue
        if isinstance(value, dict):
            current = out.get(key)
            base: dict[str, Any] = current if isinstance(current, dict) else {}
            out[key] = {**base, **{k: v for k, v in value.items() if v is not None}}
        else:
            out[key] = value
    return out
