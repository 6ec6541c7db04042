"""Which PyTorch wheel to install: the newest release for this Python whose CUDA build has code
for every GPU (architecture table) and runs on this driver (toolkit driver table).

Advice comes only from known facts: with the GPU's compute capability or the driver version
unknown, no wheel is named (the advice says which fact is missing). When the driver is too old
for every wheel that carries this GPU's code, the advice names the newest wheel for the GPU and
the driver it needs, so the fix can be "upgrade the driver" instead of a blind reinstall.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuwise.catalog.compat import CompatTables
from gpuwise.catalog.cuda_arch import covered
from gpuwise.catalog.versions import at_least, parse, wheel_tag

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


@dataclass(frozen=True)
class Advice:
    """What can honestly be said about which wheel to install.

    ``wheel`` fits the GPUs and the driver; ``newest`` fits the GPUs and needs ``need_driver``
    (only set when it is newer than ``wheel``); ``missing`` names the unknown facts ("gpu",
    "driver", "python") that kept gpuwise from naming a wheel.
    """

    wheel: Wheel | None = None
    newest: Wheel | None = None
    need_driver: str | None = None
    missing: tuple[str, ...] = ()


def driver_need(tables: CompatTables, cuda: str, windows: bool) -> str | None:
    """The driver a cuXY wheel needs (see :meth:`CompatTables.driver_need`)."""
    return tables.driver_need(cuda, windows)


def _has_code(tables: CompatTables, release: str, cuda: str, ccs: list[str]) -> bool:
    archs = tables.wheel_archs(cuda, release)
    if archs is None:
        return False  # unknown architecture list: never recommend blindly
    sass, ptx = archs
    return all(covered(cc, sass, [ptx] if ptx else []) for cc in ccs)


def _candidates(tables: CompatTables, python: str, ccs: list[str]) -> list[Wheel]:
    """Every (release, CUDA) pair with code for these GPUs, best first (stable before
    experimental within a release, newer CUDA first)."""
    out: list[Wheel] = []
    for release in tables.releases_for_python(python):
        variants = sorted(release.cuda_stable, key=lambda c: parse(c) or (), reverse=True)
        variants += sorted(release.cuda_experimental, key=lambda c: parse(c) or (), reverse=True)
        out += [
            Wheel(release.version, c)
            for c in variants
            if _has_code(tables, release.version, c, ccs)
        ]
    return out


def advise(
    tables: CompatTables,
    python: str,
    ccs: list[str],
    driver: str | None,
    windows: bool = False,
) -> Advice:
    """The wheel that fits, the newest one for the GPU, or which facts are missing."""
    missing = tuple(
        name
        for name, known in (("gpu", ccs), ("driver", driver), ("python", parse(python)))
        if not known
    )
    if missing == ("driver",):
        # the GPU and Python are known: the newest wheel for them, and the driver it needs
        fits = _candidates(tables, python, ccs)
        newest = fits[0] if fits else None
        need = driver_need(tables, newest.cuda, windows) if newest else None
        return Advice(newest=newest, need_driver=need, missing=missing)
    if missing:
        return Advice(missing=missing)
    assert driver is not None
    fits = _candidates(tables, python, ccs)
    if not fits:
        return Advice()
    ok = [w for w in fits if _driver_ok(tables, w.cuda, driver, windows)]
    wheel = ok[0] if ok else None
    newest = fits[0] if fits[0] != wheel else None
    need = driver_need(tables, newest.cuda, windows) if newest else None
    return Advice(wheel=wheel, newest=newest, need_driver=need)


def _driver_ok(tables: CompatTables, cuda: str, driver: str, windows: bool) -> bool:
    need = driver_need(tables, cuda, windows)
    return need is not None and bool(at_least(driver, need))


def pick_wheel(
    tables: CompatTables,
    python: str,
    ccs: list[str],
    driver: str | None,
    windows: bool = False,
) -> Wheel | None:
    """The newest (release, CUDA) pair that fits GPUs and driver; None when unknown or none."""
    return advise(tables, python, ccs, driver, windows).wheel


def last_release_for(tables: CompatTables, cc: str) -> Wheel | None:
    """The newest release in the tables, any Python, whose wheels carry code for capability
    `cc` (how long an old architecture is served)."""
    best: Wheel | None = None
    for release in tables.torch_release:
        for cuda in [*release.cuda_stable, *release.cuda_experimental]:
            if _has_code(tables, release.version, cuda, [cc]):
                key = (parse(release.version) or (), parse(cuda) or ())
                if best is None or key > (parse(best.torch) or (), parse(best.cuda) or ()):
                    best = Wheel(release.version, cuda)
    return best
