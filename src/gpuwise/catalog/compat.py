"""The sourced compatibility tables `doctor` and `setup` both consult, with their lookups.

One table for both commands: which GPU architectures each PyTorch wheel carries, which driver a
CUDA toolkit and a GPU architecture need, Ollama's requirements, ROCm and Ascend versions. Built
from the catalog (data/compat/*.toml) by :meth:`CompatTables.from_catalog`; tests build them
directly. Every number here comes from those files, never from code. Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from gpuwise.catalog.cuda_arch import covered
from gpuwise.catalog.names import normalize
from gpuwise.catalog.versions import at_least, major_minor, parse

KINDS = (
    "cuda_driver",
    "cuda_mvc",
    "torch_release",
    "torch_wheel_arch",
    "ollama_gpu_req",
    "gpu_arch_support",
    "rocm_gfx_override",
    "amd_gfx_codename",
    "amd_gfx_target",
    "npu_dcmi_error",
    "torch_npu_cann",
    "cloud_dmi",
    "driver_branch",
    "os_gpu_support",
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
    amd_gfx_target: tuple[Any, ...] = ()
    npu_dcmi_error: tuple[Any, ...] = ()
    torch_npu_cann: tuple[Any, ...] = ()
    cloud_dmi: tuple[Any, ...] = ()
    driver_branch: tuple[Any, ...] = ()
    os_gpu_support: tuple[Any, ...] = ()
    sources: dict[str, str] = field(default_factory=dict)
    gpu_cc: dict[str, str] = field(default_factory=dict)
    """Compute capability by normalized GPU name (every name and alias of the GPU catalog)."""
    gpu_gfx: frozenset[str] = frozenset()
    """The gfx targets of the AMD GPUs in the GPU catalog."""

    @classmethod
    def from_catalog(cls, cat: Any) -> CompatTables:
        """Tables from a loaded catalog (empty when the catalog has none, e.g. test data)."""
        tables = {k: tuple(_extra(cat, k)) for k in KINDS}
        used = {s for rows in tables.values() for row in rows for s in row.source_ids()}
        sources = {s: cat.sources[s].url for s in sorted(used) if s in cat.sources}
        ccs, gfx = _gpu_archs(cat)
        return cls(**tables, sources=sources, gpu_cc=ccs, gpu_gfx=gfx)

    def driver_need(self, cuda: str, windows: bool = False) -> str | None:
        """The driver a cuXY PyTorch wheel needs: its CUDA major family's minimum (minor-version
        compatibility, Table 2 — the wheels ship SASS, so they run on it), else the toolkit's GA
        driver when the family is not listed."""
        return self.family_min_driver(cuda) or self.toolkit_min_driver(cuda, windows)

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

    def cc_of_name(self, name: str) -> str | None:
        """The compute capability of a GPU as a tool names it ("NVIDIA GeForce RTX 5090",
        "NVIDIA H100 80GB HBM3"): the catalog name, else its longest leading words that are."""
        words = [w for w in re.split(r"[\s_-]+", name.strip()) if w]
        for n in range(len(words), 0, -1):
            cc = self.gpu_cc.get(normalize(" ".join(words[:n])))
            if cc:
                return cc
        return None

    def first_driver(self, cc: str, windows: bool = False) -> tuple[str, Any] | None:
        """(the oldest driver that knows a GPU of capability `cc`, its architecture row): the
        GA driver of the first CUDA toolkit that compiles for the architecture. None when the
        architecture or that toolkit's driver is not listed."""
        row = self.arch_support(cc)
        if row is None or not row.first_cuda:
            return None
        need = self.toolkit_min_driver(row.first_cuda, windows)
        return (need, row) if need else None

    def wheel_has_code(self, cuda: str, torch: str, cc: str) -> bool | None:
        """Whether the cuXY wheel of PyTorch `torch` carries code for capability `cc`.

        From the wheel's arch row when listed; otherwise a wheel built with a CUDA older than
        the architecture's first toolkit has no SASS for it, and — when no row of that CUDA
        variant ships PTX — nothing the driver could JIT either. None when it cannot be told.
        """
        archs = self.wheel_archs(cuda, torch)
        if archs is not None:
            sass, ptx = archs
            return covered(cc, sass, [ptx] if ptx else [])
        row = self.arch_support(cc)
        built, first = parse(cuda), parse(row.first_cuda if row else "")
        ships_ptx = any(r.ptx for r in self.torch_wheel_arch if r.cuda == major_minor(cuda))
        if built and first and built < first and not ships_ptx:
            return False
        return None

    def known_cc(self, cc: str) -> bool:
        """Whether `cc` is the capability of a GPU architecture the catalog knows."""
        return self.arch_support(cc) is not None or cc in self.gpu_cc.values()

    def known_ccs(self) -> list[str]:
        """The capability windows the catalog knows, as "8.9" or "3.0–3.7", oldest first."""
        rows = sorted(self.gpu_arch_support, key=lambda r: parse(r.cc_min) or ())
        return [r.cc_min if r.cc_min == r.cc_max else f"{r.cc_min}–{r.cc_max}" for r in rows]

    def known_gfx(self) -> frozenset[str]:
        """Every AMD gfx target the catalog names (LLVM's processor list, GPUs, Ollama's list,
        overrides, codenames)."""
        out = set(self.gpu_gfx)
        out.update(t for r in self.ollama_gpu_req for t in r.gfx_targets)
        out.update(t for r in self.rocm_gfx_override for t in r.gfx)
        out.update(r.gfx for r in self.amd_gfx_codename)
        out.update(t for r in self.amd_gfx_target for t in r.gfx)
        return frozenset(t.lower() for t in out)

    def os_support(self, vendor: str, os_name: str) -> Any | None:
        """Whether a vendor's GPU compute stack runs on an operating system, if listed."""
        return next(
            (r for r in self.os_gpu_support if r.vendor == vendor and r.os == os_name), None
        )

    def install_branch(self, need: str, cc: str) -> str:
        """The driver branch to install: the oldest branch NVIDIA still supports that meets
        `need` and knows the GPU; a GPU whose support ended keeps its last branch. "" when
        no listed branch fits."""
        row = self.arch_support(cc)
        last = row.last_driver_branch if row is not None else ""
        first = self.first_driver(cc)
        floor = [v for v in (need, first[0] if first else "") if v]
        branches = sorted((r.branch for r in self.driver_branch), key=lambda b: int(b))
        fits = [b for b in branches if all(_branch_meets(b, v) for v in floor)]
        if last:
            fits = [b for b in fits if int(b) <= int(last)] or [last]
        return fits[0] if fits else ""

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


def _gpu_archs(cat: Any) -> tuple[dict[str, str], frozenset[str]]:
    """(compute capability by normalized name, gfx targets) of the catalog's GPUs."""
    gpus = {g.id: g for g in getattr(cat, "gpus", ())}
    ccs: dict[str, str] = {}
    for key, gpu_id in getattr(cat, "gpu_index", {}).items():
        cc = getattr(gpus.get(gpu_id), "stack", None)
        if cc is not None and cc.cuda_cc:
            ccs[key] = cc.cuda_cc
    gfx = frozenset(g.stack.rocm_gfx for g in gpus.values() if g.stack.rocm_gfx)
    return ccs, gfx


def _branch_meets(branch: str, need: str) -> bool:
    """Every driver of `branch` (e.g. 580) is at least `need` (e.g. 525.60.13): the branch
    number is above the need's, or equal and the need is the branch's first release."""
    v = parse(need)
    if not v:
        return False
    return int(branch) > v[0] or (int(branch) == v[0] and len(v) == 1)
