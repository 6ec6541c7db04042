"""`gpuwise setup` end to end (in-process): bad input is one line and exit 2, a refusal is
exit 1 with the nearest combination, files are written atomically and never overwritten."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

T4 = ["--gpu", "t4", "--driver", "535.104.05", "--os", "ubuntu22.04", "--python", "3.10"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--gpu", "rtx-9999", "--python", "3.11"], "rtx-9999"),
        (["--stack", "tensorflow", "--cpu"], "tensorflow"),
        (["--cpu", "--gpu", "t4"], "--cpu"),
        (["--gpu", "t4", "--vendor", "amd"], "contradict"),
        (["--gpu", "t4", "--driver", "latest"], "latest"),
        (["--gpu", "t4", "--driver", "550.54.15.1"], "550.54.15.1"),
        (["--vendor", "amd", "--gfx", "navi31"], "navi31"),
        (["--gpu", "t4", "--python", "three"], "three"),
        (["--gpu", "t4", "--os", "plan9"], "plan9"),
        (["--gpu", "t4", "--torch", "latest"], "--torch"),
        (["--gpu", "t4", "--torch", "1.13"], "1.13"),
        (["--cpu", "--cuda", "12.8"], "--cuda"),
        (["--vendor", "nvidia"], "--gpu"),
        (["--gpu", "tpu-v5e"], "tpu-v5e"),
        (["--ascend", "910b", "--cann", "eight"], "eight"),
        (["--ascend", "910b", "--gpu", "t4"], "--ascend"),
        (["--gpu", "t4", "--cann", "8.0.0"], "--cann"),
    ],
)
def test_bad_input_is_one_line_exit_2(cli: Any, args: list[str], words: str) -> None:
    res = cli("setup", *args)
    assert res.code == 2
    lines = [line for line in res.err.splitlines() if line.strip()]
    assert len(lines) == 1 and words in lines[0], res.err
    assert "Traceback" not in res.err


def test_out_that_is_a_file(cli: Any, tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.write_text("mine", encoding="utf-8")
    res = cli("setup", *T4, "--out", str(target))
    assert res.code == 2 and "is a file" in res.err
    assert target.read_text(encoding="utf-8") == "mine"


def test_writes_then_refuses_to_overwrite_then_force_keeps_bak(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "env"
    res = cli("setup", *T4, "--out", str(out))
    assert res.code == 0, res.err
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "Dockerfile",
        "compose.yaml",
        "environment.yml",
        "install-driver.sh",
        "pyproject.toml",
        "requirements.txt",
        "verify.sh",
    ]
    assert (out / "verify.sh").stat().st_mode & 0o111
    (out / "requirements.txt").write_text("edited by me\n", encoding="utf-8")
    again = cli("setup", *T4, "--out", str(out))
    assert again.code == 2 and "--force" in again.err
    assert (out / "requirements.txt").read_text(encoding="utf-8") == "edited by me\n"
    assert not (out / "Dockerfile.bak").exists()  # nothing written before the refusal
    forced = cli("setup", *T4, "--out", str(out), "--force")
    assert forced.code == 0
    assert (out / "requirements.txt.bak").read_text(encoding="utf-8") == "edited by me\n"
    assert "torch==" in (out / "requirements.txt").read_text(encoding="utf-8")
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


def test_refusal_exit_1_names_reason_and_nearest(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "never"
    res = cli(
        "setup",
        "--gpu",
        "rtx-5090",
        "--driver",
        "575.57.08",
        "--python",
        "3.12",
        "--torch",
        "2.6",
        "--out",
        str(out),
    )
    assert res.code == 1
    assert "compute capability 12.0" in res.out and "cu128" in res.out
    assert not out.exists() or not list(out.iterdir())


def test_json_and_explain(cli: Any) -> None:
    res = cli("setup", *T4, "--json")
    assert res.code == 0
    doc = json.loads(res.out)
    assert doc["ok"] is True and doc["refusal"] is None
    assert doc["index_url"] == "https://download.pytorch.org/whl/cu126"
    torch = next(p for p in doc["pins"] if p["name"] == "torch")
    assert torch["version"] == "2.14.1"  # cu126 keeps Turing; 2.14 is the newest listed
    assert all(s["retrieved"] >= "2026-12-02" for s in torch["sources"])
    assert any("pytorch/pytorch" in s["url"] for s in torch["sources"])  # the release matrix
    refused = json.loads(cli("setup", "--stack", "vllm", "--cpu", "--json").out)
    assert refused["ok"] is False and refused["refusal"]["reason_id"] == "vendor"
    explained = cli("setup", *T4, "--explain")
    assert "https://" in explained.out and "(2026-12-0" in explained.out


def test_chinese(cli: Any) -> None:
    res = cli("--lang", "zh", "setup", "--stack", "vllm", "--cpu")
    assert res.code == 1 and "最接近的可行方案" in res.out


def test_this_machine_through_the_doctor_probes(cli: Any, monkeypatch: Any) -> None:
    """Without target flags the doctor's probes describe this machine (here: stubbed facts)."""
    from gpuwise.cli import cmd_setup
    from gpuwise.probe.result import Found

    facts = {
        "system": Found(
            {
                "os": "Linux",
                "machine": "x86_64",
                "distro_id": "ubuntu",
                "distro_version": "22.04",
                "python": "3.11.9",
            }
        ),
        "nvml": Found(
            {
                "driver_version": "570.124.06",
                "gpus": [{"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0"}],
            }
        ),
    }
    monkeypatch.setattr(cmd_setup, "_probe", lambda: facts)
    doc = json.loads(cli("setup", "--json").out)
    assert doc["target"]["origin"] == "probe"
    assert doc["target"]["compute_capability"] == "9.0" and doc["target"]["os"] == "ubuntu22.04"
    assert doc["index_url"].endswith("/cu126")
    assert cli("setup", "--os", "ubuntu24.04").code == 2  # --os alone describes no machine


def test_from_plan_option(cli: Any, tmp_path: Path) -> None:
    plan = {
        "options": [
            {"gpu": "rtx-5090", "config": {"engine": "transformers"}},
            {"gpu": "rtx-4090", "config": {"engine": "vllm"}},
            {"gpu": "rtx-4090", "config": {"engine": "sglang"}},
        ]
    }
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    first = json.loads(cli("setup", "--from-plan", str(path), "--python", "3.12", "--json").out)
    assert (first["stack"], first["target"]["gpu"]) == ("qlora", "rtx-5090")
    second = cli(
        "setup",
        "--from-plan",
        str(path),
        "--option",
        "2",
        "--driver",
        "580.95.05",
        "--python",
        "3.12",
        "--json",
    )
    assert json.loads(second.out)["stack"] == "vllm"
    for args, words in (
        (["--option", "3"], "sglang"),
        (["--option", "9"], "1 to 3"),
        (["--gpu", "t4"], "--from-plan"),
    ):
        res = cli("setup", "--from-plan", str(path), *args)
        assert res.code == 2 and words in res.err, res.err
    assert cli("setup", "--option", "1", "--cpu").code == 2
