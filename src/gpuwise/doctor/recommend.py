"""Which PyTorch wheel to install here: newest release for this Python whose CUDA build runs on
every GPU (architecture table) and on this driver (toolkit driver table)."""

from __future__ import annotations

from dataclasses import dataclass

from gpuwise.doctor.arch import covered
from gpuwise.doctor.tables import CompatTables
from gpuwise.doctor.versions import at_least, parse, wheel_tag

INDEX = "https://download.pytorch.org/whl/"


@dataclass(frozen=True)
class Wheel:
    """A PyTorch release and the CUDA variant of it to install."""

    torch: str
    cuda: str

    @property
    def index_url(self) -> str:
        """The wheel index of this CUDA variant."""
        return INDEX + wheel_tag(self.cuda)


def _fits(tables: CompatTables, cuda: str, ccs: list[str], driver: str | None, win: bool) -> bool:
    archs = tables.wheel_archs(cuda)
    if archs is None:
        return False  # unknown architecture list: do not recommend blindly
    sass, ptx = archs
    if not all(covered(cc, sass, [ptx] if ptx else []) for cc in ccs):
        return False
    need = tables.toolkit_min_driver(cuda, win) or tables.family_min_driver(cuda)
    return driver is None or need is None or bool(at_least(driver, need))


def pick_wheel(
    tables: CompatTables,
    python: str,
    ccs: list[str],
    driver: str | None,
    windows: bool = False,
) -> Wheel | None:
    """The newest (release, CUDA) pair that fits; stable CUDA variants before experimental."""
    for release in tables.releases_for_python(python):
        variants = sorted(release.cuda_stable, key=lambda c: parse(c) or (), reverse=True)
        variants += sorted(release.cuda_experimental, key=lambda c: parse(c) or (), reverse=True)
        for cuda in variants:
            if _fits(tables, cuda, ccs, driver, windows):
                return Wheel(release.version, cuda)
    return None
