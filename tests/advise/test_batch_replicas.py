"""Blind w15-03: a one-off batch over independent inputs runs one copy of the model per card.

A batch of 200M documents through BGE-M3 (568M parameters, one card holds it many times over)
was sized as one model split across the cards of a machine, so 2, 4 and 8 cards were 'no
faster than one' and dropped. Independent copies share nothing: N cards finish about N times
sooner at the same cost, which a batch priced by its hours needs to see.
"""

from __future__ import annotations

import datetime as dt

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog

BATCH = {
    "workload": {
        "kind": "serve",
        "model": "bge-m3",
        "samples": 200_000_000,
        "prompt_tokens": 512,
        "gen_tokens": 1,
        "concurrency": 64,
    },
    "months": 1,
    "hours_per_day": 24,
    "region": "eu",
    "entity": "company",
    "currency": "EUR",
}


def test_more_cards_of_a_batch_are_copies_that_finish_sooner() -> None:
    s = parse_scenario(BATCH, "t")
    plan = make_plan(load_catalog(), s, dt.date(2026, 12, 6), fixes=False)
    assert not plan.dropped.get("more-devices-slower")
    by_card: dict[tuple[str, str], dict[int, float]] = {}
    for o in plan.options:
        c = o.candidate
        if c.kind != "rent" or c.nodes != 1 or not o.time_hours:
            continue
        by_card.setdefault((c.gpu.id, c.billing), {})[c.count] = o.time_hours
        if c.count > 1:
            assert o.sized.replicas == c.count, c.label  # one copy per card
    pairs = [(t[1], t[n], n) for t in by_card.values() for n in t if n > 1 and 1 in t]
    assert pairs
    for one, many, n in pairs:
        assert one / many > 0.9 * n, (one, many, n)  # every copy keeps its running batch full


def test_the_export_gives_every_copy_the_batch_running_requests() -> None:
    from gpuwise.export.view import view_of

    cat = load_catalog()
    s = parse_scenario(BATCH, "t")
    plan = make_plan(cat, s, dt.date(2026, 12, 6), fixes=False)
    copies = next(o for o in plan.options if o.sized.replicas > 1)
    v = view_of(cat, plan.scenario, copies, 1, plan.currency)
    assert v.batch_job and v.replicas > 1
    assert v.concurrency_per_replica == BATCH["workload"]["concurrency"]
