"""The resolver on the real catalog tables: the newest combination that fits, and refusals with
the reason and the nearest working combination for each case the issue names."""

from __future__ import annotations

import re
from typing import Any

import pytest

from gpuwise.errors import UserError
from gpuwise.setup.model import Plan
from gpuwise.setup.tables import SetupTables
from tests.setup.conftest import make_plan


def _refused(plan: Plan) -> tuple[str, str, dict[str, Any]]:
    assert plan.refusal is not None, plan.pins
    return plan.refusal.reason, plan.refusal.nearest, plan.refusal.nearest_params


def test_cu128_wheel_on_driver_470_refused_with_cu118(catalog: Any, tables: SetupTables) -> None:
    flags = {"gpu": "a100-40gb", "driver": "470.82.01", "python": "3.11"}
    plan = make_plan(catalog, tables, "pytorch", flags, torch="2.8", cuda="12.8")
    reason, nearest, near = _refused(plan)
    assert reason == "setup.refuse.driver"
    assert plan.refusal is not None and plan.refusal.params["need"] == "525"  # CUDA 12 MVC
    # the newest wheel whose CUDA 11 family runs on 470.82 (>= 450.80.02) with A100 code
    assert (nearest, near) == ("setup.nearest.wheel", {"torch": "2.5", "tag": "cu118"})
    # and without the explicit request, that is what gets pinned
    ok = make_plan(catalog, tables, "pytorch", flags)
    assert ok.version_of("torch") == "2.5.1" and ok.index_url.endswith("/cu118")


def test_pascal_with_a_wheel_that_dropped_it(catalog: Any, tables: SetupTables) -> None:
    flags = {"vendor": "nvidia", "cc": "6.1", "driver": "580.95.05", "python": "3.11"}
    plan = make_plan(catalog, tables, "pytorch", flags, torch="2.11", cuda="12.8")
    reason, nearest, near = _refused(plan)
    assert reason == "setup.refuse.arch"
    # cu126 is the legacy build that keeps Pascal, through 2.14 (the newest in the tables)
    assert (nearest, near) == ("setup.nearest.wheel", {"torch": "2.14", "tag": "cu126"})


def test_volta_keeps_cu128_only_in_2_8_to_2_10(catalog: Any, tables: SetupTables) -> None:
    flags = {"gpu": "v100-16gb", "driver": "580.95.05", "python": "3.11"}
    ok = make_plan(catalog, tables, "pytorch", flags, torch="2.10", cuda="12.8")
    assert ok.refusal is None and ok.version_of("torch") == "2.10.0"
    assert ok.driver_branch == "580"  # R580 is the last branch for Volta
    bad = make_plan(catalog, tables, "pytorch", flags, torch="2.11", cuda="12.8")
    assert _refused(bad)[0] == "setup.refuse.arch"


def test_sm120_with_torch_before_2_7(catalog: Any, tables: SetupTables) -> None:
    flags = {"gpu": "rtx-5090", "driver": "575.57.08", "python": "3.12"}
    plan = make_plan(catalog, tables, "pytorch", flags, torch="2.6")
    reason, nearest, near = _refused(plan)
    assert reason == "setup.refuse.arch"
    assert nearest == "setup.nearest.wheel" and near["tag"] == "cu128"


def test_blackwell_needs_driver_570(catalog: Any, tables: SetupTables) -> None:
    flags = {"gpu": "rtx-5090", "driver": "550.54", "os": "ubuntu22.04", "python": "3.11"}
    reason, nearest, near = _refused(make_plan(catalog, tables, "pytorch", flags))
    assert (reason, nearest, near) == (
        "setup.refuse.gpu_driver",
        "setup.nearest.upgrade_driver",
        {"need": "570"},
    )


def test_no_variant(catalog: Any, tables: SetupTables) -> None:
    flags = {"gpu": "rtx-4090", "driver": "580.95.05", "python": "3.11"}
    plan = make_plan(catalog, tables, "pytorch", flags, torch="2.12", cuda="12.8")
    assert _refused(plan)[0] == "setup.refuse.no_variant"
    assert plan.refusal is not None and plan.refusal.params["variants"] == "cu130, cu126, cu132"


def test_bitsandbytes_on_maxwell(catalog: Any, tables: SetupTables) -> None:
    flags = {"vendor": "nvidia", "cc": "5.2", "driver": "580.95.05", "python": "3.11"}
    reason, nearest, near = _refused(make_plan(catalog, tables, "qlora", flags))
    assert reason == "setup.refuse.package_arch"
    assert (nearest, near) == ("setup.nearest.stack", {"stack": "pytorch"})


