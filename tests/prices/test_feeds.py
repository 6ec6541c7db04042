"""`gpuwise prices refresh` against real loopback servers replaying recorded feed answers.

Pagination, throttling (429 + Retry-After), truncated bodies, conditional GETs, resumed
downloads and changed schemas; the built-in catalog keeps working whatever a feed does.
"""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuwise.catalog import files as F
from gpuwise.catalog import load_catalog
from gpuwise.prices import refresh as R
from gpuwise.prices import store
from tests.conftest import FIXTURES

from .replay import Answer, Replay, serve

DATA = FIXTURES / "prices"
NOW = dt.datetime(2026, 12, 2, 8, 0, tzinfo=dt.UTC)


@pytest.fixture
def replay(monkeypatch: pytest.MonkeyPatch) -> Iterator[Replay]:
    """A loopback server every feed points at; a few regions to keep the tests short."""
    r = Replay()
    with serve(r) as base:
        for feed in ("AZURE", "AWS", "GPUHUNT"):
            monkeypatch.setenv(f"GPUWISE_{feed}_PRICES_URL", base)
        monkeypatch.setattr(R, "AZURE_REGIONS", ("eastus",))
        monkeypatch.setattr(R, "AWS_REGIONS", ("us-east-1", "eu-central-1"))
        yield r


def _env(sleeps: list[float] | None = None) -> R.Env:
    waits = sleeps if sleeps is not None else []
    return R.Env(load_catalog(), NOW, sleep=waits.append)


def _azure_routes(r: Replay, page2: Answer | None = None, first: Answer | None = None) -> None:
    pages = {"1": [first] if first else [], "2": [page2] if page2 else []}
    p1 = Answer(body=(DATA / "azure-eastus-page1.json").read_bytes())
    p2 = Answer(body=(DATA / "azure-eastus-page2.json").read_bytes())

    def route(query: dict[str, list[str]]) -> Answer:
        key = query.get("page", ["1"])[0]
        queue = pages[key]
        return queue.pop(0) if queue else (p1 if key == "1" else p2)

    r.routes["/api/retail/prices"] = route


def _offers(provider: str) -> dict[str, object]:
    cat = load_catalog()
    return {o.instance: o for o in cat.offers if o.provider == provider}


def test_azure_pages_throttling_and_dates(replay: Replay) -> None:
    _azure_routes(replay, first=Answer(429, b"slow down", {"Retry-After": "2"}))
    sleeps: list[float] = []
    [report] = R.refresh(_env(sleeps), ["azure"])
    assert report.status == "ok", report.problem
    assert sleeps == [2.0]  # waited what Retry-After said, then read both pages
    assert len([s for s in replay.seen if s.path == "/api/retail/prices"]) == 3
    first = replay.seen[0].query["$filter"][0]
    assert "armRegionName eq 'eastus'" in first and "serviceName eq 'Virtual Machines'" in first
    # NV36ads A10 v5 is a catalog offer since issue 29 (it was the unknown-instance example; the
    # AWS test below keeps that path covered): every row now maps to a known instance
    assert report.offers == 4 and not report.findings.as_list()
    offers = _offers("azure")
    a10 = offers["Standard_NV36ads_A10_v5"]
    assert a10.origin == "feed" and a10.gpu == "a10" and a10.gpu_count == 1
    a100 = offers["Standard_NC24ads_A100_v4"]
    assert a100.origin == "feed" and a100.gpu == "a100-80gb-pcie"  # the catalog's own id
    od, spot = a100.price("on-demand"), a100.price("spot")
    assert od and spot and od.amount == 3.673 and spot.amount == 0.444
    assert od.published == dt.date(2025, 9, 1)  # the row's effectiveStartDate
    t4 = offers["Standard_NC4as_T4_v3"].price("on-demand")
    assert t4 and t4.amount == 0.526  # the Windows and Low Priority meters were left out
    state = store.read_state()["azure"]
    assert state["fetched_at"].startswith("2026-") and state["urls"][0].startswith(replay.base)


