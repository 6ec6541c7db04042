"""The table says what a hot spare adds: one replica's devices, and how many are bought.

Blind w29-05: "2 machines of rtx-pro-5000×4 (8 devices) — 2× replicas + 1 spare (N+1)" read
as 8 cards bought where the bill paid for 12 (the spare is a third machine).
"""

from __future__ import annotations

import datetime as dt
import re

from gpuwise.advise.plan import make_plan
from gpuwise.advise.report import plan_report
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.i18n import set_lang
from gpuwise.render.plan import _hardware

SERVICE = {
    "workload": {
        "kind": "serve",
        "model": "gpt-oss-120b",
        "concurrency": 64,
        "prompt_tokens": 2000,
        "gen_tokens": 700,
        "target_tokens_per_s_per_request": 40,
    },
    "months": 12,
    "hours_per_day": 24,
    "region": "eu",
    "public_api": True,
    "standby": "hot",
    "currency": "EUR",
}


def test_the_spare_names_its_devices_and_the_total_bought() -> None:
    set_lang("en")
    cat = load_catalog()
    plan = make_plan(cat, parse_scenario(SERVICE, "spare"), dt.date(2026, 12, 2))
    report = plan_report(cat, plan, top=8)
    hot = [o for o in report.options if o.standby == "hot"]
    assert hot, [o.standby for o in report.options]
    for o in hot:
        cell = _hardware(o)
        per_replica = o.devices // max(1, o.config.replicas or 1)
        found = re.search(r"\+ 1 spare (?:of (\d+) devices|device) \(N\+1\): (\d+) in all", cell)
        assert found, cell
        assert int(found.group(1) or 1) == per_replica, cell
        assert int(found.group(2)) == o.devices + per_replica, cell
