"""The sourced compatibility tables the rules consult, with the lookups they need.

Built from the catalog (data/compat/*.toml) by :meth:`CompatTables.from_catalog`; tests build
them directly. Every number here comes from those files, never from code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpuwise.doctor.versions import at_least, major_minor, parse


@dataclass(frozen=True)
class CompatTables:
    """CUDA ↔ driver, PyTorch ↔ Python/CUDA, wheel ↔ GPU architecture, Ollama's requirements."""

    cuda_driver: tuple[Any, ...] = ()
    cuda_mvc: tuple[Any, ...] = ()
    torch_release: tuple[Any, ...] = ()
    torch_wheel_arch: tuple[Any, ...] = ()
    ollama_gpu_req: tuple[Any, ...] = ()
    sources: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_catalog(cls, cat: Any) -> CompatTables:
        """Tables from a loaded catalog (empty when the catalog has none, e.g. test data)."""
        kinds = ("cuda_driver", "cuda_mvc", "torch_release", "torch_wheel_arch", "ollama_gpu_req")
        tables = {k: tuple(cat.extra(k)) for k in kinds}
        used = {s for rows in tables.values() for row in rows for s in row.source_ids()}
        sources = {s: cat.sources[s].url for s in sorted(used) if s in cat.sources}
        return cls(**tables, sources=sources)

    def toolkit_min_driver(self, cuda: str, windows: bool = False) -> str | None:
        """Driver that shipped with the GA release of CUDA X.Y (Table 3), if listed."""
        want = major_minor(cuda)
        for row in self.cuda_driver:
            if row.cuda == want and row.release == "GA":
                need = row.windows_min_driver if windows else row.linux_min_driver
                return str(need) if need else None
        return None

    def family_min_driver(self, cuda: str) -> str | None:
        """Minimum driver of the CUDA major family under minor-version compatibility."""
        v = parse(cuda)
        if not v:
            return None
        for row in self.cuda_mvc:
            if row.cuda_major == v[0]:
                return str(row.min_driver)
        return None

    def max_cuda_for_driver(self, driver: str, windows: bool = False) -> str | None:
        """Newest CUDA X.Y whose GA driver requirement `driver` meets (Table 3)."""
        best: tuple[int, ...] | None = None
        for row in self.cuda_driver:
            need = row.windows_min_driver if windows else row.linux_min_driver
            if row.release == "GA" and need and at_least(driver, need):
                v = parse(row.cuda)
                if v and (best is None or v > best):
                    best = v
        return ".".join(str(x) for x in best) if best else None

    def wheel_archs(self, cuda: str) -> tuple[list[str], str | None] | None:
        """(architectures with SASS, PTX architecture) of the cuXYZ wheels, if known."""
        want = major_minor(cuda)
        for row in self.torch_wheel_arch:
            if row.cuda == want:
                return list(row.archs), row.ptx
        return None

    def releases_for_python(self, python: str) -> list[Any]:
        """PyTorch releases supporting this Python X.Y, newest first."""
        py = major_minor(python)
        rows = [
            r
            for r in self.torch_release
            if at_least(py, r.python_min) and at_least(r.python_max, py)
        ]
        return sorted(rows, key=lambda r: parse(r.version) or (), reverse=True)

    def ollama_requirement(self, vendor: str) -> Any | None:
        """Ollama's stated GPU requirement for a vendor."""
        return next((r for r in self.ollama_gpu_req if r.vendor == vendor), None)
