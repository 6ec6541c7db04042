"""The planner's memos (issue 26/29 start-up work) change no answer and serve nothing stale.

Memory estimates are shared across cards within one search, speed lookups per SpeedConstants,
catalog indexes per Catalog object. Each test pins that a memoized answer equals a fresh one,
or that a catalog with other data does not see the first catalog's memo.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import pickle

from gpuwise.advise.attempts import request_key, train_attempts
from gpuwise.advise.plan import make_plan
from gpuwise.advise.report import plan_report
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.cost.model import PriceRef
from gpuwise.cost.resolve import _resale_points
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.speed_constants import SpeedConstants
from gpuwise.estimate.train_speed import train_flops

TODAY = dt.date(2026, 12, 5)
TRAIN = {"workload": {"kind": "train", "model": "qwen2.5-7b", "mode": "qlora"}, "region": "cn"}


def test_retrieved_on_equals_dataclass_replace_for_every_field() -> None:
    """PriceRef.retrieved_on spells the fields out for speed; a field added later must not be
    dropped by it."""
    values = {
        f.name: (dt.date(2025, 1, 2) if "date" in f.name or f.name == "retrieved" else None)
        for f in dataclasses.fields(PriceRef)
    }
    values.update(label="x", amount=3.0, currency="CNY", per="card", source="s", stale=True)
    values["origin"] = "user"
    ref = PriceRef(**values)
    later = dt.date(2026, 2, 3)
    assert ref.retrieved_on(later) == dataclasses.replace(ref, retrieved=later)


def test_request_key_tells_apart_requests_that_differ_in_any_field() -> None:
    cat = load_catalog()
    model = cat.model("qwen2.5-7b")
    base = MemoryRequest(model=model, mode="qlora", batch=4)
    same = MemoryRequest(model=model, mode="qlora", batch=4)
    assert request_key(base) == request_key(same)
    for change in ({"batch": 2}, {"grad_checkpointing": False}, {"extra": {"a": "b"}}):
        assert request_key(base) != request_key(dataclasses.replace(base, **change))  # type: ignore[arg-type]
    other = MemoryRequest(model=cat.model("qwen2.5-14b"), mode="qlora", batch=4)
    assert request_key(base) != request_key(other)


def test_memoized_plan_equals_a_plan_on_a_fresh_catalog() -> None:
    """The second plan on one catalog (memos warm) reports exactly what a plan on a freshly
    unpickled catalog (memos empty) reports."""
    cat = load_catalog()
    s = parse_scenario(TRAIN, "memo")
    first = plan_report(cat, make_plan(cat, s, TODAY), 20)
    again = plan_report(cat, make_plan(cat, s, TODAY), 20)
    fresh_cat = pickle.loads(pickle.dumps(cat))
    fresh = plan_report(fresh_cat, make_plan(fresh_cat, s, TODAY), 20)
    assert first == again == fresh


def test_catalog_memo_is_not_pickled_and_not_shared_with_a_changed_catalog() -> None:
    cat = load_catalog()
    gpu = cat.gpu("rtx-4090")
    before = _resale_points(cat, gpu)
    assert "_derived" in vars(cat)
    assert "_derived" not in vars(pickle.loads(pickle.dumps(cat)))
    changed = cat.with_part("extra:resale", ())
    after = _resale_points(changed, changed.gpu("rtx-4090"))
    # without the [[resale]] points only the card list's dated used prices remain: the RTX 3090
    # (launch price in CNY, used prices in USD) drops out of the 4090's curve
    assert after != before
    assert "rtx-3090" in before[1] and "rtx-3090" not in after[1]
    assert before[0]  # the built-in catalog has a curve for the 4090 or its class


def test_speed_memo_starts_empty_after_replace() -> None:
    """Fitted constants (with_fitted, power references) are built with replace(): they must
    not inherit the answers of the constants they were made from."""
    cat = load_catalog()
    sc = SpeedConstants.from_catalog(cat)
    sc.power_derate(cat.gpu("rtx-4090"))
    assert sc._memo
    assert not dataclasses.replace(sc, power_refs={})._memo


def test_train_flops_memo_matches_a_fresh_lookup() -> None:
    cat = load_catalog()
    model = cat.model("qwen2.5-7b")
    from gpuwise.estimate.constants import MemoryConstants
    from gpuwise.estimate.resolve import resolve

    mc = MemoryConstants.from_catalog(cat)
    attempts = list(train_attempts(parse_scenario(TRAIN, "m"), model, "nf4", "transformers", 1))
    r = resolve(attempts[0].req, mc)
    warm = SpeedConstants.from_catalog(cat)
    for gpu in (cat.gpu("rtx-4090"), cat.gpu("a100-80gb"), cat.gpu("rtx-4090")):
        got = train_flops(r, warm, gpu)
        assert got == train_flops(r, SpeedConstants.from_catalog(cat), gpu)
