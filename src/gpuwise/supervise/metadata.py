"""Poll a cloud's metadata service for preemption notices (a background thread), and acknowledge.

Every request has a timeout and bypasses HTTP proxies (a link-local address must never go to a
proxy). Endpoints come from the catalog; `base_override` (`--metadata-url`) replaces their
scheme://host part so tests can point them at a loopback server. The thread puts what it learns
on a queue: :class:`~gpuwise.preempt.notice.Notice` objects (each distinct notice once), or one
:class:`Unreachable` when the very first request cannot reach the service, after which it stops:
the supervisor then warns and supervises without notices.
"""

from __future__ import annotations

import datetime as dt
import json
import queue
import threading
import time
from dataclasses import dataclass

from gpuwise import net
from gpuwise.catalog.schema_supervise import PreemptionEndpoint
from gpuwise.preempt.notice import Notice, parse_reply

_BODY_LIMIT = 1024 * 1024  # bytes read from a reply; notices are a few hundred


@dataclass(frozen=True)
class Reply:
    """An HTTP answer (any status)."""

    status: int
    body: str


@dataclass(frozen=True)
class Unreachable:
    """No HTTP answer at all: refused, timed out, no route, unknown host."""

    url: str
    detail: str


Polled = Notice | Unreachable


def endpoint_url(ep: PreemptionEndpoint, base_override: str | None) -> str:
    """The endpoint's full URL, with `--metadata-url` replacing the catalog's base."""
    return (base_override or ep.base_url).rstrip("/") + ep.path


def request(
    url: str,
    timeout_s: float,
    method: str = "GET",
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
) -> Reply | Unreachable:
    """One HTTP request with a timeout, never through a proxy; never raises."""
    try:
        with net.open_url(url, timeout_s, headers, method, body, proxies=False) as resp:
            return Reply(int(resp.status), _text(resp.read(_BODY_LIMIT)))
    except net.HTTPError as exc:
        try:
            text = _text(exc.read(_BODY_LIMIT))
        except OSError:
            text = ""
        return Reply(int(exc.code), text)
    except net.URLError as exc:
        return Unreachable(url, str(exc.reason))
    except (OSError, net.HTTPException, ValueError) as exc:
        return Unreachable(url, f"{type(exc).__name__}: {exc}")


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


class _Tokens:
    """Session tokens per base URL (IMDSv2-style), refreshed before they expire."""

    def __init__(self) -> None:
        self._tokens: dict[str, tuple[str, float]] = {}
        self._refused: set[str] = set()

    def headers(
        self, ep: PreemptionEndpoint, base: str, timeout_s: float
    ) -> dict[str, str] | Unreachable:
        """Headers for a GET: the endpoint's own, plus a token when the service hands one out."""
        out = dict(ep.headers)
        flow = ep.token
        if flow is None:
            return out
        key = base + flow.path
        if key in self._refused:
            return out
        token, expires = self._tokens.get(key, ("", 0.0))
        if not token or time.monotonic() >= expires:
            got = request(
                key, timeout_s, "PUT", {**ep.headers, flow.ttl_header: str(flow.ttl_s)}, b""
            )
            if isinstance(got, Unreachable):
                return got
            if got.status != 200 or not got.body.strip():
                self._refused.add(key)  # no token service here: plain GETs (IMDSv1-style)
                return out
            token, expires = got.body.strip(), time.monotonic() + flow.ttl_s * 0.9
            self._tokens[key] = (token, expires)
        out[flow.header] = token
        return out

    def forget(self, ep: PreemptionEndpoint, base: str) -> None:
        """Drop a token the service rejected (401), so the next poll asks for a new one."""
        if ep.token is not None:
            self._tokens.pop(base + ep.token.path, None)


def check(
    ep: PreemptionEndpoint, base_override: str | None, timeout_s: float, tokens: _Tokens
) -> list[Notice] | Unreachable:
    """Ask one endpoint once; its notices (empty: none) or why it could not be asked."""
    base = (base_override or ep.base_url).rstrip("/")
    headers = tokens.headers(ep, base, timeout_s)
    if isinstance(headers, Unreachable):
        return headers
    got = request(base + ep.path, timeout_s, "GET", headers)
    if isinstance(got, Unreachable):
        return got
    if got.status == 401:
        tokens.forget(ep, base)
        return []
    return parse_reply(ep, got.status, got.body, dt.datetime.now(dt.timezone.utc))


def acknowledge(
    ep: PreemptionEndpoint, base_override: str | None, event_id: str, timeout_s: float
) -> Reply | Unreachable:
    """Azure: approve a scheduled event so it may start before its NotBefore time."""
    payload = json.dumps({"StartRequests": [{"EventId": event_id}]}).encode()
    headers = {**ep.headers, "Content-Type": "application/json"}
    return request(endpoint_url(ep, base_override), timeout_s, "POST", headers, payload)


class MetadataPoller(threading.Thread):
    """Polls every endpoint at its own pace until stopped; results go to `out`."""

    def __init__(
        self,
        endpoints: tuple[PreemptionEndpoint, ...],
        base_override: str | None,
        timeout_s: float,
        poll_override_s: float | None,
        out: queue.Queue[Polled],
    ) -> None:
        super().__init__(name="gpuwise-metadata", daemon=True)
        self.endpoints = endpoints
        self.base_override = base_override
        self.timeout_s = timeout_s
        self.poll_override_s = poll_override_s
        self.out = out
        self._stop_event = threading.Event()
        self._tokens = _Tokens()

    def stop(self) -> None:
        """Ask the thread to finish (it does within one request timeout)."""
        self._stop_event.set()

    def run(self) -> None:
        due = {ep.id: 0.0 for ep in self.endpoints}
        asked: set[str] = set()
        answered = False
        seen: set[str] = set()
        while not self._stop_event.is_set() and self.endpoints:
            for ep in self.endpoints:
                if time.monotonic() < due[ep.id] or self._stop_event.is_set():
                    continue
                first = ep.id not in asked and ep.first_call_timeout_s is not None
                timeout = ep.first_call_timeout_s if first and ep.first_call_timeout_s else None
                asked.add(ep.id)
                got = check(ep, self.base_override, timeout or self.timeout_s, self._tokens)
                due[ep.id] = time.monotonic() + (self.poll_override_s or ep.poll_s)
                if isinstance(got, Unreachable):
                    if not answered:
                        self.out.put(got)
                        return
                    continue  # a passing fault once the service has answered
                answered = True
                for notice in got:
                    if notice.key() not in seen:
                        seen.add(notice.key())
                        self.out.put(notice)
            wait = min(due.values()) - time.monotonic()
            self._stop_event.wait(max(0.01, wait))
