"""Tables for `gpuwise gpus`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich import box
from rich.table import Table

from gpuwise.i18n import t
from gpuwise.render.out import fmt_num


def gpu_table(gpus: Sequence[dict[str, Any]]) -> Table:
    """One row a GPU (listing dicts): memory, bandwidth, dense BF16/FP8, TDP, link."""
    table = Table(title=t("gpus.title", n=len(gpus)), title_justify="left", box=box.SIMPLE_HEAD)
    for key, justify in (
        ("col.id", "left"),
        ("col.vendor", "left"),
        ("col.class", "left"),
        ("col.memory_gb", "right"),
        ("col.bandwidth", "right"),
        ("col.bf16", "right"),
        ("col.fp8", "right"),
        ("col.tdp", "right"),
        ("col.link", "left"),
        ("col.year", "right"),
    ):
        table.add_column(t(key), justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for g in gpus:
        tf = g["tflops"]
        table.add_row(
            g["id"],
            g["vendor"],
            t(f"class.{g['class']}"),
            fmt_num(g["memory_gb"]),
            fmt_num(g["memory_bandwidth_gbps"], 0),
            fmt_num(tf.get("bf16") or tf.get("fp16")),
            fmt_num(tf.get("fp8")),
            fmt_num(g["tdp_w"], 0),
            _link(g),
            str(g["release_year"]),
        )
    return table


def _link(g: dict[str, Any]) -> str:
    if g["interconnect"] != "none":
        return str(g["interconnect"])
    return f"PCIe {g['pcie_gen']}" if g["pcie_gen"] else "—"


def gpu_detail(d: dict[str, Any]) -> Table:
    """Every field of one GPU, then its prices and sources."""
    table = Table(title=d["name"], show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column()
    rows = [
        ("col.id", d["id"]),
        ("col.vendor", d["vendor"]),
        ("col.class", t(f"class.{d['class']}")),
        ("col.architecture", d["architecture"]),
        ("col.year", str(d["release_year"])),
        ("col.memory_gb", f"{fmt_num(d['memory_gb'])} {d['memory_type']}".strip()),
        ("col.bandwidth", fmt_num(d["memory_bandwidth_gbps"], 0)),
        ("col.tflops", ", ".join(f"{k} {fmt_num(v)}" for k, v in d["tflops"].items()) or "—"),
        ("col.tdp", fmt_num(d["tdp_w"], 0)),
        (
            "col.link",
            f"{d['interconnect']} {fmt_num(d['interconnect_gbps'], 0)} GB/s"
            if d["interconnect"] != "none"
            else f"PCIe {d['pcie_gen']}",
        ),
        ("col.stack", ", ".join(f"{k}={v}" for k, v in d["stack"].items()) or "—"),
        ("col.aliases", ", ".join(d["aliases"]) or "—"),
    ]
    if d["export_note"]:
        rows.append(("col.export_note", d["export_note"]))
    if d.get("modified"):
        rows.append(("col.modified", t("gpus.modified_yes")))
    if d.get("unpriced_reason"):
        rows.append(("col.unpriced_reason", d["unpriced_reason"]))
    for p in d["prices"]:
        date = p["date"] or t("cost.undated")
        condition, channel = t(f"condition.{p['condition']}"), t(f"channel.{p['channel']}")
        bought = t("gpus.price_bought", condition=condition, channel=channel)
        text = f"{p['amount']:,.0f} {p['currency']} ({date}): {bought}"
        rows.append((f"price.{p['kind']}", text))
    for s in d["sources"]:
        rows.append(("col.source", f"{s['url']} ({s['retrieved']})"))
    for key, value in rows:
        table.add_row(t(key), value)
    return table
