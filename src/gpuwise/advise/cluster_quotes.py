"""Clouds that rent RDMA clusters without a public price, named when training spans machines.

A training job too big for one machine in time runs on several, and its speed then hangs on
the network between them. Where the offers the catalog can price publish no such network,
the plan times them on plain Ethernet (catalog plan assumption scale_out_network_gbps_per_node),
which can leave a pre-training burst with no option, or with a slow one, while the clouds
built for it (Tencent HCC, Alibaba Lingjun, …: catalog Provider.rdma_clusters, sourced) show
their prices only after log-in (blind w14-05). The plan names those clouds in the user's
region and how to add a quote with its network (`gpuwise offers add … --network-gbps`), so the
next plan times the job on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpuwise.advise.regions import find_region
from gpuwise.catalog import Catalog

if TYPE_CHECKING:
    from gpuwise.advise.evaluate import Option
    from gpuwise.advise.plan import Plan

Fired = tuple[str, dict[str, Any]]


def _on_assumed_network(o: Option) -> bool:
    """An option that spans machines joined by a network nobody published."""
    return o.candidate.nodes > 1 and o.sized.network_assumed


def rdma_cluster_note(cat: Catalog, plan: Plan) -> list[Fired]:
    """The clouds of the scenario's region that rent RDMA clusters, when a training plan has
    no option or ranks first one that spans machines on an assumed network, and such options
    were sized (the job needed more than a machine)."""
    s = plan.scenario
    if s.workload.kind != "train":
        return []
    considered = (*plan.options, *plan.infeasible, *plan.unchecked)
    if not any(_on_assumed_network(o) for o in considered):
        return []
    if plan.options and not _on_assumed_network(plan.options[0]):
        return []
    region = find_region(cat, s.region)
    # no region named: the clouds of the market the currency points to (as the buyer is)
    kind = region.kind if region is not None else ("cn" if s.currency == "CNY" else "global")
    clouds = [p for p in cat.providers.values() if p.rdma_clusters and p.region_kind == kind]
    if not clouds:
        return []
    gbps = next(o.sized.network_gbps_per_node for o in considered if _on_assumed_network(o))
    params: dict[str, Any] = {
        "provider": clouds[0].id,
        "gbps": gbps,
        "clouds_en": "; ".join(f"{p.name_en}: {', '.join(p.rdma_clusters)}" for p in clouds),
        "clouds_zh": "；".join(f"{p.name_zh}：{'、'.join(p.rdma_clusters)}" for p in clouds),
    }
    return [("plan.note_rdma_clusters_unpriced", params)]
