"""A planning scenario: the workload, how long and how hard it runs, and the constraints.

Read from YAML or TOML (or built from flags); unknown keys are errors with a did-you-mean, so
a typo never silently changes an answer.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt, ValidationError

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


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Budget(_Strict):
    """How much may be spent, per month or over the whole project."""

    amount: PositiveFloat
    currency: Literal["CNY", "USD"] = "CNY"
    per: Literal["month", "total"] = "month"


class Owned(_Strict):
    """Hardware the team already has."""

    gpu: str
    count: PositiveInt = 1


class Workload(_Strict):
    """What runs: fine-tuning (train), a served model (serve) or local chat (local)."""

    kind: Literal["train", "serve", "local"]
    model: str
    mode: Literal["full", "lora", "qlora", "freeze"] = "qlora"
    dataset_tokens: PositiveFloat | None = None
    samples: PositiveInt | None = None
    seq_len: PositiveInt = 2048
    epochs: PositiveFloat = 1.0
    runs_per_month: PositiveFloat = 1.0
    batch: PositiveInt = 1
    concurrency: PositiveInt = 1
    context: PositiveInt = 4096
    prompt_tokens: PositiveInt | None = None
    gen_tokens: PositiveInt = 256
    target_tokens_per_s: PositiveFloat | None = None
    engine: str | None = None
    quant: str | None = None

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
    months: PositiveFloat = 12.0
    hours_per_day: float = Field(default=8.0, gt=0, le=24)
    budget: Budget | None = None
    deadline_days: PositiveFloat | None = None
    region: str = "any"
    data_may_leave: bool = True
    domestic_only: bool = False
    frameworks: list[str] = Field(default_factory=lambda: ["pytorch"])
    ops_capacity: Literal["none", "some", "strong"] = "some"
    owns: list[Owned] = Field(default_factory=list)
    owns_host: bool = False
    currency: Literal["CNY", "USD"] = "CNY"
    checkpoint_min: PositiveFloat = 30.0
    data_gb: PositiveFloat | None = None
    egress_gb_per_month: float = Field(default=10.0, ge=0)
    max_gpus: PositiveInt = 8
    memory_margin: float = Field(default=0.05, ge=0, lt=0.9)

    def feature_names(self) -> list[str]:
        """Frameworks as the feature matrix names them."""
        return [FRAMEWORKS[f.lower()] for f in self.frameworks]


def _read(path: Path) -> dict[str, Any]:
    """YAML or TOML by extension; a syntax error names the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError("plan.unreadable", file=str(path), problem=str(exc)) from exc
    try:
        if path.suffix == ".toml":
            import tomllib

            data = tomllib.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
    except Exception as exc:
        raise UserError(
            "plan.bad_syntax", file=str(path), problem=str(exc).splitlines()[0]
        ) from exc
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
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err["loc"])
        field = ".".join(str(p) for p in loc)
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
    return scenario


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
