"""`gpuwise prices refresh`: read each keyless feed into the user cache, one feed at a time.

Each feed ends as a report: ok, not modified (the server's ETag/Last-Modified say nothing
changed), failed (unreachable, throttled past the retries, a truncated body, a changed schema:
a finding with the reason; the previous files and the built-in catalog keep working) or
offline. Work is kept per page/region under the cache, so an interrupted refresh resumes
where it stopped.
"""

from __future__ import annotations

import datetime as dt
import io
import os
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gpuwise.catalog.catalog import Catalog
from gpuwise.errors import CatalogError
from gpuwise.prices import aws, azure, store, tables
from gpuwise.prices.fetch import FeedError, Fetched, Sleep, download, get, stream_lines
from gpuwise.prices.normalize import FeedRow, Findings, offers_from_rows, source_id
from gpuwise.prices.tomlw import documents

FEEDS = ("azure", "aws", "gpuhunt")
BASE_URLS = {
    "azure": "https://prices.azure.com",
    "aws": "https://pricing.us-east-1.amazonaws.com",
    "gpuhunt": "https://dstack-gpu-pricing.s3.eu-west-1.amazonaws.com",
}
"""Keyless public endpoints (data-sources.md §1, wave2.md §8); GPUWISE_<FEED>_PRICES_URL
overrides one (tests point them at loopback servers)."""
AZURE_REGIONS = ("eastus", "westus2", "westeurope", "northeurope", "germanywestcentral")
AWS_REGIONS = ("us-east-1", "us-west-2", "eu-central-1", "eu-west-1", "ap-northeast-1")
NEW_PROVIDER_NAMES = {
    "datacrunch": ("DataCrunch (Verda)", "DataCrunch (Verda)"),
    "nebius": ("Nebius AI Cloud", "Nebius AI Cloud"),
    "oci": ("Oracle Cloud (OCI)", "甲骨文云 OCI"),
    "cloudrift": ("CloudRift", "CloudRift"),
}

Progress = Callable[[str, int, int | None], None]
"""(task label, done, total or None) — the CLI draws it as a progress bar."""


@dataclass
class FeedReport:
    """How one feed went (JSON shape in `as_dict`)."""

    feed: str
    status: str = "ok"
    urls: list[str] = field(default_factory=list)
    fetched_at: str | None = None
    etag: str | None = None
    last_modified: str | None = None
    rows: int = 0
    offers: int = 0
    files: list[str] = field(default_factory=list)
    problem: str | None = None
    findings: Findings = field(default_factory=Findings)
    resume: dict[str, Any] = field(default_factory=dict)
    validators: dict[str, Any] = field(default_factory=dict)
    """Per-file ETag/Last-Modified kept for the next conditional GET (AWS regions)."""

    def as_dict(self) -> dict[str, Any]:
        """JSON shape (also what state.json keeps)."""
        return {
            "feed": self.feed,
            "status": self.status,
            "urls": self.urls,
            "fetched_at": self.fetched_at,
            "etag": self.etag,
            "last_modified": self.last_modified,
            "rows": self.rows,
            "offers": self.offers,
            "files": self.files,
            "problem": self.problem,
            "findings": self.findings.as_list(),
            "resume": self.resume,
            "validators": self.validators,
        }


@dataclass
class Env:
    """What a refresh runs with: the catalog (for names and specs), time, sleep, progress."""

    cat: Catalog
    now: dt.datetime
    sleep: Sleep = time.sleep
    progress: Progress | None = None

    def base(self, feed: str) -> str:
        """The feed's endpoint (an environment variable may point it elsewhere)."""
        return os.environ.get(f"GPUWISE_{feed.upper()}_PRICES_URL", BASE_URLS[feed])

    def tick(self, label: str, done: int, total: int | None) -> None:
        """Report progress, if anyone listens."""
        if self.progress:
            self.progress(label, done, total)


@dataclass(frozen=True)
class SkyPilotFile:
    """A SkyPilot vms.csv on disk, its cloud (default: the folder it sits in) and the date the
    user knows it was published (the catalog commit's date; None: undated)."""

    path: Path
    provider: str | None = None
    published: dt.date | None = None


def refresh(
    env: Env, feeds: list[str], offline: bool = False, skypilot: SkyPilotFile | None = None
) -> list[FeedReport]:
    """Refresh the named feeds (and a SkyPilot file); every failure is a report, not a raise."""
    reports = []
    for feed in feeds:
        report = FeedReport(feed)
        if offline:
            report.status = "offline"
        else:
            _run(env, feed, report)
        reports.append(report)
    if skypilot is not None:
        report = FeedReport("skypilot", urls=[skypilot.path.resolve().as_uri()])
        _guard(report, lambda: _skypilot(env, skypilot, report))
        reports.append(report)
    for r in reports:
        if r.status != "offline":
            store.write_state(r.feed, r.as_dict())
    return reports


def _run(env: Env, feed: str, report: FeedReport) -> None:
    runner = {"azure": _azure, "aws": _aws, "gpuhunt": _gpuhunt}[feed]
    _guard(report, lambda: runner(env, report))


