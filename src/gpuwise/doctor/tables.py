"""The sourced compatibility tables the rules consult, with the lookups they need.

Built from the catalog (data/compat/*.toml) by :meth:`CompatTables.from_catalog`; tests build
them directly. Every number here comes from those files, never from code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpuwise.doctor.versions import at_least, major_minor, parse

KINDS = (
    "cuda_driver",
    "cuda_mvc",
    "torch_release",
    "torch_wheel_arch",
    "ollama_gpu_req",
    "gpu_arch_support",
    "rocm_gfx_override",
    "amd_gfx_codename",
    "npu_dcmi_error",
    "torch_npu_cann",
    "cloud_dmi",
)


@dataclass(frozen=True)
class CompatTables:
    """CUDA ↔ driver, PyTorch ↔ Python/CUDA, wheel ↔ GPU architecture, Ollama's requirements,
    architecture support windows, ROCm overrides, Ascend codes and versions, cloud DMI names."""

    cuda_driver: tuple[Any, ...] = ()
    cuda_mvc: tuple[Any, ...] = ()
    torch_release: tuple[Any, ...] = ()
    torch_wheel_arch: tuple[Any, ...] = ()
    ollama_gpu_req: tuple[Any, ...] = ()
    gpu_arch_support: tuple[Any, ...] = ()
    rocm_gfx_override: tuple[Any, ...] = ()
    amd_gfx_codename: tuple[Any, ...] = ()
    npu_dcmi_error: tuple[Any, ...] = ()
    torch_npu_cann: tuple[Any, ...] = ()
    cloud_dmi: tuple[Any, ...] = ()
    sources: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_catalog(cls, cat: Any) -> CompatTables:
        """Tables from a loaded catalog (empty when the catalog has none, e.g. test data)."""
        tables = {k: tuple(_extra(cat, k)) for k in KINDS}
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

    def wheel_archs(self, cuda: str, torch: str = "") -> tuple[list[str], str | None] | None:
        """(architectures with SASS, PTX architecture) of the cuXYZ wheels of release `torch`.

        Without a release, the newest row for that CUDA version. None when not listed.
        """
        want = major_minor(cuda)
        rows = [r for r in self.torch_wheel_arch if r.cuda == want]
        if torch:
            rows = [r for r in rows if _in_range(torch, r.torch_min, r.torch_max)]
        rows.sort(key=lambda r: parse(r.torch_min) or (), reverse=True)
        return (list(rows[0].archs), rows[0].ptx) if rows else None

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

    def arch_support(self, cc: str) -> Any | None:
        """The support window of the NVIDIA architecture of capability `cc`, if listed."""
        for row in self.gpu_arch_support:
            if at_least(cc, row.cc_min) and at_least(row.cc_max, cc):
                return row
        return None

    def gfx_override(self, gfx: str) -> str | None:
        """The HSA_OVERRIDE_GFX_VERSION value documented for an unsupported gfx target."""
        want = gfx.split(":")[0].strip().lower()
        return next((r.override for r in self.rocm_gfx_override if want in r.gfx), None)

    def gfx_of_codename(self, name: str) -> str | None:
        """The gfx target of a chip codename as lspci prints it ("Navi 22", "navi22")."""
        want = name.lower().replace(" ", "")
        return next((r.gfx for r in self.amd_gfx_codename if r.codename == want), None)

    def dcmi_cause(self, code: int) -> str | None:
        """What an npu-smi "ret is <code>" means (a cause key), if listed."""
        return next((r.cause for r in self.npu_dcmi_error if r.code == code), None)

    def cann_for_torch_npu(self, torch_npu: str) -> list[str]:
        """CANN versions the Ascend table pairs with this torch_npu package version."""
        want = torch_npu.split("+")[0].strip()
        return [r.cann for r in self.torch_npu_cann if r.torch_npu == want]

    def torch_npu_for_cann(self, cann: str, torch: str = "") -> list[str]:
        """torch_npu versions for a CANN version (and a PyTorch X.Y.Z when given)."""
        return [
            r.torch_npu
            for r in self.torch_npu_cann
            if _same_cann(r.cann, cann) and (not torch or r.torch == torch.split("+")[0])
        ]


def _extra(cat: Any, kind: str) -> tuple[Any, ...]:
    try:
        return tuple(cat.extra(kind))
    except (KeyError, AttributeError):
        return ()


def _in_range(version: str, low: str, high: str) -> bool:
    """low ≤ X.Y of `version` ≤ high (empty bounds are open)."""
    mm = major_minor(version)
    if not mm:
        return False
    return (not low or bool(at_least(mm, low))) and (not high or bool(at_least(high, mm)))


def _same_cann(a: str, b: str) -> bool:
    """CANN versions equal ignoring case ("8.0.RC3" vs "8.0.rc3") and a trailing ".0"."""
    return a.strip().lower().removesuffix(".0") == b.strip().lower().removesuffix(".0")
