"""Typed requests (service/requests.py) → the same service functions the CLI calls.

Each number is read as the CLI reads its flag (:func:`number`: same quantity, same range, same
one-line message naming the flag). Every call runs :func:`without_local_paths`: a model name
from a request is never read as a file.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from gpuwise import units
from gpuwise.catalog.local import without_local_paths
from gpuwise.errors import UserError

if TYPE_CHECKING:
    from gpuwise.cost.report_model import CostReport
    from gpuwise.doctor.report_model import DoctorReport
    from gpuwise.estimate.report_model import EstimateReport

from gpuwise.service.requests import (
    PASTE_MAX_BYTES,
    CostRequest,
    DoctorPasteRequest,
    EstimateRequest,
    FitRequest,
    JobRequest,
    OffersRequest,
    PlanRequest,
    Request,
)


def number(value: float | str | None, quantity: str, flag: str, whole: bool = False) -> Any:
    """A request's number as the CLI reads `flag` (units, currency symbols, the range)."""
    if value is None:
        return None
    return units.read_value(value, quantity, flag, whole)


def number_or_name(value: float | str | None, quantity: str, flag: str) -> str | None:
    """`--tariff 0.6` or `--tariff cn-residential`: a number as decimal text, else the name."""
    if value is None:
        return None
    if not units.looks_numeric(str(value)):
        return str(value)
    return repr(float(units.read_value(str(value), quantity, flag)))


def run_plan(r: PlanRequest) -> Any:
    """`gpuwise plan`: a PlanResult (the plan, for charts, and its report)."""
    from gpuwise.service.flags import plan_budget
    from gpuwise.service.plan import pasted_scenario, persona_data, plan_from

    if r.persona and r.scenario_yaml:
        raise UserError("flags.two_scenarios", first=f"persona {r.persona}", second="scenario_yaml")
    with without_local_paths():
        if r.scenario_yaml:
            data, origin = pasted_scenario(r.scenario_yaml, "scenario_yaml"), "scenario_yaml"
        elif r.persona:
            data, origin = persona_data(r.persona), f"persona {r.persona}"
        else:
            data, origin = {}, "flags"
        workload = {
            "model": r.model,
            "kind": r.workload,
            "mode": r.mode,
            "dataset_tokens": number(r.dataset_tokens, "dataset_tokens", "--dataset-tokens"),
            "epochs": number(r.epochs, "epochs", "--epochs"),
            "runs_per_month": number(r.runs_per_month, "runs_per_month", "--runs-per-month"),
            "concurrency": number(r.concurrency, "concurrency", "--concurrency"),
            "context": number(r.context, "context", "--context"),
            "target_tokens_per_s": number(
                r.target_tokens_per_s, "target_tps", "--target-tokens-per-s"
            ),
        }
        flags: dict[str, Any] = {
            "workload": workload,
            "months": number(r.months, "months", "--months"),
            "hours_per_day": number(r.hours_per_day, "busy_hours", "--hours-per-day"),
            "days_per_week": number(r.days_per_week, "days_per_week", "--days-per-week"),
            "currency": r.currency,
            "region": r.region,
            "deadline_days": number(r.deadline_days, "deadline_days", "--deadline-days"),
            "data_may_leave": False if r.data_stays else None,
            "domestic_only": True if r.domestic else None,
            "host_price": number(r.host_price, "money", "--host-price"),
            "allow_spot": r.allow_spot,
            "frameworks": r.frameworks or None,
            "max_gpus": number(r.max_gpus, "max_gpus", "--max-gpus"),
        }
        budget = number(r.budget, "budget", "--budget")
        flags["budget"] = plan_budget(budget, r.budget_per, r.currency)
        fx = number(r.fx, "fx", "--fx")
        top = number(r.top, "top", "--top")
        return plan_from(data, origin, flags, fx, 8 if top is None else top)


def job_options(r: JobRequest, gpus_default: int = 1) -> Any:
    """The CLI's JobOptions from a request's job fields."""
    from gpuwise.service.job import JobOptions

    gpus = number(r.gpus, "gpus", "--gpus")
    return JobOptions(
        mode=r.mode,
        quant=r.quant,
        batch=number(r.batch, "batch", "--batch"),
        seq_len=number(r.seq_len, "context", "--seq-len"),
        context=number(r.context, "context", "--context"),
        prompt_tokens=number(r.prompt_tokens, "tokens_part", "--prompt-tokens"),
        gen_tokens=number(r.gen_tokens, "tokens_part", "--gen-tokens"),
        kv_dtype=r.kv_dtype,
        optimizer=r.optimizer,
        precision=r.precision,
        grad_checkpointing=r.grad_checkpointing,
        optimizer_in_backward=r.optimizer_in_backward,
        attention=r.attention,
        lora_rank=number(r.lora_rank, "lora_rank", "--lora-rank"),
        lora_targets=r.lora_targets,
        train_modules=r.train_modules,
        gpus=gpus_default if gpus is None else gpus,
        strategy=r.strategy,
        engine=r.engine,
        ubatch=number(r.ubatch, "ubatch", "--ubatch"),
    )