def _guard(report: FeedReport, work: Callable[[], None]) -> None:
    """Turn every known failure into the report's status and problem."""
    try:
        work()
    except FeedError as exc:
        where = _short_url(exc.url)
        report.status, report.problem = "failed", f"{exc.reason}: {where} {exc.detail}".strip()
    except (azure.SchemaChanged, aws.SchemaChanged, tables.SchemaChanged) as exc:
        report.status, report.problem = "failed", f"schema: {exc}"
    except CatalogError as exc:
        report.status, report.problem = "failed", f"validation: {exc.render()}"
    except (OSError, zipfile.BadZipFile, KeyError) as exc:
        report.status, report.problem = "failed", f"{type(exc).__name__}: {exc}"


def _short_url(url: str) -> str:
    """A URL without its query: Azure's filter made the message 300 characters long."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}" if parts.netloc else url


def _meta(report: FeedReport, fetched: Fetched) -> None:
    report.urls.append(fetched.url)
    report.fetched_at = fetched.fetched_at.isoformat(timespec="seconds")
    report.etag = fetched.etag or report.etag
    report.last_modified = fetched.last_modified or report.last_modified


def _write(
    env: Env,
    report: FeedReport,
    rows: list[FeedRow],
    url: str,
    title: str,
    published: dt.date | None,
) -> None:
    """Rows → one catalog file per provider, validated, swapped in."""
    report.rows = len(rows)
    by_provider: dict[str, list[FeedRow]] = {}
    for r in rows:
        by_provider.setdefault(r.provider, []).append(r)
    docs = {}
    for pid, prow in sorted(by_provider.items()):
        sid = source_id(report.feed, pid)
        offers = offers_from_rows(env.cat, pid, prow, sid, report.findings)
        if not offers:
            continue
        report.offers += len(offers)
        src = {
            "url": url,
            "title": title,
            "retrieved": env.now.date(),
            "published": published or "undated",
            "dated_by": "feed",
        }
        docs.update(
            documents(
                f"{report.feed}-{pid}",
                f"Written by `gpuwise prices refresh` from {url} at {report.fetched_at}.\n"
                "Regenerated on every refresh; put your own corrections in an override file.",
                {sid: src},
                _provider_table(env.cat, pid, sid),
                offers,
            )
        )
    if not report.offers:  # committing nothing would delete the feed's previous prices
        raise tables.SchemaChanged(f"no usable price in {len(rows)} row(s)")
    report.files = [str(p) for p in store.commit(report.feed, docs)]


def _provider_table(cat: Catalog, pid: str, sid: str) -> dict[str, Any]:
    known = cat.providers.get(pid)
    if known is not None:
        return {"id": pid, "source": known.source}
    en, zh = NEW_PROVIDER_NAMES.get(pid, (pid, pid))
    return {
        "id": pid,
        "name_en": en,
        "name_zh": zh,
        "region_kind": "global",
        "currency": "USD",
        "source": sid,
    }


# ---------------------------------------------------------------- Azure


def _azure(env: Env, report: FeedReport) -> None:
    known = {
        o.instance: o for o in env.cat.offers if o.provider == "azure" and o.origin == "catalog"
    }
    work = store.work_dir("azure")
    resume = store.read_state().get("azure", {}).get("resume", {})
    items: list[dict[str, Any]] = []
    for region in AZURE_REGIONS:
        items += _azure_region(env, report, region, work, resume.get(region, {}))
    rows = azure.rows_from_items(items, known, report.findings)
    published = max((r.published for r in rows if r.published), default=None)
    _write(env, report, rows, report.urls[0], "Azure Retail Prices API (GPU VM series)", published)
    report.resume = {}


def _azure_region(
    env: Env, report: FeedReport, region: str, work: Path, resume: dict[str, Any]
) -> list[dict[str, Any]]:
    """All pages of one region; pages already read in an unfinished run are reused."""
    url: str | None = resume.get("next") or azure.page_url(env.base("azure"), region)
    page = int(resume.get("pages", 0))
    items: list[dict[str, Any]] = []
    for n in range(page):
        items += store.load_json(work / f"{region}-{n:04d}.json") or []
    while url:
        try:
            fetched = get(url, sleep=env.sleep)
        except FeedError:
            report.resume[region] = {"next": url, "pages": page}
            store.write_state("azure", {**report.as_dict(), "status": "partial"})
            raise
        _meta(report, fetched)
        page_items, url = azure.parse_page(fetched.body)
        store.save_json(work / f"{region}-{page:04d}.json", page_items)
        items += page_items
        page += 1
        env.tick(f"azure {region}", page, None)
    return items


# ---------------------------------------------------------------- AWS


def _aws(env: Env, report: FeedReport) -> None:
    work = store.work_dir("aws")
    previous = store.read_state().get("aws", {}).get("validators", {})
    regions: dict[str, Any] = {}
    rows: list[FeedRow] = []
    published: dt.date | None = None
    for region in AWS_REGIONS:
        got, meta = _aws_region(env, report, region, work, previous.get(region, {}))
        regions[region] = meta
        rows += got
        published = max(filter(None, (published, got[0].published if got else None)), default=None)
    report.resume = {}
    title = "AWS Price List bulk offer file, AmazonEC2 (on-demand, Linux, shared tenancy)"
    report.validators = regions
    _write(env, report, rows, report.urls[0], title, published)


def _aws_region(
    env: Env, report: FeedReport, region: str, work: Path, prev: dict[str, Any]
) -> tuple[list[FeedRow], dict[str, Any]]:
    """One region's GPU rows: reused when unchanged (304) or finished in an interrupted run."""
    saved = work / f"{region}.json"
    url = aws.region_url(env.base("aws"), region)

    def tick(done: int, total: int | None) -> None:
        env.tick(f"aws {region}", done, total)

    meta, lines = stream_lines(
        url, env.sleep, progress=tick, etag=prev.get("etag"), last_modified=prev.get("lm")
    )
    _meta(report, meta)
    cached = store.load_json(saved)
    if meta.not_modified and isinstance(cached, list):
        return [_row(r) for r in cached], prev
    if meta.not_modified:  # unchanged, but the saved rows are gone: read it whole again
        meta, lines = stream_lines(url, env.sleep, progress=tick)
    parsed = aws.parse_lines(lines, region, families_of(env, "aws"), report.findings)
    store.save_json(saved, [r.__dict__ for r in parsed.rows])
    return parsed.rows, {"etag": meta.etag, "lm": meta.last_modified}


