"""`gpuwise export`: a plan option as the launch files of the engines and schedulers people
already run (SkyPilot, Kubernetes, vLLM, SGLang, Ollama, torchrun, accelerate, DeepSpeed,
LLaMA-Factory), with the plan's own numbers in them.

Pure: a plan option and the catalog in, file names and texts out (the CLI prints or writes
them). One module per target family; the names each tool spells things with are catalog data
(catalog/data/compat/export.toml).
"""

from __future__ import annotations

from collections.abc import Callable

from gpuwise.advise.plan import Plan
from gpuwise.catalog import Catalog
from gpuwise.export.check import TARGETS, check, check_target, engine_for
from gpuwise.export.common import Export
from gpuwise.export.k8s import export_k8s
from gpuwise.export.llamafactory import export_llamafactory
from gpuwise.export.ollama import export_ollama
from gpuwise.export.serve import export_server
from gpuwise.export.skypilot import export_skypilot
from gpuwise.export.tables import ExportTables
from gpuwise.export.train import export_accelerate, export_deepspeed, export_torchrun
from gpuwise.export.view import ExportView, pick_option, view_of

WRITERS: dict[str, Callable[[ExportView, ExportTables], Export]] = {
    "skypilot": export_skypilot,
    "k8s": export_k8s,
    "vllm": lambda v, t: export_server(v, t, "vllm"),
    "sglang": lambda v, t: export_server(v, t, "sglang"),
    "ollama": export_ollama,
    "torchrun": export_torchrun,
    "accelerate": export_accelerate,
    "deepspeed": export_deepspeed,
    "llama-factory": export_llamafactory,
}


def format_runs(cat: Catalog, plan: Plan, number: int, engine: str) -> bool:
    """Whether `engine` runs the option's weight format on its card (the precision table):
    checked when a target runs another engine than the plan sized (vLLM ↔ SGLang)."""
    from gpuwise.advise.engines import RUNNABLE
    from gpuwise.catalog.precision import format_support, weight_format_key
    from gpuwise.errors import UserError
    from gpuwise.estimate.constants import MemoryConstants

    o = plan.options[number - 1]
    try:
        fmt = MemoryConstants.from_catalog(cat).weight_format(o.sized.quant)
    except UserError:
        return False
    rows = cat.extra("precision_support")
    verdict = format_support(rows, engine, o.candidate.gpu, weight_format_key(fmt))
    return verdict.support in RUNNABLE


def build(cat: Catalog, plan: Plan, number: int, target: str) -> tuple[ExportView, Export]:
    """The files of option `number` for `target`, or a UserError saying why it cannot be."""
    target = check_target(target)
    option = pick_option(plan.options, number)
    view = view_of(cat, plan.scenario, option, number, plan.currency)
    tables = ExportTables.from_catalog(cat)
    engine = engine_for(view, target)
    same = engine == view.engine
    check(view, tables, target, same or format_runs(cat, plan, number, engine))
    return view, WRITERS[target](view, tables)


__all__ = ["TARGETS", "Export", "ExportView", "build"]
