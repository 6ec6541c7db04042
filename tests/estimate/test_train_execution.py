"""Issue 28: the training utilisation has an execution-mode level.

The fitted training shares pooled Hugging Face eager LoRA runs (Qwen's README, LLaMA-Factory's
wiki) with torchtune's compiled ones, so torchtune's RTX 4090 rows turned pessimistic. Each
published run now says how it executed (tests/data/speed_cases.toml `execution`); the fit reads
every run's share back to eager, and an estimate multiplies it by its own mode's sourced
speed-up (speed.toml `train_execution`: torch.compile +27% in torchtune's README, Liger +20%,
Megatron-LM's operator fusion +11 to +19%).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import tomllib

from gpuwise.advise.scenario import Workload
from gpuwise.catalog import load_catalog
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.resolve import Resolved, resolve
from gpuwise.estimate.speed import SpeedInputs
from gpuwise.estimate.speed_constants import SpeedConstants
from gpuwise.estimate.train_speed import execution_of, training_speed

CAT = load_catalog()
MC = MemoryConstants.from_catalog(CAT)
SC = SpeedConstants.from_catalog(CAT)
A100 = CAT.gpu_by_id("a100-80gb")
CASES = Path(__file__).parents[1] / "data" / "speed_cases.toml"
MODES = {"eager", "compiled", "fused", "framework", "unknown"}


def _r(engine: str = "transformers", mode: str = "lora") -> Resolved:
    req = MemoryRequest(
        model=CAT.model("llama3.1:8b"),
        mode=mode,  # type: ignore[arg-type]
        quant="bf16",
        batch=2,
        seq_len=2048,
        engine=engine,
    )
    return resolve(req, MC)


def _tps(r: Resolved, execution: str | None) -> float:
    est = training_speed(r, SC, SpeedInputs(gpu=A100, execution=execution))
    return est.train_tokens_per_s or 0.0


@pytest.mark.parametrize("mode", ["compiled", "fused", "framework"])
def test_a_faster_execution_mode_scales_compute_by_its_catalog_speedup(mode: str) -> None:
    r = _r()
    entry = SC.train_execution(mode)
    assert entry is not None
    ratio = _tps(r, mode) / _tps(r, "eager")
    assert ratio == pytest.approx(entry.speedup, rel=0.01)  # one GPU: the step is compute


def test_a_source_that_does_not_say_counts_as_eager() -> None:
    r = _r()
    assert execution_of(r, "unknown") == "eager"
    assert _tps(r, "unknown") == _tps(r, "eager")


def test_the_engine_sets_the_default_mode() -> None:
    assert execution_of(_r("transformers")) == "eager"
    assert execution_of(_r("torchtune")) == "eager"  # its recipe configs ship compile: False
    assert execution_of(_r("unsloth")) == "fused"
    assert execution_of(_r("torchtune"), "compiled") == "compiled"  # a stated mode wins


def test_the_estimate_names_its_execution_mode() -> None:
    est = training_speed(_r(), SC, SpeedInputs(gpu=A100, execution="compiled"))
    assert est.factors["execution"] == "compiled"
    assert "spd-torchtune-compile" in est.factors["sources"]


def test_every_speedup_lies_within_its_sourced_bounds() -> None:
    assert {e.id for e in SC.executions} == {"compiled", "fused", "framework"}
    for e in SC.executions:
        assert 1.0 <= e.low <= e.speedup <= e.high, e.id
        assert e.source and e.field_sources, e.id


def test_every_training_measurement_says_how_it_executed() -> None:
    cases = tomllib.loads(CASES.read_text(encoding="utf-8"))["case"]
    train = [c for c in cases if c["kind"] == "train"]
    assert train
    for c in train:
        assert c.get("execution") in MODES, c["id"]
        assert c.get("execution_note"), c["id"]


def test_a_workload_may_state_its_execution_mode() -> None:
    w = Workload(kind="train", model="llama3.1:8b", execution="compiled")
    assert w.execution == "compiled"
    assert Workload(kind="train", model="llama3.1:8b").execution is None
