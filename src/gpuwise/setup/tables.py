"""The shared compatibility tables (catalog.compat, also read by the doctor) plus setup's own
rows (data/compat/setup.toml): exact builds, images, package pins, servers, features."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpuwise.catalog.compat import CompatTables
from gpuwise.catalog.versions import major_minor, parse

KINDS = (
    "torch_build",
    "base_image",
    "package_pin",
    "gpu_requirement",
    "server_default",
    "feature",
)


@dataclass(frozen=True)
class SetupTables:
    """Rows by kind, and every catalog source as (url, retrieved date) for `--explain`."""

    compat: CompatTables
    torch_build: tuple[Any, ...] = ()
    base_image: tuple[Any, ...] = ()
    package_pin: tuple[Any, ...] = ()
    gpu_requirement: tuple[Any, ...] = ()
    server_default: tuple[Any, ...] = ()
    feature: tuple[Any, ...] = ()
    sources: dict[str, tuple[str, str]] = field(default_factory=dict)

    @classmethod
    def from_catalog(cls, cat: Any) -> SetupTables:
        """Tables from a loaded catalog."""
        rows = {k: tuple(cat.extra(k)) for k in KINDS}
        sources = {s.id: (s.url, s.retrieved.isoformat()) for s in cat.sources.values()}
        return cls(compat=CompatTables.from_catalog(cat), sources=sources, **rows)

    def build_for(self, release: str) -> Any | None:
        """The newest exact torch build of release X.Y (or of exactly X.Y.Z)."""
        exact = [b for b in self.torch_build if b.torch == release]
        if exact:
            return exact[0]
        rows = [b for b in self.torch_build if major_minor(b.torch) == major_minor(release)]
        return max(rows, key=lambda b: parse(b.torch) or (), default=None)

    def requirement(self, package: str) -> Any | None:
        """What a package needs of a GPU."""
        return next((r for r in self.gpu_requirement if r.package == package), None)

    def pins(self, group: str) -> list[Any]:
        """Package pins of a stack group, in table order (newest first for vLLM)."""
        return [p for p in self.package_pin if p.group == group]

    def images(self, kind: str) -> list[Any]:
        """Base images of a kind."""
        return [i for i in self.base_image if i.kind == kind]

    def server(self, engine: str) -> Any | None:
        """A server's documented defaults."""
        return next((s for s in self.server_default if s.engine == engine), None)

    def feature_support(self, stack: str, feature: str) -> Any | None:
        """The vendor × feature matrix row (features.toml)."""
        return next((f for f in self.feature if f.stack == stack and f.feature == feature), None)

    def known_gfx(self) -> frozenset[str]:
        """Every gfx target the catalog names, with those packages state they ship for."""
        listed = {t.lower() for r in self.gpu_requirement for t in r.gfx_targets}
        return self.compat.known_gfx() | listed
