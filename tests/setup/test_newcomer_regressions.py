"""Regressions from the newcomer review (shared/research/review3/newcomer.md), one test per case,
named after it: `setup` wrote environments that cannot work and exited 0, and a few messages
were garbled. A refusal exits 1 and names what would work instead."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpuwise.setup.render_docker import volume_of
from gpuwise.setup.render_files import render_all
from gpuwise.setup.tables import SetupTables
from tests.setup.conftest import make_plan


def refused(cli: Any, *args: str) -> dict[str, Any]:
    """Run setup --json; it must exit 1 with a refusal; returns the refusal."""
    res = cli("setup", *args, "--json")
    assert res.code == 1, (res.code, res.out, res.err)
    doc = json.loads(res.out)
    assert doc["ok"] is False and doc["pins"] == [] and doc["files"] == []
    return dict(doc["refusal"])


def test_s_macos_4090(cli: Any) -> None:
    refusal = refused(cli, "--stack", "pytorch", "--gpu", "rtx-4090", "--os", "macos")
    assert refusal["reason_id"] == "os_vendor"
    assert "10.2" in refusal["reason"] and "--os ubuntu24.04" in refusal["nearest"]
    assert "NVIDIA" in refusal["reason"] and "macOS" in refusal["reason"]
    assert refusal["sources"] and refusal["sources"][0]["url"].startswith("https://")


def test_s_cc_99(cli: Any) -> None:
    refusal = refused(cli, "--stack", "pytorch", "--vendor", "nvidia", "--cc", "99.0")
    assert refusal["reason_id"] == "unknown_cc"
    assert "99.0" in refusal["reason"] and "8.9" in refusal["nearest"]


def test_s_gfx_bad(cli: Any) -> None:
    refusal = refused(cli, "--stack", "pytorch", "--vendor", "amd", "--gfx", "gfx9999")
    assert refusal["reason_id"] == "unknown_gfx" and "gfx1100" in refusal["nearest"]


def test_real_but_unlisted_targets_are_still_accepted(cli: Any) -> None:
    """The check is against what exists (LLVM's processor list, NVIDIA's architectures), not
    against what the GPU catalog happens to list."""
    assert cli("setup", "--vendor", "amd", "--gfx", "gfx906", "--python", "3.12").code == 0
    assert cli("setup", "--vendor", "nvidia", "--cc", "8.7", "--driver", "580.95.05").code == 0


@pytest.mark.parametrize("gpu", ["rtx-4090", "h100-sxm"])
def test_setup_ada_hopper_on_driver_470(cli: Any, gpu: str) -> None:
    """Was: torch 2.5.1+cu118 pinned. Ada and Hopper need the driver of CUDA 11.8."""
    refusal = refused(cli, "--gpu", gpu, "--driver", "470.82")
    assert refusal["reason_id"] == "gpu_driver"
    assert "520.61.05" in refusal["reason"] and "520" in refusal["nearest"]


def test_b200_on_driver_535(cli: Any) -> None:
    """Was: torch 2.11 pinned. Blackwell needs the driver of CUDA 12.8."""
    refusal = refused(cli, "--gpu", "b200", "--driver", "535.183.01")
    assert refusal["reason_id"] == "gpu_driver" and "570.26" in refusal["reason"]


def _plan_file(tmp_path: Path, gpu: str, engine: str) -> str:
    doc = {"options": [{"gpu": gpu, "config": {"engine": engine}}]}
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def test_from_plan_rented_option_does_not_default_to_cu130(cli: Any, tmp_path: Path) -> None:
    """A rented option's driver is unknown: the pins are for the oldest driver that drives the
    card, never the newest CUDA (cu130 needs 580, which a rented box on 535..570 lacks); where
    nothing fits that driver, setup asks for the real one."""
    res = cli("setup", "--gpu", "rtx-4090", "--python", "3.12", "--json")
    assert res.code == 0, res.err
    doc = json.loads(res.out)
    assert "cu13" not in doc["index_url"] and doc["need_driver"] < "525"
    assert any("--driver" in note for note in doc["notes"])  # and it asks for the driver
    image = next(p for p in doc["images"] if p["name"] == "nvidia/cuda")
    assert not image["version"].startswith("13.")
    # a plan's QLoRA option: its packages need torch >= 2.6, whose wheels need driver 525
    path = _plan_file(tmp_path, "rtx-4090", "transformers")
    refusal = refused(cli, "--from-plan", path, "--python", "3.12")
    assert refusal["reason_id"] == "driver_unknown" and "--driver" in refusal["nearest"]
    rented = cli("setup", "--from-plan", path, "--python", "3.12", "--driver", "550.54.15")
    assert rented.code == 0 and "cu126" in rented.out and "cu130" not in rented.out


def test_from_plan_rented_vllm_asks_for_the_driver(cli: Any, tmp_path: Path) -> None:
    path = _plan_file(tmp_path, "rtx-4090", "vllm")
    refusal = refused(cli, "--from-plan", path, "--python", "3.12")
    assert refusal["reason_id"] == "driver_unknown" and "--driver" in refusal["nearest"]
    assert "525" in refusal["nearest"]  # the oldest driver any listed vLLM runs on
    ok = cli("setup", "--from-plan", path, "--python", "3.12", "--driver", "570.124.06")
    assert ok.code == 0 and "vllm==0.11.2" in ok.out  # the newest vLLM for a CUDA-12 driver


def _nvidia_plans(catalog: Any, tables: SetupTables) -> list[Any]:
    flags = [
        {"gpu": "rtx-4090", "driver": "550.54.15", "os": "ubuntu22.04"},
        {"gpu": "rtx-5090", "os": "ubuntu24.04"},
        {"gpu": "h100-sxm"},
        {"gpu": "v100-32gb", "driver": "580.95.05"},
    ]
    return [
        make_plan(catalog, tables, stack, {**f, "python": "3.12"})
        for f in flags
        for stack in ("pytorch", "vllm", "ollama")
    ]


def test_install_driver_sh_unpinned(catalog: Any, tables: SetupTables) -> None:
    """Was: "needs >= 580" above an unpinned `ubuntu-drivers install`. Now the branch setup
    chose, pinned, with -open where only the open kernel modules drive the GPU."""
    for plan in _nvidia_plans(catalog, tables):
        if plan.refusal is not None:
            continue
        script = render_all(plan)["install-driver.sh"]
        assert "ubuntu-drivers install" not in script
        assert f"apt-get install -y nvidia-driver-{plan.driver_branch}" in script
        assert int(plan.driver_branch) >= int(plan.need_driver.split(".")[0])
        if plan.target.gpu == "rtx-5090":
            assert f"nvidia-driver-{plan.driver_branch}-open" in script
        if plan.target.gpu == "v100-32gb":
            assert plan.driver_branch == "580"  # Volta's last branch


def test_volumes_not_writable_by_the_container_user(catalog: Any, tables: SetupTables) -> None:
    """Was: the named volume mounted where the image has no folder, so Docker made it root's.
    Now the mount point exists in the image, owned by the app user, before USER."""
    for plan in _nvidia_plans(catalog, tables):
        if plan.refusal is not None:
            continue
        files = render_all(plan)
        volume, mount = volume_of(plan.stack)
        assert f"{volume}:{mount}" in files["compose.yaml"]
        lines = files["Dockerfile"].splitlines()
        user = next(i for i, line in enumerate(lines) if line.startswith("USER "))
        before = "\n".join(lines[:user])
        assert f"mkdir -p {mount}" in before and f"chown -R {plan.app_uid}:" in before


def test_no_c_compiler_in_vllm_images(catalog: Any, tables: SetupTables) -> None:
    """Was: Triton's launcher build failed ("Failed to find C compiler")."""
    for plan in _nvidia_plans(catalog, tables):
        if plan.refusal is not None:
            continue
        dockerfile = render_all(plan)["Dockerfile"]
        assert ("install -y --no-install-recommends gcc" in dockerfile) == (plan.stack == "vllm")


