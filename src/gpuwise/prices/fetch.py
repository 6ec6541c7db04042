"""HTTP for the price feeds (through gpuwise.net): timeouts, conditional GETs, bounded retries.

Every call returns a :class:`Fetched` or raises :class:`FeedError` (a typed failure the caller
turns into a finding); nothing here prints. Throttling (429/503) and dropped connections are
retried after the server's `Retry-After` (seconds or an HTTP date), capped, a bounded number of
times. A network that is not there — the name does not resolve, the host or network is
unreachable, the connection is refused or times out — is not retried: waiting seconds does not
bring it back, and retrying every feed with backoff made an offline refresh take 47 s (newcomer
review). A download to a file resumes a `.part` file with a `Range` request when the server
supports it.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from gpuwise import net

TIMEOUT_S = 30.0
"""Per-connection timeout: a feed that does not answer in this time is a finding."""
RETRIES = 4
"""Attempts after a throttled (429/503) or dropped answer, before giving up on the feed."""
MAX_WAIT_S = 60.0
"""The longest `Retry-After` honoured; a longer one ends the attempt (the feed is busy)."""
CHUNK = 1 << 16
USER_AGENT = "gpuwise-prices-refresh (+https://github.com/gpuwise)"


class FeedError(Exception):
    """A feed could not be read: `reason` is a message key suffix, `detail` says what happened."""

    def __init__(self, reason: str, url: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {url} {detail}")
        self.reason = reason
        self.url = url
        self.detail = detail


@dataclass
class Fetched:
    """One answer: status, body (small answers) or file (downloads), validators, when."""

    url: str
    status: int
    body: bytes = b""
    etag: str | None = None
    last_modified: str | None = None
    fetched_at: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.UTC))
    not_modified: bool = False

    def last_modified_date(self) -> dt.date | None:
        """The Last-Modified header as a date (None when absent or unreadable)."""
        if not self.last_modified:
            return None
        try:
            return email.utils.parsedate_to_datetime(self.last_modified).date()
        except (TypeError, ValueError):
            return None


Sleep = Callable[[float], None]


def retry_after_s(value: str | None, now: dt.datetime | None = None) -> float:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP date (RFC 9110)."""
    if not value:
        return 1.0
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return 1.0
    now = now or dt.datetime.now(dt.UTC)
    return max(0.0, (when - now).total_seconds())


def _open(
    url: str, headers: dict[str, str], sleep: Sleep, timeout_s: float
) -> tuple[Any, dict[str, str]]:
    """Open `url`, retrying throttled or dropped answers; a 304 comes back as (None, headers)."""
    last = ""
    for attempt in range(RETRIES + 1):
        try:
            resp = net.open_url(url, timeout_s, {"User-Agent": USER_AGENT, **headers})
            return resp, dict(resp.headers.items())
        except net.HTTPError as exc:
            hdrs = dict(exc.headers.items()) if exc.headers else {}
            if exc.code == 304:
                return None, hdrs
            if exc.code in (429, 503) and attempt < RETRIES:
                wait = retry_after_s(hdrs.get("Retry-After"))
                if wait > MAX_WAIT_S:
                    raise FeedError("throttled", url, f"Retry-After {wait:.0f} s") from exc
                sleep(wait)
                last = f"HTTP {exc.code}"
                continue
            raise FeedError("http", url, f"HTTP {exc.code}") from exc
        except (OSError, net.HTTPException) as exc:  # URLError, timeouts, resets
            last = str(getattr(exc, "reason", exc))
            if net.no_network(exc):
                raise FeedError("unreachable", url, last) from exc
            if attempt < RETRIES:
                sleep(min(2.0**attempt, MAX_WAIT_S))
                continue
            raise FeedError("unreachable", url, last) from exc
    raise FeedError("throttled", url, last)


def _conditional(etag: str | None, last_modified: str | None) -> dict[str, str]:
    headers: dict[str, str] = {}
    if etag:
        headers["If-None-Match"] = etag
    if last_modified:
        headers["If-Modified-Since"] = last_modified
    return headers


