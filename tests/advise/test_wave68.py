"""Blind wave 68: Vultr's MI300X rents a whole 8-GPU bare-metal node (w68-03: one GPU of it
was the first-ranked rental)."""

from __future__ import annotations

from gpuwise.catalog import Catalog


def test_vultr_mi300x_is_rented_by_the_node(cat: Catalog) -> None:
    rows = [o for o in cat.offers if o.provider == "vultr" and o.gpu == "mi300x"]
    assert rows and all(o.node_gpus == 8 for o in rows)
