"""Blind w14-05: a quoted RDMA cluster is timed on its own network, and the clouds that rent
such clusters without a public price are named when training spans machines on Ethernet."""

from __future__ import annotations

import datetime as dt

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.prices.quotes import offers_of, quote_from_row

TODAY = dt.date(2026, 12, 6)
BURST = {
    "workload": {
        "kind": "train",
        "model": "qwen2.5:7b",
        "mode": "full",
        "dataset_tokens": 1e11,
        "seq_len": 4096,
        "batch": 1024,
    },
    "months": 1,
    "hours_per_day": 24,
    "deadline_days": 3,
    "max_gpus": 64,
    "entity": "institution",
    "region": "cn",
    "currency": "CNY",
}


def test_every_rdma_cluster_is_sourced() -> None:
    cat = load_catalog()
    named = [p for p in cat.providers.values() if p.rdma_clusters]
    assert {p.id for p in named} >= {"tencent", "alibaba"}
    for p in named:
        assert p.rdma_source in p.source_ids()
        assert p.rdma_source in cat.sources, p.id


def test_pretraining_on_ethernet_names_the_rdma_clouds() -> None:
    plan = make_plan(load_catalog(), parse_scenario(BURST, "test"), TODAY, fixes=False)
    notes = dict(plan.assumptions)
    assert "plan.note_rdma_clusters_unpriced" in notes
    assert "Tencent Cloud" in notes["plan.note_rdma_clusters_unpriced"]["clouds_en"]


def test_a_single_machine_job_gets_no_cluster_note() -> None:
    small = {**BURST, "workload": {**BURST["workload"], "dataset_tokens": 2e8}}
    plan = make_plan(load_catalog(), parse_scenario(small, "test"), TODAY, fixes=False)
    assert plan.options and plan.options[0].candidate.nodes == 1
    assert "plan.note_rdma_clusters_unpriced" not in dict(plan.assumptions)


def test_a_quote_keeps_the_network_it_was_quoted_with() -> None:
    row = {
        "provider": "腾讯云",
        "instance": "HCCPNV5",
        "gpu": "H800",
        "gpu_count": "8",
        "billing": "按量",
        "price": "220元",
        "RDMA网络(Gbps)": "3200",
    }
    from gpuwise.prices.quote_rows import canon

    q = quote_from_row(load_catalog(), 1, {canon(k): v for k, v in row.items()}, TODAY)
    assert q.network_gbps == 3200
    (offer,) = offers_of([q], "quote-test")
    assert offer["network_gbps"] == 3200
