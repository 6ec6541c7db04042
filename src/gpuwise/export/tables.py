"""The catalog rows an export reads, gathered once: flag names, mapped values, SkyPilot's clouds
and accelerator names, device-plugin resources, images, sizes, and what `setup` and the memory
model already hold (server ports, the Ollama image, the engines' preallocated memory share).

Pure: built from a loaded Catalog; every lookup of a missing row is a KeyError the caller turns
into a one-line refusal, never a guessed name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpuwise.catalog import Catalog
from gpuwise.catalog.schema_export import ExportImage, K8sDevice, SkypilotAccelerator


@dataclass(frozen=True)
class ExportTables:
    """Everything an export file is spelled with, keyed for lookup."""

    flags: dict[str, str]
    values: dict[str, str]
    settings: dict[str, float]
    clouds: dict[str, str]
    accelerators: tuple[SkypilotAccelerator, ...]
    devices: tuple[K8sDevice, ...]
    images: tuple[ExportImage, ...]
    server_ports: dict[str, int] = field(default_factory=dict)
    health_paths: dict[str, str] = field(default_factory=dict)
    ollama_images: dict[str, str] = field(default_factory=dict)
    preallocate: dict[str, float] = field(default_factory=dict)
    features: dict[tuple[str, str], tuple[str, str, str]] = field(default_factory=dict)
    setup_pins: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Every version `setup` pins per package (newest first)."""

    @classmethod
    def from_catalog(cls, cat: Catalog) -> ExportTables:
        """Read the export rows and the few setup and memory rows an export reuses."""
        ollama = {b.variant or "cuda": b.ref for b in cat.extra("base_image") if b.kind == "ollama"}
        return cls(
            flags={f.id: f.value for f in cat.extra("export_flag")},
            values={v.id: v.value for v in cat.extra("export_value")},
            settings={s.id: s.value for s in cat.extra("export_setting")},
            clouds={c.id: c.infra for c in cat.extra("skypilot_cloud")},
            accelerators=tuple(cat.extra("skypilot_accelerator")),
            devices=tuple(cat.extra("k8s_device")),
            images=tuple(cat.extra("export_image")),
            server_ports={s.engine: s.port for s in cat.extra("server_default")},
            health_paths={s.engine: s.health_path for s in cat.extra("server_default")},
            ollama_images=ollama,
            preallocate={
                e.id: e.preallocate_fraction
                for e in cat.extra("engine")
                if getattr(e, "preallocate_fraction", None)
            },
            features={
                (f.stack, f.feature): (f.support, f.note_en, f.note_zh)
                for f in cat.extra("feature")
            },
            setup_pins=_pins(cat),
        )

    def flag(self, tool: str, key: str) -> str:
        """How `tool` spells `key` (vllm, tensor_parallel → --tensor-parallel-size)."""
        return self.flags[f"{tool}.{key}"]

    def value(self, table: str, key: str) -> str | None:
        """A plan value as a tool names it, None when the tool needs no value for it."""
        return self.values.get(f"{table}.{key}")

    def setting(self, key: str) -> float:
        """A sourced size or default (ports, disk, shared memory)."""
        return self.settings[key]

    def longest_prefix(self, table: str, name: str) -> str | None:
        """The value whose key is the longest start of `name` (LLaMA-Factory templates by the
        start of a model id)."""
        prefix = f"{table}."
        best_start, best = "", None
        for key, value in self.values.items():
            start = key[len(prefix) :]
            if key.startswith(prefix) and name.startswith(start) and len(start) > len(best_start):
                best_start, best = start, value
        return best

    def image(self, engine: str, stack: str, gpu: str) -> ExportImage | None:
        """The engine's image for this stack, the card's own build first."""
        rows = [i for i in self.images if i.engine == engine and i.stack == stack]
        own = [i for i in rows if gpu in i.gpus]
        generic = [i for i in rows if not i.gpus]
        return next(iter(own or generic), None)

    def device(self, vendor: str, gpu: str) -> str | None:
        """The Kubernetes extended resource for this card's device plugin."""
        own = [d for d in self.devices if gpu in d.gpus]
        generic = [d for d in self.devices if d.vendor == vendor and not d.gpus]
        found = next(iter(own or generic), None)
        return found.resource if found else None

    def accelerator(self, gpu: str, infra: str | None) -> str | None:
        """SkyPilot's name of the card, the one its catalog lists on `infra` first."""
        rows = [a for a in self.accelerators if a.gpu == gpu]
        listed = [a for a in rows if infra and infra in a.clouds]
        found = next(iter(listed or rows), None)
        return found.name if found else None

    def feature(self, stack: str, feature: str) -> tuple[str, str, str]:
        """(support, note_en, note_zh) of a framework on a software stack ('unknown' if absent)."""
        return self.features.get((stack, feature), ("unknown", "", ""))


def _pins(cat: Catalog) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for p in cat.extra("package_pin"):
        out[p.package] = (*out.get(p.package, ()), p.version)
    return out


def plain(value: float) -> Any:
    """A setting as an int where it is whole (ports, GB), else the float."""
    return int(value) if float(value).is_integer() else value
