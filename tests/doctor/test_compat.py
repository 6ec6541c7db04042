"""The sourced compatibility tables and the pure helpers over them."""

from __future__ import annotations

import pytest

from gpuwise.catalog.cuda_arch import arch_to_cc, covered, torch_runs_on
from gpuwise.catalog.versions import at_least, major_minor, parse, wheel_tag
from gpuwise.doctor.recommend import pick_wheel
from tests.doctor.build import tables


def test_tables_loaded_with_sources() -> None:
    t = tables()
    assert len(t.cuda_driver) >= 40 and len(t.torch_release) >= 8 and len(t.torch_wheel_arch) >= 4
    assert all(url.startswith("https://") for url in t.sources.values())
    assert "compat-cuda-release-notes" in t.sources


def test_cuda_driver_lookups() -> None:
    t = tables()
    assert t.toolkit_min_driver("12.8") == "570.26"
    assert t.toolkit_min_driver("12.8", windows=True) == "570.65"
    assert t.toolkit_min_driver("13.0") == "580.65.06"
    assert t.toolkit_min_driver("13.0", windows=True) is None  # "N/A" in the notes
    assert t.family_min_driver("12.1") == "525" and t.family_min_driver("13.2") == "580"
    assert t.max_cuda_for_driver("550.54.14") == "12.4"
    assert t.max_cuda_for_driver("590.48.01") == "13.1"


def test_every_table3_row_is_monotonic() -> None:
    """A newer CUDA release never needs an older Linux driver (sanity of the transcription)."""
    rows = sorted(
        (
            (parse(r.cuda), r.release != "GA", parse(r.linux_min_driver))
            for r in tables().cuda_driver
        ),
    )
    drivers = [d for _, _, d in rows]
    assert drivers == sorted(drivers)


def test_wheel_arch_rows_follow_the_published_drops() -> None:
    """RTX 50 needs cu128+; Maxwell/Pascal leave cu128 from 2.8; Volta is in cu128 only in
    2.8-2.10 (dropped in 2.7 and again in 2.11); cu130/cu132 never carry pre-Turing GPUs."""
    for row in tables().torch_wheel_arch:
        new_enough = at_least(row.cuda, "12.8")
        assert covered("12.0", row.archs, [row.ptx] if row.ptx else []) == new_enough, row.cuda
        if at_least(row.cuda, "12.8"):
            assert not covered("6.0", row.archs, []), row.cuda
        volta = covered("7.0", row.archs, [])
        if row.cuda == "12.8":
            assert volta == (row.torch_min in ("2.8",)), row.torch_min
        if at_least(row.cuda, "13.0"):
            assert not volta
    t = tables()
    assert t.wheel_archs("12.8", "2.10") is not None and "7.0" in t.wheel_archs("12.8", "2.10")[0]
    assert "7.0" not in t.wheel_archs("12.8", "2.11")[0]
    assert "3.7" in t.wheel_archs("11.8", "2.5")[0] and t.wheel_archs("11.8", "2.7") is None


def test_last_release_and_arch_support_windows() -> None:
    from gpuwise.doctor.recommend import last_release_for

    t = tables()
    assert t.arch_support("3.7").last_driver_branch == "470"
    assert t.arch_support("6.1").last_driver_branch == "580"
    ada = t.arch_support("8.9")
    assert ada is not None and ada.arch == "ada" and not ada.last_driver_branch  # still supported
    k80 = last_release_for(t, "3.7")
    assert k80 is not None and (k80.torch, k80.cuda) == ("2.5", "11.8")
    assert last_release_for(t, "3.5") is None  # sm_35 never had SASS in these wheels
    pascal = last_release_for(t, "6.0")
    assert pascal is not None and pascal.cuda == "12.6"


def test_arch_helpers() -> None:
    assert arch_to_cc("sm_86") == ("sass", "8.6")
    assert arch_to_cc("sm_120") == ("sass", "12.0")
    assert arch_to_cc("compute_90") == ("ptx", "9.0")
    assert arch_to_cc("sm_90a") == ("sass-exact", "9.0")
    assert arch_to_cc("gfx90a") is None
    assert covered("8.9", ["8.6"], []) and not covered("9.0", ["8.6"], [])
    assert covered("12.0", ["8.0"], ["9.0"])  # PTX JIT forward
    assert torch_runs_on(["gfx90a", "gfx942"], "9.0") is None


@pytest.mark.parametrize(
    ("python", "ccs", "driver", "want"),
    [
        ("3.12", ["12.0"], "570.124.06", ("2.11", "12.8")),
        ("3.12", ["12.0"], "590.44.01", ("2.14", "13.2")),  # 2.14: 13.2 is a stable build
        ("3.12", ["7.0"], "590.44.01", ("2.14", "12.6")),
        ("3.9", ["8.6"], "590.44.01", ("2.8", "12.8")),
        ("3.12", ["8.9"], "535.104.05", ("2.14", "12.6")),  # CUDA 12 family: ≥ 525 (MVC)
        ("3.10", ["3.7"], "470.82.01", ("2.5", "11.8")),  # Tesla K80 on its last driver branch
        ("3.12", ["6.0"], "535.104.05", ("2.14", "12.6")),  # Pascal on an R535 driver
        ("3.12", ["6.0"], "470.82.01", ("2.5", "11.8")),  # Pascal on R470: the last cu11x
        ("3.12", ["8.9"], None, None),  # unknown driver: no wheel named
        ("3.12", [], "590.44.01", None),  # unknown GPU: no wheel named
        ("2.7", ["8.9"], "590.44.01", None),
    ],
)
def test_pick_wheel(
    python: str, ccs: list[str], driver: str | None, want: tuple[str, str] | None
) -> None:
    wheel = pick_wheel(tables(), python, ccs, driver)
    assert (None if wheel is None else (wheel.torch, wheel.cuda)) == want
    if wheel:
        assert wheel.index_url.endswith(wheel_tag(wheel.cuda))


def test_versions() -> None:
    assert parse("2.7.1+cu128") == (2, 7, 1)
    assert at_least("570.124.06", "570.26") and not at_least("565.77", "570.26")
    assert at_least(None, "1") is None
    assert major_minor("12.8.1") == "12.8" and wheel_tag("13.0") == "cu130"
