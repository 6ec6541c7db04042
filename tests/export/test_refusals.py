"""An option that cannot go to a target is refused in one line (UserError, exit 2 in the CLI),
naming why; an unknown target lists the known ones."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from gpuwise.errors import UserError
from gpuwise.export import TARGETS
from gpuwise.export.check import check, check_target
from tests.export.conftest import first


@pytest.mark.parametrize(
    ("name", "target", "key"),
    [
        ("example", "vllm", "export.refuse_training"),
        ("example", "ollama", "export.refuse_training"),
        ("cost-extreme", "torchrun", "export.refuse_serving"),
        ("cost-extreme", "llama-factory", "export.refuse_serving"),
        ("individual", "vllm", "export.refuse_engine"),
        ("cost-extreme", "ollama", "export.refuse_engine"),
    ],
)
def test_refused_with_the_reason(export: Any, name: str, target: str, key: str) -> None:
    with pytest.raises(UserError) as err:
        export(name, target)
    assert err.value.key == key
    assert "\n" not in err.value.render()


def test_card_skypilot_has_no_name_for(export: Any, plans: Any) -> None:
    n = first(plans["enterprise-domestic"], lambda o: o.candidate.gpu.vendor == "huawei")
    with pytest.raises(UserError) as err:
        export("enterprise-domestic", "skypilot", n)
    assert err.value.key == "export.refuse_accelerator"


def test_ascend_without_a_vllm_ascend_build_is_refused(view: Any, plans: Any, tables: Any) -> None:
    """The catalog's vLLM Ascend image is what makes an Ascend option exportable to vLLM:
    without it the export says so instead of writing a CUDA image for an NPU."""
    n = first(plans["enterprise-domestic"], lambda o: o.candidate.gpu.vendor == "huawei")
    v = view("enterprise-domestic", n)
    check(v, tables, "vllm")  # with the vllm-ascend rows
    without = replace(tables, images=tuple(i for i in tables.images if i.stack != "cann"))
    with pytest.raises(UserError) as err:
        check(v, without, "vllm")
    assert err.value.key == "export.refuse_build"
    assert "vLLM Ascend" in err.value.render()


def test_engine_the_stack_does_not_run(view: Any, tables: Any) -> None:
    v = replace(view("individual"), stack="cann")  # Ollama has no Ascend backend
    with pytest.raises(UserError) as err:
        check(v, tables, "ollama")
    assert err.value.key == "export.refuse_stack" and "Ascend" in err.value.render()


def test_another_engine_must_hold_the_job_in_its_share(view: Any, plans: Any, tables: Any) -> None:
    """vLLM → SGLang: SGLang takes a smaller static share; a job sized to vLLM's larger share
    that does not fit SGLang's is refused with both figures."""
    v = view("cost-extreme", first(plans["cost-extreme"], lambda o: o.sized.engine == "vllm"))
    big = replace(v, memory_per_device_bytes=int(0.90 * v.memory_capacity_bytes))
    with pytest.raises(UserError) as err:
        check(big, tables, "sglang")
    assert err.value.key == "export.refuse_memory"


def test_unknown_target_lists_the_targets() -> None:
    with pytest.raises(UserError) as err:
        check_target("slurm")
    text = err.value.render()
    assert all(target in text for target in TARGETS)
    assert check_target("Kubernetes") == "k8s" and check_target("llama_factory") == "llama-factory"


def test_option_out_of_range(export: Any, plans: Any) -> None:
    count = len(plans["example"].options)
    with pytest.raises(UserError) as err:
        export("example", "torchrun", count + 1)
    assert err.value.key == "export.bad_option" and str(count) in err.value.render()


def test_a_replica_spanning_machines_is_refused_with_the_multi_node_hint(
    view: Any, tables: Any
) -> None:
    """One replica over two machines needs a multi-node launch gpuwise does not write: the
    export says so in one line instead of writing a single-machine command that cannot hold
    the model."""
    v = view("cost-extreme", 1, machines=2, devices=16, replicas=1, machines_per_replica=2)
    for target in ("vllm", "sglang"):
        with pytest.raises(UserError) as err:
            check(v, tables, target)
        assert err.value.key == "export.refuse_spanning"
        assert "\n" not in err.value.render()