def test_azure_truncated_page_keeps_old_files_and_resumes(replay: Replay) -> None:
    body = (DATA / "azure-eastus-page2.json").read_bytes()
    _azure_routes(replay, page2=Answer(body=body, cut_at=len(body) // 2))
    [report] = R.refresh(_env(), ["azure"])
    assert report.status == "failed" and "truncated" in (report.problem or "")
    assert not store.feed_files("azure")  # nothing half-written
    assert store.read_state()["azure"]["resume"]["eastus"]["pages"] == 1
    assert any(o.instance == "Standard_NC24ads_A100_v4" for o in load_catalog().offers)
    [again] = R.refresh(_env(), ["azure"])
    assert again.status == "ok", again.problem
    pages = [s.query.get("page", ["1"])[0] for s in replay.seen if s.path == "/api/retail/prices"]
    assert pages == ["1", "2", "2"]  # page 1 was not read twice
    assert again.offers == 4


def test_schema_change_is_a_finding_not_a_crash(replay: Replay, cli) -> None:  # type: ignore[no-untyped-def]
    replay.routes["/api/retail/prices"] = [Answer(body=b'{"items": [], "nextPage": null}')]
    res = cli("prices", "refresh", "--source", "azure", "--json")
    assert res.code == 1, res.err  # not refreshed: not a success (newcomer review, #9)
    [feed] = res.json()["feeds"]
    assert feed["status"] == "failed" and feed["problem"].startswith("schema")
    text = cli("prices", "refresh", "--source", "azure")
    assert "not refreshed" in text.out and "built-in catalog" in text.out
    assert text.code == 1 and "could not be refreshed (azure)" in text.err
    assert cli("offers", "--provider", "azure", "--json").code == 0  # built-in prices still there


def test_aws_streams_filters_and_revalidates(replay: Replay) -> None:
    us = (DATA / "aws-us-east-1.csv").read_bytes()
    eu = (DATA / "aws-eu-central-1.csv").read_bytes()
    base = "/offers/v1.0/aws/AmazonEC2/current"
    replay.routes[f"{base}/us-east-1/index.csv"] = [Answer(body=us, etag='"us-v1"')]
    replay.routes[f"{base}/eu-central-1/index.csv"] = [Answer(body=eu, etag='"eu-v1"')]
    [report] = R.refresh(_env(), ["aws"])
    assert report.status == "ok", report.problem
    assert report.rows == 4  # Windows, Dedicated, Reserved, SQL and CPU-only rows dropped
    reasons = {f["reason"]: f["examples"] for f in report.findings.as_list()}
    assert reasons == {"unknown_instance": ["x9z.2xlarge"]}
    offers = _offers("aws")
    p4d = offers["p4d.24xlarge"]
    od = p4d.price("on-demand")
    assert p4d.origin == "feed" and od and od.amount == 21.957642
    assert od.published == dt.date(2025, 9, 12)  # the file's Publication Date
    assert p4d.price("reserved-1y") is not None  # kept from the built-in entry, its own source
    eu_p4d = offers["p4d.24xlarge (eu-central-1)"]
    assert eu_p4d.price_region == "eu-central-1" and eu_p4d.price("on-demand").amount == 27.43298  # type: ignore[union-attr]
    # Second refresh: the server says 304 for both files, the saved rows are reused.
    [again] = R.refresh(_env(), ["aws"])
    assert again.status == "ok" and again.rows == 4
    sent = [s.headers.get("If-None-Match") for s in replay.seen][-2:]
    assert sent == ['"us-v1"', '"eu-v1"']


def test_aws_changed_columns_is_a_finding(replay: Replay) -> None:
    text = (DATA / "aws-us-east-1.csv").read_text().replace('"GPU",', '"GPU Count",', 1)
    base = "/offers/v1.0/aws/AmazonEC2/current"
    replay.routes[f"{base}/us-east-1/index.csv"] = [Answer(body=text.encode())]
    [report] = R.refresh(_env(), ["aws"])
    assert report.status == "failed" and "GPU" in (report.problem or "")
    assert not store.feed_files("aws")


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("lambdalabs.csv", (DATA / "gpuhunt-lambdalabs.csv").read_text())
    return buf.getvalue()


def test_gpuhunt_resumes_a_cut_download(replay: Replay) -> None:
    data = _zip()
    replay.routes["/v2/version"] = [Answer(body=b"20261201-0712\n")]
    replay.routes["/v2/20261201-0712/catalog.zip"] = [
        Answer(body=data, cut_at=len(data) // 3, ranges=True),
        Answer(body=data, ranges=True, headers={"Last-Modified": "Tue, 01 Dec 2026 07:12:00 GMT"}),
    ]
    [first] = R.refresh(_env(), ["gpuhunt"])
    assert first.status == "failed" and "truncated" in (first.problem or "")
    part = store.work_dir("gpuhunt") / "catalog-20261201-0712.zip.part"
    assert part.exists() and 0 < part.stat().st_size < len(data)
    [second] = R.refresh(_env(), ["gpuhunt"])
    assert second.status == "ok", second.problem
    last = replay.seen[-1]
    assert last.headers.get("Range") == f"bytes={len(data) // 3}-"  # resumed, not restarted
    lam = _offers("lambda")
    a10 = lam["gpu_1x_a10"]
    assert a10.origin == "feed" and a10.regions == ["us-east-1", "us-west-1"]
    assert lam["gpu_8x_a100_80gb_sxm4"].gpu == "a100-80gb"
    reasons = {f["reason"]: f["examples"] for f in second.findings.as_list()}
    assert reasons["unknown_gpu"] == ["XYZ9000"]
    cat = load_catalog()
    assert cat.sources["feed-gpuhunt-lambda"].published == dt.date(2026, 12, 1)
    [third] = R.refresh(_env(), ["gpuhunt"])
    assert third.status == "not_modified"  # same version: nothing downloaded again


def test_skypilot_file_and_dates(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = DATA / "skypilot" / "aws" / "vms.csv"
    res = cli("prices", "refresh", "--from-skypilot", str(path), "--json")
    assert res.code == 0, res.err
    [feed] = res.json()["feeds"]
    assert feed["feed"] == "skypilot" and feed["status"] == "ok"
    reasons = {f["reason"]: f["examples"] for f in feed["findings"]}
    assert reasons == {"spot_not_cheaper": ["p5.48xlarge"]}  # spot = on-demand: dropped
    rows = cli("offers", "--provider", "aws", "--gpu", "t4", "--json").json()["offers"]
    spot = next(r for r in rows if r["instance"] == "g4dn.xlarge" and r["billing"] == "spot")
    assert spot["price"]["amount"] == 0.2 and spot["undated"] and spot["origin"] == "feed"
    dated = cli(
        "prices", "refresh", "--from-skypilot", str(path), "--published", "2026-11-30", "--json"
    )
    assert dated.code == 0
    rows = cli("offers", "--provider", "aws", "--gpu", "t4", "--json").json()["offers"]
    spot = next(r for r in rows if r["instance"] == "g4dn.xlarge" and r["billing"] == "spot")
    assert spot["date"] == "2026-11-30" and not spot["undated"]


def test_offline_touches_nothing(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli("prices", "refresh", "--offline", "--json")
    assert res.code == 0
    assert {f["status"] for f in res.json()["feeds"]} == {"offline"}
    assert not F.feed_files()
    status = cli("prices", "status")
    assert status.code == 0 and "No feed has been read" in status.out


def test_broken_feed_file_is_left_out_with_a_finding(cli) -> None:  # type: ignore[no-untyped-def]
    folder = F.feed_dir()
    folder.mkdir(parents=True)
    (folder / "azure-azure.toml").write_text('[provider]\nid = "azure"\nbogus = 1\n')
    res = cli("offers", "--provider", "azure", "--json")
    assert res.code == 0, res.err
    data = res.json()
    assert data["offers"] and "left out" in data["findings"][0]
    assert "azure-azure.toml" in data["findings"][0]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--source", "gcp"), "Unknown price feed"),
        (("--source", "skypilot"), "--from-skypilot"),
        (("--from-skypilot", "/no/such/vms.csv"), "No such file"),
        (("--from-skypilot", str(DATA / "skypilot/aws/vms.csv"), "--published", "May"), "date"),
    ],
)
def test_bad_refresh_input(cli, args: tuple[str, ...], needle: str) -> None:  # type: ignore[no-untyped-def]
    res = cli("prices", "refresh", *args)
    assert res.code == 2 and needle in res.err and "Traceback" not in res.err


# ---------------------------------------------------------------- newcomer review (#9)


def test_pr_online_nonet_fails_fast_with_exit_1(cli, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """Every feed unreachable (a refused loopback port stands for no network): one attempt per
    feed, no backoff (it took 47 s), exit 1 with one line saying which feeds failed."""
    import socket
    import time

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}"
    for feed in ("AZURE", "AWS", "GPUHUNT"):
        monkeypatch.setenv(f"GPUWISE_{feed}_PRICES_URL", closed)
    start = time.monotonic()
    res = cli("prices", "refresh")
    assert time.monotonic() - start < 10  # with backoff: 1 + 2 + 4 + 8 s per feed, 45 s
    assert res.code == 1, res.err
    assert res.err.strip().splitlines()[-1].startswith("3 of 3 price feeds could not be refreshed")
    assert res.out.count("not refreshed (unreachable") == 3
    assert "?" not in res.out and "$filter" not in res.out  # no query strings in the message


@pytest.mark.parametrize(
    ("case", "name", "content", "words"),
    [
        ("pr-sky-garbage", "f/vms.csv", b"hello,world\n1,2\n", ["'f'", "--provider"]),
        ("pr-sky-garbage-columns", "aws/vms.csv", b"hello,world\n1,2\n", ["columns gone"]),
        ("pr-sky-binary", "aws/vms.csv", bytes(range(256)) * 8, ["not a UTF-8 text file"]),
        ("pr-sky-nan", "aws/vms.csv",
         b"InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,"
         b"SpotPrice,Region,AvailabilityZone\np4d.24xlarge,A100,8,96,1152,,nan,nan,us-east-1,"
         b"us-east-1a\n", ["no usable price"]),
    ],
)  # fmt: skip
def test_pr_sky_unusable_file_is_exit_2_and_keeps_prices(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, case: str, name: str, content: bytes, words: list[str]
) -> None:
    good = DATA / "skypilot" / "aws" / "vms.csv"
    assert cli("prices", "refresh", "--from-skypilot", str(good)).code == 0
    before = {p.name: p.read_bytes() for p in store.feed_files("skypilot")}
    assert before
    path = tmp_path / name
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    res = cli("prices", "refresh", "--from-skypilot", str(path))
    assert res.code == 2, (case, res.out, res.err)
    lines = res.err.strip().splitlines()
    assert len(lines) == 1 and all(w in lines[0] for w in words), (case, res.err)
    assert {p.name: p.read_bytes() for p in store.feed_files("skypilot")} == before


def test_skypilot_cloud_comes_from_a_known_folder_or_provider(tmp_path: Path) -> None:
    cat = load_catalog()
    assert R.skypilot_cloud(cat, tmp_path / "aws" / "vms.csv", None) == "aws"
    assert R.skypilot_cloud(cat, tmp_path / "f" / "vms.csv", None) is None
    assert R.skypilot_cloud(cat, tmp_path / "f" / "vms.csv", "AWS") == "aws"
    assert R.skypilot_cloud(cat, tmp_path / "aws" / "vms.csv", "nope") is None
