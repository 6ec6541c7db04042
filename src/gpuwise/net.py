"""The one HTTP client module: the only place that imports `urllib.request`, `urllib.error` or
`http.client` (ruff bans them everywhere else).

Price feeds (prices/fetch.py), cloud metadata (supervise/metadata.py), Ollama and engine
metrics (probe/ollama.py, probe/engine_metrics.py) and the audit's port checks
(probe/audit_sockets.py) all speak HTTP. Keeping the client in one module means one place
decides timeouts, proxies and body limits, and one place names the exceptions a caller must
expect: :data:`HTTPError` (an answer with an error status), :data:`URLError` (no answer: the
reason says why) and :data:`HTTPException` (a broken answer). Callers keep their own policy
(retries, what a failure means); nothing here prints or retries.
"""

from __future__ import annotations

import errno
import http.client
import json
import socket
import urllib.error
import urllib.request
from typing import Any

HTTPError = urllib.error.HTTPError
"""An answer with a 4xx/5xx status (`.code`, `.headers`, readable body)."""
URLError = urllib.error.URLError
"""No answer at all; `.reason` is the socket error (refused, timed out, unknown host)."""
HTTPException = http.client.HTTPException
"""A malformed or cut-off answer (IncompleteRead, BadStatusLine, …)."""

_NO_NETWORK_ERRNOS = frozenset(
    {errno.ENETUNREACH, errno.EHOSTUNREACH, errno.ECONNREFUSED, errno.EADDRNOTAVAIL}
)


def open_url(
    url: str,
    timeout_s: float,
    headers: dict[str, str] | None = None,
    method: str = "GET",
    body: bytes | None = None,
    proxies: bool = True,
) -> Any:
    """Open `url` and return the response (a context manager with `.status`, `.headers`,
    `.read()`); raises HTTPError, URLError, HTTPException or OSError.

    `proxies=False` never goes through an HTTP proxy: a link-local metadata address or a
    loopback server must not be sent to one.
    """
    req = urllib.request.Request(url, data=body, headers=headers or {}, method=method)
    if proxies:
        return urllib.request.urlopen(req, timeout=timeout_s)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    return opener.open(req, timeout=timeout_s)


def get_json(url: str, timeout_s: float, limit_bytes: int = 4 * 1024 * 1024) -> Any:
    """GET a JSON document (at most `limit_bytes` read); raises OSError/ValueError subclasses
    (and HTTPException) on failure."""
    with open_url(url, timeout_s, {"Accept": "application/json"}) as resp:
        return json.loads(resp.read(limit_bytes).decode("utf-8", errors="replace"))


def no_network(exc: BaseException) -> bool:
    """Whether a failure means the network (or the host) is not there at all: a name that does
    not resolve, an unreachable host or network, a refused connection, a timeout."""
    reason = getattr(exc, "reason", None)  # URLError wraps the socket error
    cause = reason if isinstance(reason, BaseException) else exc
    if isinstance(cause, (socket.gaierror, TimeoutError)):
        return True
    return isinstance(cause, OSError) and cause.errno in _NO_NETWORK_ERRNOS


def plain_get(
    host: str, port: int, path: str, timeout_s: float, headers: dict[str, str], limit_bytes: int
) -> tuple[int | None, str, str]:
    """(status, start of the body, error) of one GET to host:port, no proxy; never raises.

    For the audit's "does this port answer without a password" checks, where the caller has a
    host and a port rather than a URL.
    """
    conn = http.client.HTTPConnection(host, port, timeout=timeout_s)
    try:
        conn.request("GET", path, headers=headers)
        resp = conn.getresponse()
        body = resp.read(limit_bytes).decode("utf-8", errors="replace")
        return resp.status, body, ""
    except (OSError, http.client.HTTPException, ValueError) as exc:
        return None, "", type(exc).__name__
    finally:
        conn.close()
