"""The pure parts: reading each cloud's reply, the deadline, the completeness rule, restarts,
the cadence check, the journal summary, DMI detection, and the catalog data itself."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.catalog.schema_supervise import CloudDmiRule, PreemptionEndpoint
from gpuwise.preempt.cadence import check_cadence, intervals
from gpuwise.preempt.checkpoints import CheckpointTracker, EntryScan, is_candidate
from gpuwise.preempt.dmi import detect_cloud
from gpuwise.preempt.notice import parse_reply, parse_time
from gpuwise.preempt.plan import plan_wait, resolve_deadline
from gpuwise.preempt.restart import backoff_s, substitute
from gpuwise.preempt.summary import JournalEvent, interruption_cost, summarise

UTC = dt.timezone.utc
NOW = dt.datetime(2026, 12, 2, 8, 20, 0, tzinfo=UTC)


def endpoint(ep_id: str) -> PreemptionEndpoint:
    eps = {e.id: e for e in load_catalog().extra("preemption_endpoint")}
    return eps[ep_id]


# ------------------------------------------------------------------ replies


def test_parse_time_formats() -> None:
    assert parse_time("2017-09-18T08:22:00Z") == dt.datetime(2017, 9, 18, 8, 22, tzinfo=UTC)
    # Tencent: the instance OS time, UTC+8, no zone marker
    assert parse_time("2018-08-18 12:05:33", 8) == dt.datetime(2018, 8, 18, 4, 5, 33, tzinfo=UTC)
    # Azure NotBefore, RFC 1123
    assert parse_time("Mon, 19 Sep 2016 18:29:47 GMT") == dt.datetime(
        2016, 9, 19, 18, 29, 47, tzinfo=UTC
    )
    assert parse_time("2026-12-02T16:20:00+08:00") == dt.datetime(2026, 12, 2, 8, 20, tzinfo=UTC)
    for junk in ("", "FALSE", "not a time", "<html>404</html>"):
        assert parse_time(junk) is None


def test_aws_instance_action_and_rebalance() -> None:
    ep = endpoint("aws-spot-instance-action")
    assert parse_reply(ep, 404, "<title>404 - Not Found</title>", NOW) == []
    body = json.dumps({"action": "terminate", "time": "2026-12-02T08:22:00Z"})
    (n,) = parse_reply(ep, 200, body, NOW)
    assert (n.severity, n.reason) == ("terminate", "terminate")
    assert n.deadline == dt.datetime(2026, 12, 2, 8, 22, tzinfo=UTC)
    (garbled,) = parse_reply(ep, 200, "{not json", NOW)  # present = being interrupted
    assert garbled.severity == "terminate" and garbled.deadline is None
    (adv,) = parse_reply(
        endpoint("aws-rebalance"), 200, '{"noticeTime": "2026-12-02T08:00:00Z"}', NOW
    )
    assert adv.severity == "advisory"


def test_gcp_preempted_and_maintenance() -> None:
    pre = endpoint("gcp-preempted")
    assert parse_reply(pre, 200, "FALSE", NOW) == []
    (n,) = parse_reply(pre, 200, "TRUE", NOW)
    assert n.severity == "terminate" and n.deadline is None
    mnt = endpoint("gcp-maintenance-event")
    assert parse_reply(mnt, 200, "NONE", NOW) == []
    (mig,) = parse_reply(mnt, 200, "MIGRATE_ON_HOST_MAINTENANCE", NOW)
    assert mig.severity == "info"
    (term,) = parse_reply(mnt, 200, "TERMINATE_ON_HOST_MAINTENANCE", NOW)
    assert term.severity == "terminate"


def test_azure_scheduled_events() -> None:
    ep = endpoint("azure-scheduled-events")
    assert parse_reply(ep, 200, '{"DocumentIncarnation": 1, "Events": []}', NOW) == []
    doc = {
        "DocumentIncarnation": 3,
        "Events": [
            {
                "EventId": "A",
                "EventType": "Preempt",
                "EventStatus": "Scheduled",
                "NotBefore": "Wed, 02 Dec 2026 08:20:30 GMT",
            },
            {
                "EventId": "B",
                "EventType": "Freeze",
                "EventStatus": "Scheduled",
                "NotBefore": "Wed, 02 Dec 2026 08:35:00 GMT",
            },
            {"EventId": "C", "EventType": "Reboot", "EventStatus": "Started", "NotBefore": ""},
        ],
    }
    pre, frz, reb = parse_reply(ep, 200, json.dumps(doc), NOW)
    assert (pre.reason, pre.severity, pre.event_id) == ("Preempt", "terminate", "A")
    assert pre.deadline == NOW + dt.timedelta(seconds=30)
    assert frz.severity == "info"
    assert reb.severity == "terminate" and reb.deadline == NOW  # already started: now


def test_bare_time_clouds() -> None:
    ali = endpoint("alibaba-spot-termination-time")
    (n,) = parse_reply(ali, 200, "2015-01-05T18:02:00Z", NOW)
    assert n.deadline == dt.datetime(2015, 1, 5, 18, 2, tzinfo=UTC)
    assert parse_reply(ali, 200, "", NOW) == []  # empty body: still usable
    tc = endpoint("tencent-spot-termination-time")
    (t,) = parse_reply(tc, 200, "2026-12-02 16:22:00", NOW)
    assert t.deadline == dt.datetime(2026, 12, 2, 8, 22, tzinfo=UTC)
    assert parse_reply(endpoint("volcengine-spot-termination-time"), 200, "ok", NOW) == []


# ------------------------------------------------------------------ deadline


def test_deadline_and_margin() -> None:
    deadline = resolve_deadline(None, NOW, 30)  # GCP: no time in the reply
    assert deadline == NOW + dt.timedelta(seconds=30)
    plan = plan_wait(deadline, NOW, None, 0.1)
    assert plan.margin_s == pytest.approx(3.0)
    assert plan.wait_until == NOW + dt.timedelta(seconds=27)
    user = plan_wait(deadline, NOW, 5.0, 0.1)
    assert user.wait_until == NOW + dt.timedelta(seconds=25)
    late = plan_wait(NOW - dt.timedelta(seconds=2), NOW, None, 0.1)  # a notice seen late
    assert late.wait_until == NOW and late.left_s == -2


# ------------------------------------------------------------------ completeness


def scan(name: str, size: int, mtime: int, **kw: Any) -> EntryScan:
    return EntryScan(name, size, mtime, **kw)


def test_stability_rule() -> None:
    tr = CheckpointTracker(stable_polls=2)
    assert tr.prime([scan("checkpoint-10", 100, 1)], 0.0)[0].preexisting
    assert tr.feed([scan("checkpoint-10", 100, 1), scan("checkpoint-20", 50, 2)], 1.0) == []
    assert tr.in_progress()
    assert tr.feed([scan("checkpoint-10", 100, 1), scan("checkpoint-20", 90, 3)], 2.0) == []
    (done,) = tr.feed([scan("checkpoint-10", 100, 1), scan("checkpoint-20", 90, 3)], 3.0)
    assert done.name == "checkpoint-20" and done.save_s == pytest.approx(2.0)
    assert not tr.in_progress()
    assert tr.newest() is not None and tr.newest().name == "checkpoint-20"  # type: ignore[union-attr]
    # reported once per content
    assert tr.feed([scan("checkpoint-10", 100, 1), scan("checkpoint-20", 90, 3)], 4.0) == []


def test_marker_and_partial_rules() -> None:
    tr = CheckpointTracker(marker_required=True, stable_polls=2)
    tr.prime([], 0.0)
    assert tr.feed([scan("ck", 10, 1)], 1.0) == []
    assert tr.feed([scan("ck", 10, 1)], 2.0) == []  # stable, but no marker yet
    (done,) = tr.feed([scan("ck", 12, 2, has_marker=True)], 3.0)
    assert done.save_s == pytest.approx(2.0)
    plain = CheckpointTracker(stable_polls=2)
    plain.feed([scan("ck", 10, 1, has_partial=True)], 1.0)
    assert plain.feed([scan("ck", 10, 1, has_partial=True)], 2.0) == []  # a .tmp inside
    assert is_candidate("checkpoint-5", "checkpoint-*")
    for name in ("checkpoint-5.tmp", ".hidden", "runs", "checkpoint-5.incomplete"):
        assert not is_candidate(name, "checkpoint-*")


# ------------------------------------------------------------------ restarts and cadence


def test_substitute_and_backoff() -> None:
    cmd = ["python", "train.py", "--resume_from_checkpoint", "{last_checkpoint}", "--lr", "1e-4"]
    assert substitute(cmd, "/ck/checkpoint-50")[3] == "/ck/checkpoint-50"
    assert substitute(cmd, None) == ["python", "train.py", "--lr", "1e-4"]
    assert substitute(["t", "--resume={last_checkpoint}", "x"], None) == ["t", "x"]
    lf = ["llamafactory-cli", "train", "sft.yaml", "resume_from_checkpoint={last_checkpoint}"]
    assert substitute(lf, None) == lf[:3]
    assert substitute(lf, "/o/checkpoint-9")[3] == "resume_from_checkpoint=/o/checkpoint-9"
    assert substitute(["sh", "-c", "run {last_checkpoint}"], None) == ["sh", "-c", "run "]
    assert [backoff_s(n, 10, 300) for n in (1, 2, 3, 6)] == [10, 20, 40, 300]


def test_cadence_flags_a_save_longer_than_the_notice() -> None:
    # the example: a 15-minute save on a 30-second notice
    bad = check_cadence([900.0], [3600.0], notice_s=30, margin_s=3)
    assert bad.flagged and bad.usable_s == 27 and bad.expected_loss_s == 1800
    ok = check_cadence([5.0, 7.0, 6.0], [600.0, 620.0], notice_s=120, margin_s=12)
    assert not ok.flagged and ok.save_s == 6.0 and ok.interval_s == 610.0
    assert intervals([30.0, 10.0, 20.0]) == [10.0, 10.0]


# ------------------------------------------------------------------ the journal summary


def ev(run: int, t: float, kind: str, **data: Any) -> JournalEvent:
    return JournalEvent(run, t, kind, data)


def test_summary_lost_work_restart_and_cost() -> None:
    events = [
        ev(1, 0, "run_start"),
        ev(1, 1, "child_start", attempt=1),
        ev(1, 601, "checkpoint", path="/c/600", save_s=4.0, on_notice=False),
        ev(1, 1201, "checkpoint", path="/c/1200", save_s=6.0, on_notice=False),
        ev(1, 1500, "notice"),  # no checkpoint on the notice: 299 s of work lost
        ev(1, 1530, "child_exit", code=143),
        ev(1, 1531, "run_end", outcome="preempted", code=75),
        ev(2, 2100, "run_start"),
        ev(2, 2130, "child_start", attempt=1),  # 600 s to restart
        ev(2, 2700, "checkpoint", path="/c/1800", save_s=5.0, on_notice=False),
        ev(2, 2750, "child_exit", code=3),  # the command failed: 50 s lost
        ev(2, 2760, "child_start", attempt=2),
        ev(2, 3000, "child_exit", code=0),
        ev(2, 3001, "run_end", outcome="completed", code=0),
    ]
    s = summarise("job", reversed(events))
    assert s.runs == 2 and s.attempts == 3 and s.finished
    assert s.wall_s == 1531 + 901
    assert s.running_s == 1529 + 620 + 240
    (pre,) = s.interruptions
    assert pre.cause == "preempted" and pre.lost_s == 1530 - 1201 and pre.restart_s == 600
    (fail,) = s.failures
    assert fail.lost_s == 50 and fail.restart_s == 10
    assert s.save_s == (4.0, 6.0, 5.0) and s.interval_s == (600.0,)
    assert s.last_checkpoint == "/c/1800"
    plan = s.plan_inputs()
    assert plan["spot_interruptions_per_day"] == pytest.approx(24 / (s.running_s / 3600))
    assert plan["restart_min"] == pytest.approx(10.0)
    assert plan["checkpoint_min"] == pytest.approx(2 * 329 / 60)
    cost = interruption_cost(s, 2.0)
    assert cost["total_cost"] == pytest.approx((329 + 50 + 600 + 10) / 3600 * 2.0)


def test_a_run_that_vanished_counts_as_an_interruption() -> None:
    events = [
        ev(1, 0, "run_start"),
        ev(1, 0, "child_start"),
        ev(1, 100, "checkpoint", path="/c/1", on_notice=False),
        ev(1, 130, "checkpoint", path="/c/2", on_notice=False),
    ]
    (stop,) = summarise("j", events).interruptions
    assert stop.cause == "vanished" and stop.lost_s == 0 and stop.restart_s is None


# ------------------------------------------------------------------ DMI and the catalog


def test_detect_cloud_from_dmi() -> None:
    rules = tuple(load_catalog().extra("cloud_dmi"))
    assert detect_cloud({"product_name": "Google Compute Engine"}, rules) == "gcp"
    assert detect_cloud({"sys_vendor": "Amazon EC2", "bios_vendor": "Amazon EC2"}, rules) == "aws"
    assert detect_cloud({"product_version": "4.11.amazon", "sys_vendor": "Xen"}, rules) == "aws"
    assert detect_cloud({"product_name": "Alibaba Cloud ECS"}, rules) == "alibaba"
    assert detect_cloud({"sys_vendor": "Tencent Cloud", "product_name": "CVM"}, rules) == "tencent"
    azure_tag = {"chassis_asset_tag": "7783-7084-3265-9085-8269-3286-77"}
    assert detect_cloud({"sys_vendor": "Microsoft Corporation", **azure_tag}, rules) == "azure"
    # Hyper-V on a desktop is not Azure; a laptop is no cloud
    assert detect_cloud({"sys_vendor": "Microsoft Corporation"}, rules) is None
    assert detect_cloud({"sys_vendor": "LENOVO", "product_name": "20XW"}, rules) is None
    assert all(isinstance(r, CloudDmiRule) for r in rules)


def test_catalog_endpoints_agree_with_the_providers() -> None:
    cat = load_catalog()
    eps = cat.extra("preemption_endpoint")
    assert {e.cloud for e in eps} == {"aws", "gcp", "azure", "alibaba", "tencent", "volcengine"}
    for ep in eps:
        assert cat.sources_of(ep), ep.id
        provider = cat.providers.get(ep.provider) if ep.provider else None
        if provider is not None and provider.spot_notice_s is not None:
            assert ep.notice_s == provider.spot_notice_s, ep.id
    settings = {s.id for s in cat.extra("supervise_setting")}
    from gpuwise.supervise.config import SETTING_IDS

    assert set(SETTING_IDS) <= settings
