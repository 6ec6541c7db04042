"""Tables for `gpuwise models`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich import box
from rich.table import Table

from gpuwise.i18n import t
from gpuwise.render.out import fmt_num


def _attention(m: dict[str, Any]) -> str:
    """MHA / GQA / MQA / MLA, with the sliding window if any."""
    if m.get("bidirectional"):
        return "encoder"
    if m["mla"]:
        return "MLA + DSA" if m.get("sparse_attention") else "MLA"
    ca = m.get("compressed_attention")
    if ca:
        return f"MQA + SWA {m['sliding_window']} + CSA/HCA"
    if m.get("kv_layers") == 0:
        return "SSM"
    heads, kv = m["heads"], m["kv_heads"]
    kind = "MHA" if kv == heads else ("MQA" if kv == 1 else f"GQA {heads}/{kv}")
    if m["sliding_window"]:
        kind += f" + SWA {m['sliding_window']}"
    if m.get("ssm"):
        kind += " + SSM"
    lin = m.get("linear_attention")
    if lin:
        kind += f" + {lin['kind']} ×{lin['layers']}"
    return kind


def model_table(models: Sequence[dict[str, Any]]) -> Table:
    """One row a model (listing dicts): size, active size, shape, attention kind, context."""
    table = Table(title=t("models.title", n=len(models)), title_justify="left", box=box.SIMPLE_HEAD)
    for key, justify in (
        ("col.id", "left"),
        ("col.family", "left"),
        ("col.params_b", "right"),
        ("col.active_b", "right"),
        ("col.layers", "right"),
        ("col.attention", "left"),
        ("col.context", "right"),
        ("col.ollama", "left"),
    ):
        table.add_column(t(key), justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for m in models:
        table.add_row(
            m["id"],
            m["family"],
            fmt_num(m["params_b"], 2),
            fmt_num(m["active_params_b"], 2),
            str(m["layers"]),
            _attention(m),
            f"{m['max_context']:,}",
            ", ".join(m["ollama_tags"][:2]) or "—",
        )
    return table


def model_detail(d: dict[str, Any]) -> Table:
    """Every architecture number of one model, then its sources."""
    table = Table(title=d["name"], show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column()
    keys = (
        "id",
        "family",
        "origin",
        "params_b",
        "active_params_b",
        "layers",
        "hidden_size",
        "intermediate_size",
        "heads",
        "kv_heads",
        "head_dim",
        "vocab_size",
        "tied_embeddings",
        "max_context",
        "sliding_window",
        "sliding_window_layers",
        "mla",
        "moe",
        "gguf_file_type",
        "kv_layers",
        "ssm",
        "linear_attention",
        "sparse_attention",
        "compressed_attention",
        "vision_params_b",
        "task",
        "weight_dtype",
        "weight_bytes_exact",
    )
    for key in keys:
        value = d.get(key)
        if value is None or (key == "kv_layers" and value == d["layers"]):
            continue
        if key == "task":
            if value == "generate":
                continue
            value = t(f"model.task.{value}")
        if isinstance(value, dict):
            value = ", ".join(f"{k}={v}" for k, v in value.items())
        elif isinstance(value, float):
            value = fmt_num(value, 2)
        table.add_row(t(f"field.{key}"), str(value))
    for key in ("hf_repos", "ollama_tags"):
        if d.get(key):
            table.add_row(t(f"field.{key}"), ", ".join(d[key]))
    for s in d["sources"]:
        table.add_row(t("col.source"), f"{s['url']} ({s['retrieved']})")
    note = (d.get("reading") or {}).get("note")
    if note:  # how the name was read: an Ollama tag is Ollama's file
        table.add_row(t("field.reading"), t(note["key"], **note["params"]))
    return table
