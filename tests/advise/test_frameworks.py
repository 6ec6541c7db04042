"""Which frameworks an option is checked against: the scenario's list, else what the job runs."""

from __future__ import annotations

from gpuwise.advise.scenario import Scenario, parse_scenario


def _scenario(**workload: object) -> Scenario:
    return parse_scenario({"workload": {"model": "llama3.1:8b", **workload}}, "test")


def test_serving_and_local_chat_need_the_options_engine() -> None:
    s = _scenario(kind="local")
    assert s.feature_names("ollama") == ["ollama"]
    assert s.feature_names("llama.cpp") == ["ollama"]
    assert s.feature_names("transformers") == ["pytorch"]
    assert s.feature_names("mlx") == []


def test_training_needs_pytorch_and_qlora_bitsandbytes() -> None:
    assert _scenario(kind="train", mode="lora").feature_names("transformers") == ["pytorch"]
    qlora = _scenario(kind="train", mode="qlora")
    assert qlora.feature_names("transformers") == ["pytorch", "bitsandbytes"]


def test_the_scenarios_own_list_wins() -> None:
    s = parse_scenario(
        {"workload": {"kind": "local", "model": "llama3.1:8b"}, "frameworks": ["jax"]}, "test"
    )
    assert s.feature_names("ollama") == ["jax"]