def get(
    url: str,
    etag: str | None = None,
    last_modified: str | None = None,
    sleep: Sleep = time.sleep,
    timeout_s: float = TIMEOUT_S,
) -> Fetched:
    """GET a small answer into memory (a JSON page, a version file); conditional when asked.

    A body shorter than its Content-Length is a truncated answer: FeedError, never half data.
    """
    resp, headers = _open(url, _conditional(etag, last_modified), sleep, timeout_s)
    if resp is None:
        return Fetched(url, 304, etag=etag, last_modified=last_modified, not_modified=True)
    with resp:
        try:
            body = resp.read()
        except (OSError, net.HTTPException) as exc:  # IncompleteRead, reset
            raise FeedError("truncated", url, str(exc)) from exc
    expected = headers.get("Content-Length")
    if expected and expected.isdigit() and len(body) < int(expected):
        raise FeedError("truncated", url, f"{len(body)} of {expected} bytes")
    return Fetched(url, resp.status, body, headers.get("ETag"), headers.get("Last-Modified"))


def stream_lines(
    url: str,
    sleep: Sleep = time.sleep,
    timeout_s: float = TIMEOUT_S,
    progress: Callable[[int, int | None], None] | None = None,
    etag: str | None = None,
    last_modified: str | None = None,
) -> tuple[Fetched, Iterator[str]]:
    """GET a large text answer line by line, never holding it in memory (AWS price files).

    The iterator raises FeedError("truncated") when the body ends before its Content-Length.
    """
    resp, headers = _open(url, _conditional(etag, last_modified), sleep, timeout_s)
    if resp is None:
        meta = Fetched(url, 304, etag=etag, last_modified=last_modified, not_modified=True)
        return meta, iter(())
    meta = Fetched(url, resp.status, b"", headers.get("ETag"), headers.get("Last-Modified"))
    length = headers.get("Content-Length")
    total = int(length) if length and length.isdigit() else None

    def lines() -> Iterator[str]:
        seen = 0
        with resp:
            try:
                for raw in resp:
                    seen += len(raw)
                    if progress:
                        progress(seen, total)
                    yield raw.decode("utf-8", "replace")
            except (OSError, net.HTTPException) as exc:
                raise FeedError("truncated", url, str(exc)) from exc
        if total is not None and seen < total:
            raise FeedError("truncated", url, f"{seen} of {total} bytes")

    return meta, lines()


def download(
    url: str,
    dest: Path,
    sleep: Sleep = time.sleep,
    timeout_s: float = TIMEOUT_S,
    progress: Callable[[int, int | None], None] | None = None,
) -> Fetched:
    """Download to `dest`, resuming `dest.part` with a Range request; the file appears whole
    or not at all. A server that ignores Range (200) restarts the download."""
    part = dest.with_name(dest.name + ".part")
    have = part.stat().st_size if part.exists() else 0
    headers = {"Range": f"bytes={have}-"} if have else {}
    resp, hdrs = _open(url, headers, sleep, timeout_s)
    if resp is None:  # pragma: no cover - no validators were sent
        raise FeedError("http", url, "HTTP 304")
    resumed = resp.status == 206
    length = hdrs.get("Content-Length")
    total = (int(length) + (have if resumed else 0)) if length and length.isdigit() else None
    done = have if resumed else 0
    mode = "ab" if resumed else "wb"
    with resp, part.open(mode) as out:
        _copy(resp, out, done, total, progress, url)
    size = part.stat().st_size
    if total is not None and size < total:
        raise FeedError("truncated", url, f"{size} of {total} bytes (kept for resume)")
    part.replace(dest)
    return Fetched(url, resp.status, b"", hdrs.get("ETag"), hdrs.get("Last-Modified"))


def _copy(
    src: Any,
    out: IO[bytes],
    done: int,
    total: int | None,
    progress: Callable[[int, int | None], None] | None,
    url: str,
) -> None:
    try:
        while chunk := src.read(CHUNK):
            out.write(chunk)
            done += len(chunk)
            if progress:
                progress(done, total)
    except (OSError, net.HTTPException) as exc:
        out.flush()
        raise FeedError("truncated", url, f"{exc} (kept for resume)") from exc