def run_estimate(r: EstimateRequest) -> EstimateReport:
    """`gpuwise estimate --json`."""
    from gpuwise.service.estimate import check_positive, estimate_data

    opts = {
        "concurrency": number(r.concurrency, "concurrency", "--concurrency"),
        "train_tokens": number(r.train_tokens, "dataset_tokens", "--train-tokens"),
        "epochs": number(r.epochs, "epochs", "--epochs"),
        "cpu_bandwidth_gbps": number(r.cpu_bandwidth, "cpu_bandwidth", "--cpu-bandwidth"),
    }
    flags = ("--concurrency", "--train-tokens", "--epochs", "--cpu-bandwidth")
    check_positive(dict(zip(flags, opts.values(), strict=True)))
    with without_local_paths():
        job = job_options(r)
        return estimate_data(r.model, r.gpu, job, {**opts, "gen_tokens": job.gen_tokens})


def run_fit(r: FitRequest) -> dict[str, Any]:
    """`gpuwise fit --json`: 1/2/4/8 GPUs per card, or exactly `gpus` when given."""
    from gpuwise.estimate.fit import GPU_COUNTS
    from gpuwise.service.estimate import fit_data

    with without_local_paths():
        job = job_options(r)
        counts = GPU_COUNTS if r.gpus is None else (job.gpus,)
        return fit_data(r.model, r.vendor, job, lambda: counts).data


def run_cost(r: CostRequest) -> CostReport:
    """`gpuwise cost --json` (no `--plot`: the web page draws its own chart)."""
    from gpuwise.cost.rent import RentUsage
    from gpuwise.cost.resolve import OwnOptions, RentOptions
    from gpuwise.service.cost import STORAGE_KINDS, check_cost_inputs, cost_data

    hours = number(r.hours_per_day, "hours_per_day", "--hours-per-day")
    months = number(r.months, "months", "--months", whole=True)
    idle = number(r.idle_hours_per_day, "hours_per_day", "--idle-hours-per-day")
    sizes = {
        "--data-gb": number(r.data_gb, "storage_gb", "--data-gb"),
        "--egress-gb-per-month": number(
            r.egress_gb_per_month, "storage_gb", "--egress-gb-per-month"
        ),
        "--snapshot-gb": number(r.snapshot_gb, "storage_gb", "--snapshot-gb"),
        "--checkpoint-min": number(r.checkpoint_min, "checkpoint_min", "--checkpoint-min"),
    }
    check_cost_inputs(hours, months, idle, sizes)
    if r.storage not in STORAGE_KINDS:
        raise UserError("cost.bad_storage", value=r.storage)
    usage = RentUsage(
        data_gb=sizes["--data-gb"],
        storage=r.storage,  # type: ignore[arg-type]
        egress_gb_per_month=sizes["--egress-gb-per-month"],
        snapshot_gb=sizes["--snapshot-gb"],
        checkpoint_min=sizes["--checkpoint-min"],
        public_ip=not r.no_public_ip,
        nat=r.nat,
    )
    own_opts = OwnOptions(
        number(r.card_price, "money", "--card-price"),
        number(r.host_price, "money", "--host-price"),
        number_or_name(r.tariff, "tariff", "--tariff"),
        number_or_name(r.pue, "pue", "--pue"),
        r.platform,
        number(r.resale_pct, "percent", "--resale-pct"),
        number(r.maintenance_pct, "percent", "--maintenance-pct"),
        r.owned,
    )
    rent_opts = RentOptions(
        number(
            r.spot_interruptions_per_day, "interruptions_per_day", "--spot-interruptions-per-day"
        ),
        number(r.restart_min, "restart_min", "--restart-min"),
    )
    count = number(r.count, "card_count", "--count")
    with without_local_paths():
        return cost_data(
            r.own,
            count,
            list(r.vs),
            hours,
            months,
            idle,
            usage,
            own_opts,
            rent_opts,
            r.currency,
            number(r.fx, "fx", "--fx"),
        )


def run_offers(r: OffersRequest) -> Any:
    """`gpuwise offers`: an OffersResult (`.as_json()` is `--json`)."""
    from gpuwise.service.offers import query_offers

    max_price = number(r.max_price, "price_per_gpu_hour", "--max-price")
    fx = number(r.fx, "fx", "--fx")
    with without_local_paths():
        return query_offers(r.gpu, r.provider, r.region, r.billing, max_price, r.currency, fx)


def run_doctor_paste(r: DoctorPasteRequest) -> DoctorReport:
    """`gpuwise doctor --from - --json` for pasted text."""
    from gpuwise.service.doctor import paste_report, pasted_text

    start = time.monotonic()
    return paste_report([pasted_text(r.text, "paste", PASTE_MAX_BYTES)], start)


def call(name: str, request: Request) -> dict[str, Any]:
    """The CLI's `--json` document for a named call (see requests.REQUESTS): a report model
    (cost, plan) as its JSON document."""
    from pydantic import BaseModel

    result: Any
    if name == "plan":
        assert isinstance(request, PlanRequest)
        result = run_plan(request).report
    elif name == "offers":
        assert isinstance(request, OffersRequest)
        result = run_offers(request).as_json()
    else:
        runners: dict[str, Any] = {
            "estimate": run_estimate,
            "fit": run_fit,
            "cost": run_cost,
            "doctor_from_paste": run_doctor_paste,
        }
        result = runners[name](request)
    if isinstance(result, BaseModel):
        return result.model_dump(mode="json")
    return result  # type: ignore[no-any-return]
