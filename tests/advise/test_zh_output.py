"""Chinese plan output reads as a person writes it: no doubled punctuation, no raw vendor ids
in sentences, one dual-chip card is one card, on/off translated (issue 26 item 10)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuwise.i18n import tidy_zh

SCENARIOS = yaml.safe_load((Path(__file__).parent / "scenarios.yaml").read_text("utf-8"))
DOUBLED = re.compile(r"。）|。。|，。|；。")
RAW_VENDOR = re.compile(r"(?<![A-Za-z])(huawei|nvidia|amd|intel) 硬件")


def test_tidy_zh_collapses_a_filled_note_before_the_templates_own_stop() -> None:
    assert tidy_zh("不支持（只用 float16。）。") == "不支持（只用 float16）。"
    assert tidy_zh("好。。") == "好。"


@pytest.mark.parametrize(
    "case", [c for c in SCENARIOS if "scenario" in c][:12], ids=lambda c: c["id"]
)
def test_zh_plan_has_no_doubled_punctuation_or_raw_ids(cli: Any, tmp_path: Path, case: Any) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(case["scenario"], allow_unicode=True), "utf-8")
    res = cli("plan", str(path), "--lang", "zh")
    assert res.code == 0, res.err
    assert not DOUBLED.search(res.out), DOUBLED.search(res.out)
    assert not RAW_VENDOR.search(res.out)
    assert "：on（" not in res.out and "：off（" not in res.out


def test_one_dual_chip_card_is_one_card_in_chinese(cli: Any, tmp_path: Path) -> None:
    scenario = {
        "workload": {"kind": "serve", "model": "qwen2.5:7b", "concurrency": 4},
        "months": 12,
        "hours_per_day": 24,
        "region": "cn",
        "data_may_leave": False,
        "domestic_only": True,
    }
    path = tmp_path / "duo.yaml"
    path.write_text(yaml.safe_dump(scenario), "utf-8")
    res = cli("plan", str(path), "--lang", "zh", "--top", "20")
    assert res.code == 0, res.err
    assert "1 张 Huawei Atlas 300I Duo (2x Ascend 310P) 之间" not in res.out  # between one card
    assert "2 张 atlas-300i-duo" not in res.out  # its two chips are not two cards
    assert "一张 Huawei Atlas 300I Duo (2x Ascend 310P) 上的 2 个芯片" in res.out
