"""What the servers rely on from the core: a language per request (not per process), model
names that never touch the disk, and a plan chart whose numbers are the plan's."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from gpuwise.errors import UserError
from gpuwise.i18n import get_lang, set_lang, t, using_lang


def test_using_lang_is_per_thread_and_restores() -> None:
    set_lang("en")
    seen: dict[str, str] = {}
    ready = threading.Barrier(2)

    def speak(lang: Any) -> None:
        with using_lang(lang):
            ready.wait()  # both threads inside their block at once
            seen[lang] = t("cli.error")

    threads = [threading.Thread(target=speak, args=(x,)) for x in ("zh", "en")]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert seen == {"zh": "错误", "en": "error"}
    assert get_lang() == "en"


def test_without_local_paths_never_looks_at_the_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpuwise.catalog import load_catalog
    from gpuwise.catalog.local import looks_like_path, without_local_paths
    from gpuwise.catalog.reading import read_model_name

    (tmp_path / "qwen2.5-7b").mkdir()
    monkeypatch.chdir(tmp_path)
    assert looks_like_path("qwen2.5-7b")  # the CLI reads a folder given by name
    with without_local_paths():
        assert not looks_like_path("qwen2.5-7b")
        assert read_model_name(load_catalog(), "qwen2.5-7b").model.id == "qwen2.5-7b"
        with pytest.raises(UserError) as err:
            read_model_name(load_catalog(), "/etc/hostname")
        assert err.value.key == "model.path_not_here"
    assert looks_like_path("qwen2.5-7b")


def test_plan_timeline_matches_the_plan() -> None:
    from gpuwise.advise.timeline import plan_timeline
    from gpuwise.service.plan import persona_data, plan_from

    result = plan_from(persona_data("small-team"), "small-team", {}, None, 8)
    timeline = plan_timeline(result.plan)
    assert timeline is not None
    chart = timeline.chart
    months = int(result.plan.scenario.months)
    for option in timeline.options:  # the series at the horizon is the option's total
        assert chart.series[option.label][months - 1] == pytest.approx(option.total, abs=0.01)
    own, rent = chart.own, next(o.label for o in timeline.options if o.kind == "rent")
    assert own is not None
    for label, month in chart.break_even_months.items():
        assert label == rent
        assert chart.series[own][month - 1] <= chart.series[rent][month - 1]
        assert month == 1 or chart.series[own][month - 2] > chart.series[rent][month - 2]