def test_stale_pins(catalog: Any, tables: SetupTables) -> None:
    """Was: nothing newer than torch 2.12.1 and vLLM 0.11.2. Now the newest releases the
    catalog can cite, each with the month it was published."""
    flags = {"gpu": "rtx-4090", "driver": "580.95.05", "python": "3.12"}
    torch = make_plan(catalog, tables, "pytorch", flags)
    assert torch.version_of("torch") == "2.14.1"
    vllm = make_plan(catalog, tables, "vllm", flags)
    assert vllm.version_of("vllm") == "0.33.0" and vllm.version_of("torch") == "2.14.0"
    ollama = make_plan(catalog, tables, "ollama", flags)
    assert ollama.base_image is not None and ollama.base_image.version == "0.35.1"
    newest_build = max(tables.torch_build, key=lambda r: tuple(map(int, r.torch.split("."))))
    assert newest_build.torch == "2.14.1" and newest_build.released
    assert tables.pins("vllm")[0].released


def test_s_out_exists(cli: Any, tmp_path: Path) -> None:
    """Was: "choose another --force file"."""
    args = ["--gpu", "t4", "--driver", "535.104.05", "--python", "3.10", "--out", str(tmp_path)]
    assert cli("setup", *args).code == 0
    again = cli("setup", *args)
    assert again.code == 2
    assert "--out folder" in again.err and "--force file" not in again.err