def test_bitsandbytes_not_on_cpu(catalog: Any, tables: SetupTables) -> None:
    plan = make_plan(catalog, tables, "qlora", {"cpu": True, "python": "3.11"})
    assert _refused(plan)[0] == "setup.refuse.vendor"


def test_flash_attention_needs_ampere(catalog: Any, tables: SetupTables) -> None:
    t4 = {"gpu": "t4", "driver": "580.95.05", "python": "3.11"}
    reason, nearest, _ = _refused(make_plan(catalog, tables, "qlora", t4, flash_attn=True))
    assert (reason, nearest) == ("setup.refuse.package_arch", "setup.nearest.sdpa")
    amd = {"gpu": "mi300x", "python": "3.12"}
    assert _refused(make_plan(catalog, tables, "qlora", amd, flash_attn=True))[0] == (
        "setup.refuse.vendor"
    )
    a100 = {"gpu": "a100-80gb", "driver": "580.95.05", "python": "3.11"}
    ok = make_plan(catalog, tables, "qlora", a100, flash_attn=True)
    assert ok.refusal is None and ok.version_of("flash-attn") == "2.8.3.post2"


@pytest.mark.parametrize(
    ("flags", "reason"),
    [
        (
            {"vendor": "nvidia", "cc": "6.1", "driver": "580.95.05", "python": "3.11"},
            "setup.refuse.package_arch",
        ),
        ({"gpu": "apple-m4-max", "python": "3.12"}, "setup.refuse.vendor"),
        ({"cpu": True, "python": "3.11"}, "setup.refuse.vendor"),
        (
            {"gpu": "rtx-4090", "driver": "580.95.05", "os": "windows", "python": "3.11"},
            "setup.refuse.linux_only",
        ),
        ({"vendor": "amd", "gfx": "gfx1031", "python": "3.11"}, "setup.refuse.package_gfx"),
        ({"gpu": "mi300x", "python": "3.11"}, "setup.refuse.vllm_rocm"),
    ],
)
def test_vllm_where_it_cannot_run(
    flags: dict[str, Any], reason: str, catalog: Any, tables: SetupTables
) -> None:
    got, nearest, near = _refused(make_plan(catalog, tables, "vllm", flags))
    assert got == reason
    assert (nearest, near) == ("setup.nearest.stack", {"stack": "ollama"})


def test_vllm_pins_its_torch_and_python(catalog: Any, tables: SetupTables) -> None:
    """The newest vLLM whose wheel runs here, with exactly the torch and CUDA it was built for;
    an older vLLM where the newest cannot run (a Python it does not ship for)."""
    flags = {"gpu": "rtx-4090", "driver": "580.95.05", "python": "3.12"}
    ok = make_plan(catalog, tables, "vllm", flags)
    assert [(p.name, p.version) for p in ok.pins] == [
        ("torch", "2.14.0"),
        ("torchvision", "0.29.0"),
        ("vllm", "0.33.0"),
    ]
    assert ok.extra_index_url.endswith("/cu130") and ok.server is not None
    older = make_plan(catalog, tables, "vllm", {**flags, "python": "3.10"})
    assert older.version_of("vllm") == "0.11.2" and older.extra_index_url.endswith("/cu128")
    reason, nearest, near = _refused(
        make_plan(catalog, tables, "vllm", {**flags, "python": "3.15"})
    )
    assert reason == "setup.refuse.python"
    assert (nearest, near) == (
        "setup.nearest.vllm_python",
        {"version": "0.33.0", "low": "3.11", "high": "3.14"},
    )
    assert make_plan(catalog, tables, "vllm", flags, torch="2.9").version_of("vllm") == "0.11.2"
    with pytest.raises(UserError):
        make_plan(catalog, tables, "vllm", flags, torch="2.12")


def test_vllm_driver_470_names_a_vllm_way_out(catalog: Any, tables: SetupTables) -> None:
    """Regression (newcomer review: `--stack vllm --driver 470` suggested "PyTorch 2.5 from the
    cu118 index", which is no vLLM option)."""
    flags = {"gpu": "a100-80gb", "driver": "470.82.01", "python": "3.11"}
    reason, nearest, near = _refused(make_plan(catalog, tables, "vllm", flags))
    assert reason == "setup.refuse.vllm_driver"
    assert (nearest, near) == ("setup.nearest.vllm_driver", {"version": "0.11.2", "need": "525"})


