"""`gpuwise export` end to end (in-process): bad input is one line and exit 2, files are printed
or written into --out and never replaced without --force, --json lists what was written."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--example", "--to", "slurm"], "skypilot, k8s, vllm"),
        (["--example"], "--to"),
        (["--example", "--to", "vllm"], "training plan"),
        (["--example", "--to", "torchrun", "--option", "0"], "--option"),
        (["--example", "--to", "torchrun", "--option", "100000"], "pick 1 to"),
        (["--persona", "nobody", "--to", "k8s"], "nobody"),
        (["--example", "--persona", "individual", "--to", "k8s"], "--persona"),
    ],
)
def test_bad_input_is_one_line_exit_2(cli: Any, args: list[str], words: str) -> None:
    res = cli("export", *args)
    assert res.code == 2
    lines = [line for line in res.err.splitlines() if line.strip()]
    assert len(lines) == 1 and words in lines[0], res.err
    assert "Traceback" not in res.err


def test_one_file_prints_as_the_file(cli: Any) -> None:
    res = cli("export", "--persona", "small-team", "--to", "skypilot")
    assert res.code == 0, res.err
    doc = yaml.safe_load(res.out)  # stdout is the task YAML itself: `> task.yaml` works
    name, count = doc["resources"]["accelerators"].split(":")
    assert name and int(count) >= 1


def test_writes_then_refuses_then_force_keeps_bak(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "serve"
    res = cli("export", "--persona", "cost-extreme", "--to", "vllm", "--out", str(out))
    assert res.code == 0, res.err
    assert sorted(p.name for p in out.iterdir()) == ["compose.yaml", "serve.sh"]
    assert os.access(out / "serve.sh", os.X_OK)
    (out / "serve.sh").write_text("mine\n", encoding="utf-8")
    again = cli("export", "--persona", "cost-extreme", "--to", "vllm", "--out", str(out))
    assert again.code == 2 and "--force" in again.err
    assert (out / "serve.sh").read_text(encoding="utf-8") == "mine\n"
    forced = cli(
        "export", "--persona", "cost-extreme", "--to", "vllm", "--out", str(out), "--force"
    )
    assert forced.code == 0, forced.err
    assert (out / "serve.sh.bak").read_text(encoding="utf-8") == "mine\n"
    assert "vllm serve" in (out / "serve.sh").read_text(encoding="utf-8")


def test_out_that_is_a_file(cli: Any, tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.write_text("x", encoding="utf-8")
    res = cli("export", "--example", "--to", "torchrun", "--out", str(taken))
    assert res.code == 2 and "is a file" in res.err


def test_json_lists_the_files_written(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "train"
    res = cli("export", "--example", "--to", "llama-factory", "--out", str(out), "--json")
    assert res.code == 0, res.err
    data = res.json()
    assert data["target"] == "llama-factory" and data["option"] == 1
    assert sorted(Path(p).name for p in data["written"]) == ["launch.sh", "train.yaml"]
    assert {f["name"] for f in data["files"]} == {"launch.sh", "train.yaml"}
    assert [n["id"] for n in data["notes"]] == ["note_dataset"]


def test_refusal_in_chinese(cli: Any) -> None:
    res = cli("export", "--example", "--to", "vllm", "--lang", "zh")
    assert res.code == 2 and "训练方案" in res.err
