"""What every response and request goes through: size limits, the Host and Origin checks, and
strict headers (Content-Security-Policy allows nothing but this server's own files).

A pure ASGI middleware, so an oversized body is refused while it arrives, before any handler
reads it, and a chunked upload without Content-Length is counted as it streams.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

BODY_MAX_BYTES = 3 * 1024 * 1024
"""A request body: a 2 MiB paste, form-encoded (which grows it), fits; more is refused (413)."""
URL_MAX_BYTES = 8192

CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
    "base-uri 'none'; frame-ancestors 'none'"
)
"""No script at all, styles only from /static, forms post only here, never framed."""

HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
]
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")


class BodyTooLarge(Exception):
    """Raised from `receive` once a streamed body passes the limit."""


class Guard:
    """Limits and headers around the app.

    `hosts`: the Host header values accepted (None: any). A server bound to loopback accepts
    only loopback names, so a web page cannot reach it through DNS rebinding; a cross-site form
    post (an Origin of another site) is refused.
    """

    def __init__(self, app: ASGIApp, hosts: tuple[str, ...] | None, messages: Any) -> None:
        self.app = app
        self.hosts = hosts
        self.messages = messages  # (key, lang) -> text, for the refusals below

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            await _error(send, refusal[0], self.messages(refusal[1], headers))
            return
        await self.app(scope, _counted(receive), _with_headers(send))

    def _refusal(self, scope: Scope, headers: dict[str, str]) -> tuple[int, str] | None:
        host = headers.get("host", "")
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        if self.hosts is not None and name not in self.hosts:
            return 421, "web.bad_host"
        if scope["method"] == "POST" and _cross_site(headers, host):
            return 403, "web.cross_site"
        if (
            len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"")
            > URL_MAX_BYTES
        ):
            return 414, "web.url_too_long"
        length = headers.get("content-length", "0")
        if not length.isdigit() or int(length) > BODY_MAX_BYTES:
            return 413, "web.too_large"
        return None


def _cross_site(headers: dict[str, str], host: str) -> bool:
    """Whether a POST comes from a page of another site.

    Browsers send `Origin` on every form post and `Sec-Fetch-Site` where they support it; a
    client without either (curl, the test client) is not a browser page and is let through.
    Why the Referrer-Policy is `same-origin`, not `no-referrer`: under `no-referrer` Chromium
    sends `Origin: null` even for this server's own form, and the plan form could never be
    submitted from a real browser (found by the Playwright test).
    """
    if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        return True
    origin = headers.get("origin")
    return origin is not None and urlsplit(origin).netloc != host


def _counted(receive: Receive) -> Receive:
    """`receive` that stops a body growing past the limit (chunked uploads included)."""
    seen = 0

    async def wrapped() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > BODY_MAX_BYTES:
                raise BodyTooLarge
        return message

    return wrapped


def _with_headers(send: Send) -> Send:
    """`send` that adds the security headers to every response start."""

    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            names = {k.lower() for k, _ in message.get("headers", [])}
            extra = [(k, v) for k, v in HEADERS if k not in names]
            message["headers"] = [*message.get("headers", []), *extra]
        await send(message)

    return wrapped


async def _error(send: Send, status: int, text: str) -> None:
    """A refusal as the API answers every error: `{"error": one line}`."""
    body = json.dumps({"error": text}, ensure_ascii=False).encode("utf-8")
    start = {
        "type": "http.response.start",
        "status": status,
        "headers": [
            (b"content-type", b"application/json; charset=utf-8"),
            (b"content-length", str(len(body)).encode()),
        ],
    }
    await _with_headers(send)(start)
    await send({"type": "http.response.body", "body": body})