def test_s_cuda_99(cli: Any) -> None:
    """Was: "PyTorch any has no CUDA 99.9 wheels (it has: -)"."""
    refusal = refused(cli, "--gpu", "rtx-4090", "--driver", "580.95.05", "--cuda", "99.9")
    assert refusal["reason_id"] == "no_cuda"
    assert "any" not in refusal["reason"] and "cu126" in refusal["reason"]


def test_stack_vllm_driver_470_suggests_a_vllm_option(cli: Any) -> None:
    """Was: "PyTorch 2.5 from the cu118 index", which is no vLLM option."""
    refusal = refused(cli, "--stack", "vllm", "--gpu", "a100-80gb", "--driver", "470.82.01")
    assert "vLLM" in refusal["nearest"] and "cu118" not in refusal["nearest"]


def test_flash_attn_silently_ignored_with_ollama(cli: Any) -> None:
    res = cli("setup", "--stack", "ollama", "--gpu", "rtx-4090", "--flash-attn")
    assert res.code == 2 and "--flash-attn" in res.err


def test_every_header_says_place_native(cli: Any) -> None:
    res = cli("setup", "--gpu", "rtx-4090", "--driver", "580.95.05", "--os", "ubuntu24.04")
    assert res.code == 0 and "place=native" not in res.out
    wsl = cli("setup", "--gpu", "rtx-3090", "--driver", "576.02", "--os", "wsl2")
    assert "place=wsl2" in wsl.out


def test_qlora_pins_meet_their_own_bounds(catalog: Any, tables: SetupTables) -> None:
    """accelerate 1.16 and transformers 5.25 need torch >= 2.6 and Python >= 3.11: the torch
    beside them meets that, and Python 3.10 is refused. With the driver unknown, the oldest
    driver an RTX 4090 runs on (520.61.05) has no torch >= 2.6 wheel listed with its code, so
    setup asks for the driver instead of pinning a set pip would refuse."""
    known = {"gpu": "rtx-4090", "driver": "550.54.15", "python": "3.12"}
    major, minor = (
        int(x)
        for x in make_plan(catalog, tables, "qlora", known).version_of("torch").split(".")[:2]
    )
    assert (major, minor) >= (2, 6)
    unknown = make_plan(catalog, tables, "qlora", {"gpu": "rtx-4090", "python": "3.12"})
    assert unknown.refusal is not None and unknown.refusal.reason == "setup.refuse.driver_unknown"
    old_python = {"gpu": "rtx-4090", "driver": "580.95.05", "python": "3.10"}
    refusal = make_plan(catalog, tables, "qlora", old_python).refusal
    assert refusal is not None and refusal.reason == "setup.refuse.python"
    assert refusal.params["low"] == "3.11"