def families_of(env: Env, provider: str) -> dict[str, str]:
    """Instance family → GPU id, from the built-in offers of a provider."""
    return {
        o.instance.split(".")[0]: o.gpu
        for o in env.cat.offers
        if o.provider == provider and o.origin == "catalog"
    }


def _row(data: dict[str, Any]) -> FeedRow:
    pub = data.get("published")
    data = {**data, "published": dt.date.fromisoformat(pub) if pub else None}
    return FeedRow(**data)


# ---------------------------------------------------------------- gpuhunt


def _gpuhunt(env: Env, report: FeedReport) -> None:
    base = env.base("gpuhunt").rstrip("/")
    prev = store.read_state().get("gpuhunt", {})
    version_answer = get(f"{base}/v2/version", sleep=env.sleep)
    _meta(report, version_answer)
    version = version_answer.body.decode("utf-8", "replace").strip()
    if not version or "/" in version or len(version) > 64:
        raise tables.SchemaChanged(f"version file says {version[:40]!r}")
    work = store.work_dir("gpuhunt")
    archive = work / f"catalog-{version}.zip"
    if prev.get("resume", {}).get("version") == version and store.feed_files("gpuhunt"):
        report.status = "not_modified"
        report.resume = {"version": version}
        return
    url = f"{base}/v2/{version}/catalog.zip"
    if not archive.exists():
        fetched = download(url, archive, env.sleep, progress=lambda d, t: env.tick("gpuhunt", d, t))
        _meta(report, fetched)
    rows: list[FeedRow] = []
    with zipfile.ZipFile(archive) as zf:
        for name in zf.namelist():
            pid = tables.GPUHUNT_PROVIDERS.get(Path(name).stem)
            if pid is None:
                continue
            with zf.open(name) as fh:
                text = io.TextIOWrapper(fh, "utf-8")
                rows += tables.gpuhunt_rows(text, pid, report.findings)
    published = Fetched(url, 200, last_modified=report.last_modified).last_modified_date()
    _write(env, report, rows, url, f"gpuhunt public catalog {version} (dstack)", published)
    report.resume = {"version": version}
    for old in work.glob("catalog-*.zip"):
        if old != archive:
            old.unlink(missing_ok=True)


# ---------------------------------------------------------------- SkyPilot file


def skypilot_cloud(cat: Catalog, path: Path, given: str | None) -> str | None:
    """The cloud a SkyPilot file lists: `--provider`, else the folder it sits in when that is a
    cloud's name (SkyPilot keeps `catalogs/v7/<cloud>/vms.csv`); None when neither tells."""
    for name in (given, None if given else path.resolve().parent.name):
        key = (name or "").strip().lower()
        if key and (key in cat.providers or key in NEW_PROVIDER_NAMES):
            return key
    return None


def _skypilot(env: Env, sky: SkyPilotFile, report: FeedReport) -> None:
    path = sky.path
    provider = skypilot_cloud(env.cat, path, sky.provider)
    if provider is None:
        raise tables.SchemaChanged(f"unknown cloud for {path} (use --provider)")
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise tables.SchemaChanged("not a UTF-8 text file") from None
    if "\0" in text:
        raise tables.SchemaChanged("not a text file")
    rows = tables.skypilot_rows(io.StringIO(text, newline=""), provider, report.findings)
    rows = [replace(r, published=sky.published) for r in rows]
    report.fetched_at = env.now.isoformat(timespec="seconds")
    title = f"SkyPilot catalog file {path.name} ({provider}), imported from disk"
    _write(env, report, rows, path.resolve().as_uri(), title, sky.published)
