"""Which PyTorch release and wheel variant to pin, or a refusal that names the nearest one.

The checks are those of the compatibility table the doctor reads too (gpuwise.catalog.compat,
used by gpuwise.doctor.recommend): a release supports the Python
(RELEASE.md matrix), its cuXY wheel carries code for the GPU (SASS of the same major version
and a minor ≤ the GPU's, or older PTX — CUDA binary/PTX compatibility), and the driver meets the
CUDA family's minor-version-compatibility minimum. Here they are also run against an explicit
`--torch`/`--cuda` request, so a combination that cannot work is refused with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpuwise.catalog.cuda_arch import covered
from gpuwise.catalog.versions import at_least, major_minor, parse, wheel_tag
from gpuwise.errors import UserError
from gpuwise.setup.model import Refusal, Target
from gpuwise.setup.tables import SetupTables

INDEX = "https://download.pytorch.org/whl/"
CHECKS = ("python", "arch", "driver", "unlisted")  # the reason a refusal names, in order


@dataclass(frozen=True)
class Choice:
    """A release (row of torch_release), its exact build, the wheel variant and its index."""

    release: Any
    build: Any
    variant: str  # "12.8", "rocm6.4", "cpu" or "pypi"
    sources: tuple[str, ...]

    @property
    def index_url(self) -> str:
        """The wheel index ("" for plain PyPI)."""
        if self.variant == "pypi":
            return ""
        if self.variant[0].isdigit():
            return INDEX + wheel_tag(self.variant)
        return INDEX + self.variant


@dataclass(frozen=True)
class Want:
    """What the user (or a stack such as vLLM) asked for; empty strings mean "any"."""

    torch: str = ""
    cuda: str = ""
    python_min: str = ""
    python_max: str = ""
    torch_min: str = ""  # the oldest X.Y the stack's other packages accept


def _new_enough(release: Any, want: Want) -> bool:
    return not want.torch_min or bool(at_least(release.version, want.torch_min))


def _releases(t: SetupTables) -> list[Any]:
    """Releases that have an exact build to pin, newest first."""
    rows = [r for r in t.compat.torch_release if t.build_for(r.version) is not None]
    return sorted(rows, key=lambda r: parse(r.version) or (), reverse=True)


def _variants(release: Any) -> list[str]:
    stable = sorted(release.cuda_stable, key=lambda c: parse(c) or (), reverse=True)
    return stable + sorted(release.cuda_experimental, key=lambda c: parse(c) or (), reverse=True)


def _python_ok(release: Any, python: str, want: Want) -> bool:
    ok = bool(at_least(python, release.python_min)) and bool(at_least(release.python_max, python))
    if want.python_min and not at_least(python, want.python_min):
        return False
    return ok and not (want.python_max and not at_least(want.python_max, python))


def wheel_arch_row(t: SetupTables, cuda: str, release: str) -> Any | None:
    """The torch_wheel_arch row for this CUDA variant of this release (newest range first)."""
    rows = [
        r
        for r in t.compat.torch_wheel_arch
        if r.cuda == major_minor(cuda)
        and (not r.torch_min or at_least(release, r.torch_min))
        and (not r.torch_max or at_least(r.torch_max, release))
    ]
    return max(rows, key=lambda r: parse(r.torch_min) or (), default=None)


def _failure(t: SetupTables, target: Target, release: Any, cuda: str, want: Want) -> str:
    """The first check a (release, CUDA) pair fails, or ""."""
    if not _python_ok(release, target.python, want):
        return "python"
    row = wheel_arch_row(t, cuda, release.version)
    cc = target.compute_capability
    if row is None:
        return "unlisted"  # which architectures it carries is not known: never pinned blindly
    if not covered(cc, list(row.archs), [row.ptx] if row.ptx else []):
        return "arch"
    if target.driver:
        need = t.compat.driver_need(cuda, target.os == "windows")
        if need is None or not at_least(target.driver, need):
            return "driver"
    return ""


def _build(t: SetupTables, version: str) -> Any:
    """The exact build (only releases that have one are ever candidates)."""
    build = t.build_for(version)
    assert build is not None
    return build


def _sources(t: SetupTables, release: Any, cuda: str) -> tuple[str, ...]:
    ids = [*release.source_ids(), *_build(t, release.version).source_ids()]
    row = wheel_arch_row(t, cuda, release.version)
    if row is not None:
        ids += row.source_ids()
    v = parse(cuda)
    ids += [s for r in t.compat.cuda_mvc if v and r.cuda_major == v[0] for s in r.source_ids()]
    return tuple(dict.fromkeys(ids))


def _choice(t: SetupTables, release: Any, cuda: str, want: Want) -> Choice:
    build = _build(t, want.torch or release.version)
    return Choice(release, build, cuda, _sources(t, release, cuda))


def pick_nvidia(t: SetupTables, target: Target, want: Want) -> Choice | Refusal:
    """The newest (release, CUDA) pair passing every check within what was asked for."""
    if not target.compute_capability:
        raise UserError("setup.no_cc")
    releases = _releases(t)
    if want.torch and not any(major_minor(r.version) == major_minor(want.torch) for r in releases):
        known = ", ".join(r.version for r in releases)
        raise UserError("setup.unknown_torch", value=want.torch, known=known)
    everything = [(r, c) for r in releases if _new_enough(r, want) for c in _variants(r)]
    asked = [
        (r, c)
        for r, c in everything
        if (not want.torch or r.version == major_minor(want.torch))
        and (not want.cuda or c == major_minor(want.cuda))
    ]
    for release, cuda in asked:
        if not _failure(t, target, release, cuda, want):
            return _choice(t, release, cuda, want)
    return _refuse(t, target, want, asked, everything, releases)


def _refuse(
    t: SetupTables,
    target: Target,
    want: Want,
    asked: list[tuple[Any, str]],
    everything: list[tuple[Any, str]],
    releases: list[Any],
) -> Refusal:
    params: dict[str, Any] = {
        "torch": want.torch or "any",
        "cuda": want.cuda or "any",
        "python": target.python,
        "cc": target.compute_capability,
        "driver": target.driver,
    }
    if not asked:
        rel = next((r for r in releases if r.version == major_minor(want.torch)), None)
        reason = "no_variant" if rel else "no_cuda"
        cudas = _variants(rel) if rel else sorted({c for _, c in everything}, key=_cuda_key)
        params["variants"] = ", ".join(wheel_tag(c) for c in cudas) or "-"
        sources: tuple[str, ...] = tuple(rel.source_ids()) if rel else ()
    else:
        fails = [_failure(t, target, r, c, want) for r, c in asked]
        reason = next(c for c in CHECKS if c in fails)
        release, cuda = asked[fails.index(reason)]
        params.update(torch=release.version, cuda=cuda)
        if reason == "python":
            params.update(low=release.python_min, high=release.python_max)
            if want.python_min or want.python_max:
                low = max(want.python_min, release.python_min, key=lambda v: parse(v) or ())
                high = min(
                    want.python_max or release.python_max,
                    release.python_max,
                    key=lambda v: parse(v) or (),
                )
                params.update(low=low, high=high)
        if reason == "driver":
            params["need"] = t.compat.driver_need(cuda, target.os == "windows") or "?"
        sources = _sources(t, release, cuda)
    nearest, near_params = _nearest(t, target, everything)
    if reason == "python":  # the same wheel on a Python it ships for
        nearest, near_params = (
            "setup.nearest.python",
            {k: params[k] for k in ("torch", "low", "high")},
        )
    return Refusal(f"setup.refuse.{reason}", params, nearest, near_params, sources)


def _cuda_key(cuda: str) -> tuple[int, ...]:
    return parse(cuda) or ()


def _nearest(
    t: SetupTables, target: Target, everything: list[tuple[Any, str]]
) -> tuple[str, dict[str, Any]]:
    """What does work for this GPU: a wheel as is, a wheel after a driver upgrade, or nothing."""
    plain = Want()
    for release, cuda in everything:
        if not _failure(t, target, release, cuda, plain):
            return "setup.nearest.wheel", {"torch": release.version, "tag": wheel_tag(cuda)}
    for release, cuda in everything:
        if _failure(t, target, release, cuda, plain) == "driver":
            need = t.compat.driver_need(cuda, target.os == "windows") or "?"
            tag = wheel_tag(cuda)
            return "setup.nearest.driver", {"torch": release.version, "tag": tag, "need": need}
    for release, cuda in everything:
        if _failure(t, target, release, cuda, plain) == "python":
            row = wheel_arch_row(t, cuda, release.version)
            if row and covered(target.compute_capability, list(row.archs), []):
                return "setup.nearest.python", {
                    "torch": release.version,
                    "low": release.python_min,
                    "high": release.python_max,
                }
    return "setup.nearest.none", {"cc": target.compute_capability}


def pick_rocm(t: SetupTables, target: Target, want: Want) -> Choice | Refusal:
    """The newest release with a ROCm wheel for this Python (and the host's ROCm X.Y if given)."""
    releases = [r for r in _releases(t) if r.rocm and _new_enough(r, want)]
    if want.torch:
        releases = [r for r in releases if r.version == major_minor(want.torch)]
    rocm_ok = [r for r in releases if not target.rocm or _same_rocm(r.rocm, target.rocm)]
    for release in rocm_ok:
        if _python_ok(release, target.python, want):
            build = _build(t, want.torch or release.version)
            ids = tuple(dict.fromkeys([*release.source_ids(), *build.source_ids()]))
            return Choice(release, build, f"rocm{release.rocm}", ids)
    params = {"python": target.python, "rocm": target.rocm or "any", "torch": want.torch or "any"}
    reason = "setup.refuse.rocm" if not rocm_ok else "setup.refuse.python_plain"
    with_py = [r for r in _releases(t) if r.rocm and _python_ok(r, target.python, Want())]
    if with_py:
        r = with_py[0]
        return Refusal(reason, params, "setup.nearest.rocm", {"torch": r.version, "rocm": r.rocm})
    return Refusal(reason, params, "setup.nearest.none_plain", {})


def _same_rocm(a: str, b: str) -> bool:
    return major_minor(a) == major_minor(b)


def pick_plain(t: SetupTables, target: Target, want: Want, variant: str) -> Choice | Refusal:
    """CPU wheels (`cpu` index) or plain PyPI (macOS: MPS): the newest release for the Python."""
    releases = [r for r in _releases(t) if _new_enough(r, want)]
    if want.torch:
        releases = [r for r in releases if r.version == major_minor(want.torch)]
    for release in releases:
        if _python_ok(release, target.python, want):
            build = _build(t, want.torch or release.version)
            ids = tuple(dict.fromkeys([*release.source_ids(), *build.source_ids()]))
            return Choice(release, build, variant, ids)
    params = {"python": target.python, "torch": want.torch or "any"}
    ok = [r for r in _releases(t) if _python_ok(r, target.python, Want())]
    if ok:
        return Refusal(
            "setup.refuse.python_plain",
            params,
            "setup.nearest.wheel_plain",
            {"torch": ok[0].version},
        )
    return Refusal("setup.refuse.python_plain", params, "setup.nearest.none_plain", {})


def _npu_key(row: Any) -> tuple[tuple[int, ...], int]:
    """torch version, then the .postN of the torch_npu package ("2.9.0.post6" → 6)."""
    post = row.torch_npu.rsplit(".post", 1)
    return parse(row.torch) or (), int(post[1]) if len(post) == 2 and post[1].isdigit() else -1


def pick_ascend(t: SetupTables, target: Target, want: Want) -> tuple[Any, Any] | Refusal:
    """(torch_npu_cann row, torch_release row): the newest torch_npu for the target's CANN
    (the Ascend adapter's version table) whose PyTorch release supports the Python."""
    rows = list(t.compat.torch_npu_cann)
    cann_versions = list(dict.fromkeys(r.cann for r in rows))
    if target.cann:
        rows = [r for r in rows if _same_cann(r.cann, target.cann)]
        if not rows:
            params = {"cann": target.cann, "known": ", ".join(cann_versions)}
            near = {"cann": cann_versions[0] if cann_versions else "?"}
            return Refusal("setup.refuse.cann", params, "setup.nearest.cann", near)
    if want.torch:
        rows = [r for r in rows if major_minor(r.torch) == major_minor(want.torch)]
    releases = {r.version: r for r in t.compat.torch_release}
    for row in sorted(rows, key=_npu_key, reverse=True):
        release = releases.get(major_minor(row.torch))
        if release is not None and _python_ok(release, target.python, want):
            return row, release
    params = {"python": target.python, "torch": want.torch or "any"}
    return Refusal("setup.refuse.python_plain", params, "setup.nearest.none_plain", {})


def _same_cann(a: str, b: str) -> bool:
    """CANN versions equal ignoring case and a trailing ".0" (as the doctor compares them)."""
    return a.strip().lower().removesuffix(".0") == b.strip().lower().removesuffix(".0")