def test_python_a_release_does_not_ship(catalog: Any, tables: SetupTables) -> None:
    flags = {"gpu": "rtx-4090", "driver": "580.95.05", "python": "3.9"}
    plan = make_plan(catalog, tables, "pytorch", flags, torch="2.10")
    reason, _, near = _refused(plan)
    assert reason == "setup.refuse.python"
    assert near == {"torch": "2.10", "low": "3.10", "high": "3.14"}
    ok = make_plan(catalog, tables, "pytorch", flags)  # 2.8 is the last for Python 3.9
    assert ok.version_of("torch") == "2.8.0"


def test_ollama_requirements(catalog: Any, tables: SetupTables) -> None:
    kepler = {"vendor": "nvidia", "cc": "3.7", "driver": "470.82.01", "python": "3.11"}
    assert _refused(make_plan(catalog, tables, "ollama", kepler))[0] == "setup.refuse.ollama_cc"
    pascal = {"vendor": "nvidia", "cc": "6.1", "driver": "560.35.03", "python": "3.11"}
    reason, _, near = _refused(make_plan(catalog, tables, "ollama", pascal))
    assert reason == "setup.refuse.ollama_driver" and near == {"need": "570"}
    old_amd = {"vendor": "amd", "gfx": "gfx906", "python": "3.11"}
    assert _refused(make_plan(catalog, tables, "ollama", old_amd))[0] == ("setup.refuse.ollama_gfx")
    rdna2 = make_plan(catalog, tables, "ollama", {"vendor": "amd", "gfx": "gfx1031"})
    assert dict(rdna2.env) == {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}
    rdna3 = make_plan(catalog, tables, "ollama", {"vendor": "amd", "gfx": "gfx1100"})
    assert rdna3.env == () and rdna3.base_image is not None
    assert rdna3.base_image.version.endswith("-rocm")


def test_rocm_version_selects_wheels(catalog: Any, tables: SetupTables) -> None:
    flags = {"gpu": "rx-7900-xtx", "rocm": "6.4", "python": "3.12"}
    plan = make_plan(catalog, tables, "pytorch", flags)
    assert plan.version_of("torch") == "2.9.1" and plan.index_url.endswith("/rocm6.4")
    bad = make_plan(catalog, tables, "pytorch", {**flags, "rocm": "5.0"})
    reason, _, near = _refused(bad)
    assert reason == "setup.refuse.rocm" and near == {"torch": "2.13", "rocm": "7.2"}


def test_image_never_newer_than_the_driver(catalog: Any, tables: SetupTables) -> None:
    flags = {"gpu": "a100-80gb", "driver": "550.54.15", "python": "3.11"}
    plan = make_plan(catalog, tables, "pytorch", flags)
    assert plan.index_url.endswith("/cu126")  # CUDA 12 minor-version compatibility
    assert plan.base_image is not None and plan.base_image.version.startswith("12.4.")


def test_every_pin_has_a_source_with_url_and_date(catalog: Any, tables: SetupTables) -> None:
    flags = {"gpu": "rtx-4090", "driver": "580.95.05", "python": "3.12"}
    for stack in ("pytorch", "qlora", "vllm", "ollama"):
        plan = make_plan(catalog, tables, stack, flags)
        pins = [*plan.pins, *(p for p in (plan.base_image, plan.uv_image) if p)]
        assert pins
        for pin in pins:
            assert pin.sources, pin
            for sid in pin.sources:
                url, date = tables.sources[sid]
                assert url.startswith("https://") and re.fullmatch(r"\d{4}-\d{2}-\d{2}", date)


def test_ascend_pairs_torch_npu_with_cann(catalog: Any, tables: SetupTables) -> None:
    flags = {"ascend": "910b", "cann": "8.0.RC3", "python": "3.10"}
    plan = make_plan(catalog, tables, "pytorch", flags)
    assert [(p.name, p.version) for p in plan.pins] == [("torch", "2.4.0"), ("torch-npu", "2.4.0")]
    assert plan.extra_index_url.endswith("/whl/cpu")
    newest = make_plan(catalog, tables, "pytorch", {"gpu": "ascend-910b", "python": "3.11"})
    assert newest.version_of("torch-npu") == "2.12.0"  # CANN 9.1.0, the newest listed
    reason, nearest, near = _refused(
        make_plan(catalog, tables, "pytorch", {**flags, "cann": "7.5"})
    )
    assert (reason, nearest, near) == ("setup.refuse.cann", "setup.nearest.cann", {"cann": "9.1.0"})
    assert _refused(make_plan(catalog, tables, "qlora", flags))[0] == "setup.refuse.ascend_stack"
